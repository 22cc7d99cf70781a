import ArgumentParser
import AudioFile
import Glibc
import Pianola

/// `pianola plugins`: the LV2 plugins installed, and what `--fx` can set on one.
struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the installed LV2 plugins, or one plugin's ports, ranges and presets.",
        discussion: "Plugins are found where LV2_PATH says, else in ~/.lv2, /usr/local/lib/lv2 and /usr/lib/lv2. --fx takes one by URI or name, its control ports by symbol: --fx 'mda Delay,l_delay=0.3'.")

    @Argument(help: ArgumentHelp("A plugin's URI or name: show its ports and presets.", valueName: "plugin"))
    var plugin: String?

    @Flag(help: "Try each plugin (or the one named) in a child process: a second of noise through an effect, a chord on an instrument. Prints each verdict: ok, refused (why), bad-output, crashed or hung. Verdicts are cached until the plugin or Pianola changes.")
    var check = false

    @Flag(help: "With --check: try every plugin again, cached or not.")
    var again = false

    @Option(help: ArgumentHelp(visibility: .private))
    var probe: String?

    /// With --probe: run the plugin over this file instead (stereo, float), `block` frames a
    /// run, and write what comes out to `applyOutput`: how Tools/lv2_table.py compares a
    /// plugin with lv2apply at lv2apply's own block length.
    @Option(help: ArgumentHelp(visibility: .private))
    var apply: String?

    @Option(help: ArgumentHelp(visibility: .private))
    var applyOutput: String?

    @Option(help: ArgumentHelp(visibility: .private))
    var block = 512

    func run() throws {
        let world: LV2World
        do { world = try LV2World.shared() } catch { throw fail(error.description) }
        if let probe {   // the child of --check: one verdict line
            let info: LV2PluginInfo
            do { info = try world.plugin(probe) } catch { print("not found: \(error.description)"); return }
            guard let apply, let applyOutput else {
                print(LV2Probe.run(info).description)
                return
            }
            do { try Self.apply(info, from: apply, to: applyOutput, block: block) } catch { throw fail("\(error)") }
            return
        }
        if check {
            let chosen: [LV2PluginInfo]
            if let plugin { do { chosen = [try world.plugin(plugin)] } catch { throw fail(error.description) } } else { chosen = world.plugins }
            var counts: [String: Int] = [:]
            _ = PluginChecks.check(chosen, jobs: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))), again: again) { result in
                counts[result.verdict, default: 0] += 1
                print("\(result.verdict)\t\(result.uri)\t\(result.detail)")
                fflush(nil)
            }
            print("\(chosen.count) LV2 plugins checked: " + ["ok", "refused", "bad-output", "crashed", "hung"].map { "\(counts[$0, default: 0]) \($0)" }.joined(separator: ", "))
            return
        }
        guard let plugin else {
            for info in world.plugins { print(Self.line(info)) }
            print("\(world.plugins.count) LV2 plugins")
            for problem in world.problems { printError("warning: LV2 bundle \(problem.bundle) could not be read: \(problem.reason)") }
            return
        }
        let info: LV2PluginInfo
        do { info = try world.plugin(plugin) } catch { throw fail(error.description) }
        print(Self.line(info))
        do { _ = try EffectSpec(info.uri) } catch { print("  not usable as --fx: \(error.reason)") }
        for port in info.ports {
            let direction = port.isInput ? "in " : "out"
            var range = ""
            if port.kind == .control {
                range = " " + [port.minimum, port.maximum].map { $0.isNaN ? "?" : Self.number($0) }.joined(separator: "..")
                    + (port.defaultValue.isNaN ? "" : " (default \(Self.number(port.defaultValue)))")
                    + (port.scalePoints.isEmpty ? "" : " [\(port.scalePoints.map { "\(Self.number($0.value)) = \($0.label)" }.joined(separator: ", "))]")
            }
            print("  \(direction) \(port.kind.rawValue + String(repeating: " ", count: max(0, 7 - port.kind.rawValue.count))) \(port.symbol)\(range): \(port.name)\(port.isOptional ? " (optional)" : "")")
        }
        for preset in info.presets { print("  preset: \(preset.label)  <\(preset.uri)>") }
    }

    /// `plugin` as an effect over the audio file `input`, `block` frames a run, written to `output` (float WAV).
    private static func apply(_ plugin: LV2PluginInfo, from input: String, to output: String, block: Int) throws {
        let reader = try AudioFileReader(path: input)
        let frames = Int(reader.frames)
        var interleaved = [Float](repeating: 0, count: 2 * frames)
        _ = try interleaved.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: frames) }
        var left = (0..<frames).map { interleaved[2 * $0] }, right = (0..<frames).map { interleaved[2 * $0 + 1] }
        let unit = try LV2EffectUnit(plugin, sampleRate: reader.sampleRate, maxFrames: block, offline: true)
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                let slice = StereoSlice(left: l.baseAddress!, right: r.baseAddress!, frames: frames)
                for start in stride(from: 0, to: frames, by: block) { unit.process(slice.dropFirst(start, count: min(block, frames - start))) }
            }
        }
        let writer = try AudioFileWriter(path: output, container: .wav, encoding: .float32, sampleRate: reader.sampleRate, overwrite: true)
        try writer.write(left: left, right: right, frames: frames)
        try writer.close()
    }

    /// Name, URI, class and the shape of a plugin, on one line.
    static func line(_ info: LV2PluginInfo) -> String {
        var notes = ["\(info.audioInputs.count) in", "\(info.audioOutputs.count) out", "\(info.controlInputs.count) parameters"]
        if !info.presets.isEmpty { notes.append("\(info.presets.count) presets") }
        if info.takesMIDI { notes.append("takes MIDI") }
        if !info.sideChainInputs.isEmpty { notes.append("\(info.sideChainInputs.count) side-chain in (left silent)") }
        if !info.isHardRealTime { notes.append("not hard real-time") }
        if let refusal = refusal(info) { notes.append("cannot be hosted: \(refusal)") }
        return "\(info.name)  <\(info.uri)>\(info.className.isEmpty ? "" : "  [\(info.className)]")  \(notes.joined(separator: ", "))"
    }

    /// Why Pianola can host `info` neither as an effect nor as an instrument, nil when it can.
    static func refusal(_ info: LV2PluginInfo) -> String? {
        do throws(LV2Error) {
            _ = try LV2EffectUnit.parameters(of: info)
            return nil
        } catch let effect {
            guard info.takesMIDI else { return effect.description }
            do throws(LV2Error) { try LV2Instrument.check(info) } catch { return error.description }
            return nil
        }
    }

    private static func number(_ value: Float) -> String { value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value) }
}
