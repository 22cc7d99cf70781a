import Faults
import LV2

/// An LV2 instrument as a user writes it: the plugin by URI or name (an `lv2:` before a URI
/// is allowed), then its control ports by symbol after commas (`mda piano,random_detuning=0`),
/// and `preset=LABEL` for a preset's values (the ones given beside it win).
/// Checked when made. Any thread.
public struct InstrumentSpec: Hashable, Sendable, CustomStringConvertible {
    /// The plugin. Any thread.
    public let plugin: LV2PluginInfo
    /// Its control inputs set, by symbol (the others stand at their defaults). Any thread.
    public let values: [String: Double]
    /// The LV2 preset given (`preset=LABEL`), whose whole state the plugin is given. Any thread.
    public let preset: LV2Preset?
    /// The text it was read from. Any thread.
    public let description: String

    /// Reads `text`; throws one line naming what is wrong (a plugin not installed or that takes
    /// no MIDI, a symbol it has not, a value out of its range). Any thread.
    public init(_ text: String) throws(EffectSpecError) {
        description = text
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmed }
        var name = fields[0]
        if name.hasPrefix("lv2:") { name.removeFirst(4) }
        let plugin: LV2PluginInfo
        do { plugin = try LV2World.shared().plugin(name) } catch { throw EffectSpecError(spec: text, reason: error.description) }
        guard plugin.takesMIDI else { throw EffectSpecError(spec: text, reason: "LV2 plugin '\(plugin.name)' takes no MIDI: it is not an instrument") }
        var values: [String: Double] = [:], preset: [String: Double] = [:], chosen: LV2Preset?
        for field in fields.dropFirst() {
            let parts = field.split(separator: "=", maxSplits: 1).map { String($0).trimmed }
            if parts.count == 2, parts[0].lowercased() == "preset", !plugin.controlInputs.contains(where: { $0.symbol == parts[0] }) {
                do {
                    chosen = try LV2World.shared().preset(plugin, named: parts[1])
                    preset = try LV2World.shared().presetValues(plugin, preset: parts[1])
                } catch { throw EffectSpecError(spec: text, reason: error.description) }
                continue
            }
            let symbols = plugin.controlInputs.map(\.symbol)
            guard parts.count == 2, let port = plugin.controlInputs.first(where: { $0.symbol.lowercased() == parts[0].lowercased() }) else {
                throw EffectSpecError(spec: text, reason: "\(plugin.name) has no parameter '\(parts[0])' (it has \(symbols.joined(separator: ", ")))")
            }
            guard let value = Double(parts[1]), value.isFinite,
                  port.minimum.isNaN || value >= Double(port.minimum), port.maximum.isNaN || value <= Double(port.maximum) else {
                throw EffectSpecError(spec: text, reason: "\(port.symbol) '\(parts[1])': use a number from \(port.minimum) to \(port.maximum)")
            }
            values[port.symbol] = value
        }
        self.plugin = plugin
        self.preset = chosen
        self.values = preset.filter { symbol, _ in plugin.controlInputs.contains { $0.symbol == symbol } }.merging(values) { _, given in given }
    }

    /// The instrument, instantiated for `sampleRate` and runs of at most `maxFrames` (its worker
    /// working at once when `offline`, a render), with these values; throws one line when the
    /// plugin cannot be hosted. Control thread.
    public func makeInstrument(sampleRate: Int, maxFrames: Int, offline: Bool = false) throws(EffectSpecError) -> LV2Instrument {
        do {
            let instrument = try LV2Instrument(plugin, sampleRate: sampleRate, maxFrames: maxFrames, preset: preset?.uri, offline: offline)
            for (symbol, value) in values.sorted(by: { $0.key < $1.key }) { try instrument.set(symbol, to: value) }
            return instrument
        } catch {
            throw EffectSpecError(spec: description, reason: error.description)
        }
    }
}
