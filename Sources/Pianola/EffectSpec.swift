import DSP
import Faults
import LV2

/// An effect as a user writes it: a built-in's name and its parameters by name, separated by
/// commas (`lowpass,cutoff=800`, `peak,frequency=2.5kHz,q=2,gain=-6dB`, `delay,time=1/8.`).
/// Values are numbers, optionally followed by the parameter's unit (Hz, kHz, dB, s, ms); a time
/// may be a note value (1/8, 1/8. dotted, 1/8t triplet), which the song's tempo turns into
/// seconds. An LV2 plugin is named by its URI or its name (`pianola plugins` lists them), its
/// parameters by its control ports' symbols, and `preset=LABEL` sets those of a preset (the
/// ones given beside it win). Checked when made, so a spec that exists makes a
/// unit. Any thread.
public struct EffectSpec: Hashable, Sendable, CustomStringConvertible {
    /// The built-in effect's name, or the LV2 plugin's. Any thread.
    public let name: String
    /// The LV2 plugin it names, nil for a built-in. Any thread.
    public let plugin: LV2PluginInfo?
    /// The effect's parameters, in the order its unit numbers them. Any thread.
    public let parameters: [EffectParameter]
    /// The parameters given as numbers, by their index in the effect's parameters. Any thread.
    public let values: [Int: Double]
    /// The times given as note values, in quarter notes, by parameter index. Any thread.
    public let noteValues: [Int: Double]
    /// The LV2 preset given (`preset=LABEL`), whose whole state the plugin is given. Any thread.
    public let preset: LV2Preset?
    /// The text it was read from. Any thread.
    public let description: String

    /// Reads `text`; throws one line naming what is wrong (an unknown effect or parameter, a
    /// value that is not a number or out of its range). Any thread.
    public init(_ text: String) throws(EffectSpecError) {
        description = text
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmed)
        guard let first = fields.first, !first.isEmpty else {
            throw EffectSpecError(spec: text, reason: "no effect named (give one of \(Self.names), with parameters after commas: lowpass,cutoff=800)")
        }
        if let effect = BuiltInEffect.named(first) {
            (name, plugin, parameters) = (effect.name, nil, effect.parameters)
        } else if !first.contains(":"), let near = nearest(first, among: BuiltInEffect.all.map(\.name)) {
            // A typo of a built-in's name is told at once, before the plugins are looked for.
            throw EffectSpecError(spec: text, reason: "no built-in effect '\(first)'; did you mean '\(near)'? (an LV2 plugin of such a name is given by its URI)")
        } else {
            let plugin: LV2PluginInfo
            do { plugin = try LV2World.shared().plugin(first) } catch {
                let lv2 = first.contains(":") ? error.description : "nor an LV2 plugin of that name"
                throw EffectSpecError(spec: text, reason: "no built-in effect '\(first)' (built in: \(Self.names); 'pianola effects' lists their parameters), \(lv2)")
            }
            do { parameters = try LV2EffectUnit.parameters(of: plugin) } catch { throw EffectSpecError(spec: text, reason: error.description) }
            (name, self.plugin) = (plugin.name, plugin)
        }
        var values: [Int: Double] = [:], noteValues: [Int: Double] = [:], preset: [String: Double] = [:], chosen: LV2Preset?
        for field in fields.dropFirst() {
            let parts = field.split(separator: "=", maxSplits: 1).map(\.trimmed)
            let have = parameters.map(\.name).joined(separator: ", ")
            guard parts.count == 2, !parts[0].isEmpty else {
                throw EffectSpecError(spec: text, reason: "'\(field)' is not name=value (\(name) has \(have))")
            }
            if let plugin, parts[0].lowercased() == "preset", !parameters.contains(where: { $0.name == parts[0] }) {
                do {
                    chosen = try LV2World.shared().preset(plugin, named: parts[1])
                    preset = try LV2World.shared().presetValues(plugin, preset: parts[1])
                } catch { throw EffectSpecError(spec: text, reason: error.description) }
                continue
            }
            guard let index = parameters.firstIndex(where: { $0.name == parts[0] }) ?? parameters.firstIndex(where: { $0.name.lowercased() == parts[0].lowercased() }) else {
                throw EffectSpecError(spec: text, reason: "\(name) has no parameter '\(parts[0])' (it has \(have))")
            }
            let parameter = parameters[index]
            guard values[index] == nil && noteValues[index] == nil else { throw EffectSpecError(spec: text, reason: "\(parameter.name) is given twice") }
            if parameter.unit == "s", parts[1].contains("/") {
                guard let quarters = Self.quarters(parts[1]) else {
                    throw EffectSpecError(spec: text, reason: "\(parameter.name) '\(parts[1])' is not a note value (1/4, 1/8. dotted, 1/8t triplet) or seconds")
                }
                noteValues[index] = quarters
                continue
            }
            guard let value = Self.number(parts[1], unit: parameter.unit) else {
                let example = "\(parameter.name)=\(parameter.defaultValue.formatted)\(parameter.unit)"
                throw EffectSpecError(spec: text, reason: "\(parameter.name) '\(parts[1])' is not a number\(parameter.unit.isEmpty ? "" : " of \(parameter.unit)") (e.g. \(example))")
            }
            guard value >= parameter.minimum && value <= parameter.maximum else {
                throw EffectSpecError(spec: text, reason: "\(parameter.name) \(value.formatted)\(parameter.unit.isEmpty ? "" : " \(parameter.unit)") is out of range: use \(parameter.minimum.formatted) to \(parameter.maximum.formatted)\(parameter.unit.isEmpty ? "" : " \(parameter.unit)")")
            }
            values[index] = value
        }
        // A preset's values under the ones given.
        for (symbol, value) in preset {
            if let index = parameters.firstIndex(where: { $0.name == symbol }), values[index] == nil, noteValues[index] == nil { values[index] = value }
        }
        self.values = values
        self.noteValues = noteValues
        self.preset = chosen
    }

    /// Why it cannot play at `sampleRate` (a frequency not below half of it) or at a tempo of
    /// `secondsPerQuarter` (a note value longer than the longest time; not checked when nil),
    /// nil when it can. Any thread.
    public func problem(atSampleRate sampleRate: Int, secondsPerQuarter: Double?) -> EffectSpecError? {
        for (index, value) in values.sorted(by: { $0.key < $1.key }) where parameters[index].unit == "Hz" && value >= Double(sampleRate) / 2 {
            return EffectSpecError(spec: description, reason: "\(parameters[index].name) \(value.formatted) Hz is not below half the sample rate (\(sampleRate) Hz)")
        }
        guard let secondsPerQuarter else { return nil }
        for (index, quarters) in noteValues.sorted(by: { $0.key < $1.key }) {
            let parameter = parameters[index], seconds = quarters * secondsPerQuarter
            if seconds < parameter.minimum || seconds > parameter.maximum {
                let bpm = (600 / secondsPerQuarter).rounded() / 10
                return EffectSpecError(spec: description, reason: "\(parameter.name) of \(quarters.formatted) quarter notes lasts \(seconds.formatted) s at \(bpm.formatted) bpm: use \(parameter.minimum.formatted) to \(parameter.maximum.formatted) s")
            }
        }
        return nil
    }

    /// Whether it keeps the render thread's rules (an LV2 plugin must say lv2:hardRTCapable):
    /// what live play needs; a render takes any. Any thread.
    public var isHardRealTime: Bool { plugin?.isHardRealTime ?? true }

    /// A new unit with these values (note values at `secondsPerQuarter`), not yet prepared; an
    /// LV2 plugin is instantiated for `sampleRate` and slices of at most `maxFrames` (its
    /// worker working at once when `offline`, a render), and throws one line when it cannot
    /// be. Control thread.
    public func makeUnit(sampleRate: Int = 48_000, maxFrames: Int = 8_192, secondsPerQuarter: Double = 0.5, offline: Bool = false) throws(EffectSpecError) -> any EffectUnit {
        guard let plugin else { return configure(BuiltInEffect.named(name)!.makeUnit(), secondsPerQuarter: secondsPerQuarter) }
        do {
            let unit = try LV2EffectUnit(plugin, sampleRate: sampleRate, maxFrames: maxFrames, preset: preset?.uri, offline: offline)
            return configure(unit, secondsPerQuarter: secondsPerQuarter)
        } catch {
            throw EffectSpecError(spec: description, reason: error.description)
        }
    }

    /// `unit` (of this spec's effect) given these values. Control thread.
    public func configure<Unit: EffectUnit>(_ unit: Unit, secondsPerQuarter: Double = 0.5) -> Unit {
        for (index, value) in values { unit.setParameter(index, to: value, rampFrames: 0) }
        for (index, quarters) in noteValues { unit.setParameter(index, to: quarters * secondsPerQuarter, rampFrames: 0) }
        return unit
    }

    /// Quarter notes in a note value: `1/8` 0.5, `1/8.` 0.75 (dotted), `1/8t` 1/3 (triplet).
    private static func quarters(_ text: String) -> Double? {
        var body = Substring(text.lowercased())
        let scale: Double = body.hasSuffix(".") ? 1.5 : body.hasSuffix("t") ? 2.0 / 3 : 1
        if scale != 1 { body = body.dropLast() }
        let parts = body.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int(parts[0].trimmed), let d = Int(parts[1].trimmed), n > 0, n <= 64, [1, 2, 4, 8, 16, 32, 64].contains(d) else { return nil }
        return 4 * Double(n) / Double(d) * scale
    }

    private static var names: String { BuiltInEffect.all.map(\.name).joined(separator: ", ") }

    /// `text` as a number in `unit`: plain, or with the unit (or kHz, ms) after it, any case.
    private static func number(_ text: String, unit: String) -> Double? {
        let lower = text.lowercased()
        let scales: [(String, Double)] = unit == "Hz" ? [("khz", 1_000), ("hz", 1)] : unit == "s" ? [("ms", 0.001), ("s", 1)] : unit.isEmpty ? [] : [(unit.lowercased(), 1)]
        for (suffix, scale) in scales where lower.hasSuffix(suffix) {
            return Double(lower.dropLast(suffix.count).trimmed).flatMap { $0.isFinite ? $0 * scale : nil }
        }
        return Double(lower).flatMap { $0.isFinite ? $0 : nil }
    }
}

/// An effect spec that cannot be read, or whose plugin cannot run: which, and why, in one line. Any thread.
public struct EffectSpecError: Fault, Hashable, Sendable {
    /// The spec as given. Any thread.
    public let spec: String
    /// What is wrong with it. Any thread.
    public let reason: String
    /// A bad argument. Any thread.
    public var kind: FaultKind { .argument }
    /// `'spec': reason`. Any thread.
    public var description: String { "'\(spec)': \(reason)" }
}

extension StringProtocol {
    /// Without the spaces around it.
    var trimmed: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}

private extension Double {
    /// Without a trailing ".0": 800, 0.7071.
    var formatted: String {
        if self == rounded() && abs(self) < 1e15 { return String(Int(self)) }
        return String((self * 10_000).rounded() / 10_000)
    }
}
