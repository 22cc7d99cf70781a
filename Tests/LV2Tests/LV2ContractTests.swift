import DSP
import Engine
import Foundation
import LV2
import Testing

/// What a plugin's Turtle asks of its host, honoured: a side-chain input is a key, not the
/// right channel; latency is read from the port designated for it, whatever its symbol; an
/// event input the plugin needs is connected; enumerated controls carry their labels.
/// Plugins from zam-plugins, lsp-plugins-lv2 and dragonfly-reverb-lv2.
@Suite("LV2 plugins: the contract their Turtle states")
struct LV2ContractTests {
    /// `unit` run over `left` and `right` in 512-frame slices: what comes out of each side.
    static func process(_ unit: LV2EffectUnit, left: [Float], right: [Float]) -> (left: [Float], right: [Float]) {
        let frames = left.count
        let buffer = AudioBuffer(capacity: frames)
        buffer.left.update(from: left, count: frames)
        buffer.right.update(from: right, count: frames)
        for start in stride(from: 0, to: frames, by: 512) {
            let count = min(512, frames - start)
            unit.process(buffer.slice(frames: start + count).dropFirst(start, count: count))
        }
        return (Array(UnsafeBufferPointer(start: buffer.left, count: frames)), Array(UnsafeBufferPointer(start: buffer.right, count: frames)))
    }

    /// Signal over error, in dB.
    static func snr(_ reference: [Float], _ other: [Float]) -> Double {
        var power = 0.0, error = 0.0
        for i in 0..<min(reference.count, other.count) {
            power += Double(reference[i] * reference[i])
            error += Double((reference[i] - other[i]) * (reference[i] - other[i]))
        }
        return 10 * log10(power / max(error, 1e-30))
    }

    @Test("ZamComp's side-chain input is a key left silent, not the right channel: each side is compressed alone, whatever the other side plays")
    func sideChainIsAKey() throws {
        let plugin = try LV2World.shared().plugin("urn:zamaudio:ZamComp")
        #expect(plugin.audioInputs.map(\.symbol) == ["lv2_audio_in_1"] && plugin.sideChainInputs.map(\.symbol) == ["lv2_sidechain_in"])
        // (lv2apply cannot be the reference here: it feeds the file's second channel to the
        // side chain, and crashes on ZamComp, a DPF plugin, with signal 11.)
        let signal = LV2ApplyTests.input(channels: 2)
        let loud = signal[1].map { $0 * 4 }
        let first = Self.process(try LV2EffectUnit(plugin, sampleRate: 48_000, maxFrames: 512), left: signal[0], right: signal[1])
        let second = Self.process(try LV2EffectUnit(plugin, sampleRate: 48_000, maxFrames: 512), left: signal[0], right: loud)
        let alone = Self.process(try LV2EffectUnit(plugin, sampleRate: 48_000, maxFrames: 512), left: signal[1], right: signal[1])
        #expect(first.left == second.left, "the left side does not hear the right")
        #expect(first.right == alone.left && first.right == alone.right, "the right side is compressed as it would be alone")
        #expect(Self.snr(first.left, first.right) < 10, "the two sides stay apart")
        #expect(first.left.contains { $0 != 0 })
    }

    @Test("ZamComp keyed by another bus (its side-chain switch on) turns a quiet signal down by the key's level; with no key it hears silence and leaves it")
    func sideChainFedByAKey() throws {
        let plugin = try LV2World.shared().plugin("urn:zamaudio:ZamComp")
        let frames = 96 * 512
        let quiet = (0..<frames).map { Float(sin(Double($0) * 0.05)) * 0.05 }
        func compressed(keyedBy loud: Bool) throws -> Double {
            let unit = try LV2EffectUnit(plugin, sampleRate: 48_000, maxFrames: 512)
            for (name, value) in [("sidech", 1.0), ("thr", -40.0), ("rat", 10.0)] {
                unit.setParameter(unit.parameters.firstIndex { $0.name == name }!, to: value, rampFrames: 0)
            }
            let key = SideChain(maxFrames: 512)
            if loud { unit.key = key }
            let buffer = AudioBuffer(capacity: frames)
            buffer.left.update(from: quiet, count: frames)
            buffer.right.update(from: quiet, count: frames)
            let keyBuffer = AudioBuffer(capacity: 512)
            for start in stride(from: 0, to: frames, by: 512) {
                for i in 0..<512 { (keyBuffer.left[i], keyBuffer.right[i]) = (Float(sin(Double(start + i) * 0.07)) * 0.9, Float(sin(Double(start + i) * 0.07)) * 0.9) }
                key.write(keyBuffer.slice(frames: 512))
                unit.process(buffer.slice(frames: start + 512).dropFirst(start, count: 512))
            }
            var power = 0.0
            for i in frames / 2 ..< frames { power += Double(buffer.left[i] * buffer.left[i]) }
            return 10 * log10(power / Double(frames / 2))
        }
        let (alone, keyed) = (try compressed(keyedBy: false), try compressed(keyedBy: true))
        print(String(format: "ZamComp: %.1f dB with a silent key, %.1f dB keyed by a loud bus", alone, keyed))
        #expect(alone - keyed > 6)
    }

    @Test("A plugin whose keys are marked only as optional inputs past the first two (Calf's Sidechain Compressor) or by a port group that is a side chain of the input group (LSP's, pg:sideChainOf) is a stereo effect with its two keys, its sides apart", arguments: [
        ("http://calf.sourceforge.net/plugins/SidechainCompressor", ["sidechain", "sidechain2"]),
        ("http://lsp-plug.in/plugins/lv2/sc_compressor_stereo", ["sc_l", "sc_r"]),
    ])
    func keysNotMarkedAsSideChains(uri: String, keys: [String]) throws {
        let plugin = try LV2World.shared().plugin(uri)
        #expect(plugin.audioInputs.map(\.symbol) == ["in_l", "in_r"] && plugin.sideChainInputs.map(\.symbol) == keys)
        let signal = LV2ApplyTests.input(channels: 2)
        let out = Self.process(try LV2EffectUnit(plugin, sampleRate: 48_000, maxFrames: 512), left: signal[0], right: signal[1])
        #expect(out.left.allSatisfy(\.isFinite) && out.right.allSatisfy(\.isFinite))
        #expect(out.left.contains { $0 != 0 } && Self.snr(out.left, out.right) < 10)
    }

    @Test("LSP's graphic equalizer in FIR mode reports its latency on out_latency (lv2:reportsLatency), and an impulse comes out that many frames late; its mode's choices carry labels")
    func latencyFromTheDesignatedPort() throws {
        let plugin = try LV2World.shared().plugin("http://lsp-plug.in/plugins/lv2/graph_equalizer_x16_stereo")
        let port = try #require(plugin.latencyPort.map { plugin.ports[$0] })
        #expect(port.symbol == "out_latency" && !port.isInput)
        let mode = try #require(plugin.controlInputs.first { $0.symbol == "mode" })
        #expect(mode.scalePoints.count == 4 && mode.scalePoints.allSatisfy { !$0.label.isEmpty })
        print("graphic equalizer modes: \(mode.scalePoints.map { "\(Int($0.value)) = \($0.label)" }.joined(separator: ", "))")
        let unit = try LV2EffectUnit(plugin, sampleRate: 48_000, maxFrames: 512)
        unit.setParameter(unit.parameters.firstIndex { $0.name == "mode" }!, to: Double(mode.scalePoints.first { $0.label.uppercased().contains("FIR") }?.value ?? 1), rampFrames: 0)
        var impulse = [Float](repeating: 0, count: 48_000)
        impulse[1_000] = 0.5
        let out = Self.process(unit, left: impulse, right: impulse)
        let peak = out.left.indices.max { abs(out.left[$0]) < abs(out.left[$1]) }!
        print("graphic equalizer, FIR: reports \(unit.latencyFrames) frames, the impulse's peak at \(peak - 1_000) frames")
        #expect(unit.latencyFrames > 0)
        #expect(peak - 1_000 == unit.latencyFrames)
    }

    @Test("Dragonfly Room Reverb, whose event input must be connected, is given an empty sequence and reverberates")
    func requiredEventInput() throws {
        let plugin = try LV2World.shared().plugin("urn:dragonfly:room")
        #expect(plugin.ports.contains { $0.kind == .atom && $0.isInput && !$0.isOptional })
        let unit = try LV2EffectUnit(plugin, sampleRate: 48_000, maxFrames: 512)
        var left = [Float](repeating: 0, count: 96_000)
        for i in 0..<4_800 { left[i] = Float(sin(Double(i) * 0.05)) * 0.5 }
        let out = Self.process(unit, left: left, right: left)
        let tail = out.left[24_000...].reduce(0) { max($0, abs($1)) }
        #expect(out.left.allSatisfy(\.isFinite) && out.right.allSatisfy(\.isFinite))
        #expect(tail > 1e-4, "the room rings on after the input stops (peak \(tail) half a second later)")
    }
}
