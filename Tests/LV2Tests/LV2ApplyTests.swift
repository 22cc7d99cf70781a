import AllocationCounter
import AudioFile
import DSP
import Engine
import Foundation
import LV2
import Synthesis
import Testing

/// LV2 plugins run by Pianola against the same plugins run by lilv's own `lv2apply`, an
/// independent host (one frame at a time), on the same input with the same control values.
@Suite("LV2 plugins: Pianola's host against lv2apply")
struct LV2ApplyTests {
    /// Two seconds of a chord and noise, `channels` wide, deterministic.
    static func input(channels: Int) -> [[Float]] {
        var seed: UInt64 = 7
        return (0..<channels).map { c in
            (0..<96_000).map { i in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Float(Int64(bitPattern: seed) >> 40) / Float(1 << 23)
                return Float(0.3 * sin(2 * Double.pi * Double(220 + 110 * c) * Double(i) / 48_000)) + 0.1 * noise
                    + (i / 12_000 % 2 == 0 ? 0.4 : 0) * Float(sin(2 * Double.pi * 3_000 * Double(i) / 48_000))
            }
        }
    }

    /// Writes `channels` as a 32-bit float WAV at 48 kHz.
    static func write(_ channels: [[Float]], to path: String) throws {
        let writer = try AudioFileWriter(path: path, container: .wav, encoding: .float32, sampleRate: 48_000, overwrite: true)
        let right = channels.count > 1 ? channels[1] : channels[0]
        // A mono file for a mono plugin: lv2apply maps a file's channels to the plugin's inputs.
        if channels.count == 1 {
            try write(mono: channels[0], to: path)
            return
        }
        try channels[0].withUnsafeBufferPointer { l in
            try right.withUnsafeBufferPointer { r in try writer.write(left: l.baseAddress!, right: r.baseAddress!, frames: l.count) }
        }
        try writer.close()
    }

    /// A mono 32-bit float WAV, written by hand (AudioFileWriter writes stereo).
    static func write(mono samples: [Float], to path: String) throws {
        var data = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + 4 * samples.count)); data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(3); u16(1); u32(48_000); u32(192_000); u16(4); u16(32)
        data.append(contentsOf: Array("data".utf8)); u32(UInt32(4 * samples.count))
        for s in samples { u32(s.bitPattern) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The first channel of the file at `path`.
    static func firstChannel(_ path: String) throws -> [Float] {
        let reader = try AudioFileReader(path: path)
        var interleaved = [Float](repeating: 0, count: 2 * Int(reader.frames))
        let count = try interleaved.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: Int(reader.frames)) }
        return stride(from: 0, to: 2 * count, by: 2).map { interleaved[$0] }
    }

    @Test("the world describes every plugin lilv's own lv2ls lists, with the features each requires (read before they are freed)")
    func everyInstalledPlugin() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/lv2ls")
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let listed = Set(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init))
        process.waitUntilExit()
        let world = try LV2World.shared()
        #expect(listed.count >= 3)
        #expect(Set(world.plugins.map(\.uri)) == listed)
        // mda's plugins require urid:map, no other feature; their hard-real-time promise is an optional feature.
        let piano = try world.plugin("http://drobilla.net/plugins/mda/Piano")
        #expect(piano.requiredFeatures == ["http://lv2plug.in/ns/ext/urid#map"] && piano.isHardRealTime)
    }

    @Test("≥ 90 dB SNR against lv2apply, three plugins from three Debian packages", arguments: [
        ("http://drobilla.net/plugins/mda/Overdrive", ["drive": 0.7, "muffle": 0.3], "mda-lv2"),
        ("http://plugin.org.uk/swh-plugins/dj_eq", ["lo": -12, "mid": 6, "hi": -6], "swh-lv2"),
        ("http://gareus.org/oss/lv2/darc#stereo", ["threshold": -20, "Ratio": 0.6], "x42-plugins"),
    ])
    func againstLV2Apply(uri: String, controls: [String: Double], package: String) throws {
        let plugin = try LV2World.shared().plugin(uri)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-lv2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let mono = plugin.audioInputs.count == 1
        let signal = Self.input(channels: mono ? 1 : 2)
        let inPath = folder.appendingPathComponent("in.wav").path, outPath = folder.appendingPathComponent("out.wav").path
        try Self.write(signal, to: inPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/lv2apply")
        process.arguments = ["-i", inPath, "-o", outPath] + controls.sorted { $0.key < $1.key }.flatMap { ["-c", $0.key, String($0.value)] } + [uri]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "lv2apply \(uri)")
        let theirs = try Self.firstChannel(outPath)

        let unit = try LV2EffectUnit(plugin, sampleRate: 48_000, maxFrames: 512)
        for (symbol, value) in controls {
            unit.setParameter(unit.parameters.firstIndex { $0.name == symbol }!, to: value, rampFrames: 0)
        }
        let buffer = AudioBuffer(capacity: 96_000)
        buffer.left.update(from: signal[0], count: 96_000)
        buffer.right.update(from: signal[mono ? 0 : 1], count: 96_000)
        for start in stride(from: 0, to: 96_000, by: 512) {
            let count = min(512, 96_000 - start)
            unit.process(buffer.slice(frames: start + count).dropFirst(start, count: count))
        }
        var power = 0.0, error = 0.0
        for i in 0..<min(theirs.count, 96_000) {
            power += Double(theirs[i] * theirs[i])
            error += Double((theirs[i] - buffer.left[i]) * (theirs[i] - buffer.left[i]))
        }
        let snr = 10 * log10(power / max(error, 1e-30))
        print("\(plugin.name) (\(package)): \(String(format: "%.1f", snr)) dB SNR against lv2apply")
        #expect(theirs.count == 96_000 && power > 1)
        #expect(snr >= 90)
    }
}

@Suite("LV2 plugins in an insert chain")
struct LV2ChainTests {
    @Test("Four LV2 plugins (one with a worker thread) and four built-ins, gliding, changed and bypassed every cycle, allocate nothing and take no lock on the render thread")
    func noAllocation() throws {
        let mixer = MixerNode()
        let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000), maxFrames: 512)
        final class Noise: AudioNode, @unchecked Sendable {
            var seed: UInt64 = 3
            func prepare(format: AudioFormat, maxFrames: Int) {}
            func render(_ output: StereoSlice, at time: SampleTime) {
                for i in 0..<output.frames {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    output.left[i] = Float(Int64(bitPattern: seed) >> 40) / Float(1 << 23) * 0.3
                    output.right[i] = output.left[i]
                }
            }
        }
        mixer.connect(Noise())
        for uri in ["http://drobilla.net/plugins/mda/Overdrive", "http://plugin.org.uk/swh-plugins/dj_eq", "http://gareus.org/oss/lv2/darc#stereo"] {
            mixer.inserts.append(try LV2EffectUnit(try LV2World.shared().plugin(uri), sampleRate: 48_000, maxFrames: 512))
        }
        // One with a worker thread of its own, live, and its state from a preset.
        mixer.inserts.append(try LV2WorkerTests.convolver(offline: false, maxFrames: 512))
        for name in ["lowpass", "peak", "delay", "compressor"] { mixer.inserts.append(BuiltInEffect.named(name)!.makeUnit()) }
        let ids = mixer.inserts.ids
        let buffer = AudioBuffer(capacity: 512)
        var allocations = 0, locks = 0
        for cycle in 0..<1_000 {
            let time = graph.sampleTime + 100
            mixer.inserts.set(parameter: 0, ofEffect: ids[cycle % 8], to: 0.2 + Double(cycle % 7) / 10, at: time, rampFrames: 300)
            if cycle % 10 == 0 { mixer.inserts.setBypassed(cycle % 20 == 0, effect: ids[(cycle / 10) % 8], at: time) }
            if cycle >= 100 { pianola_allocations_start() }
            graph.render(into: buffer.slice(frames: 512))
            if cycle >= 100 {
                allocations += pianola_allocations_stop()
                locks += pianola_locks_taken()
            }
        }
        #expect(allocations == 0, "\(allocations) allocations in 900 render cycles")
        #expect(locks == 0, "\(locks) locks taken in 900 render cycles")
        #expect((0..<512).allSatisfy { buffer.left[$0].isFinite })
    }
}

@Suite("LV2 instruments in the graph")
struct LV2InstrumentTests {
    @Test("MDA Piano played a note, a controller and a bend every cycle allocates nothing and takes no lock on the render thread, and sounds")
    func noAllocation() throws {
        let instrument = try LV2Instrument(LV2World.shared().plugin("http://drobilla.net/plugins/mda/Piano"), sampleRate: 48_000, maxFrames: 512)
        let node = LV2InstrumentNode(instrument: instrument, maxFrames: 512)
        node.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: 512)
        let buffer = AudioBuffer(capacity: 512)
        var allocations = 0, locks = 0, loudest: Float = 0
        for cycle in 0..<1_000 {
            let time = SampleTime(cycle * 512)
            let key = UInt8(48 + cycle % 24)
            node.schedule(ScheduledMIDI(time: time + 17, status: 0x90, data1: key, data2: 90))
            node.schedule(ScheduledMIDI(time: time + 300, status: 0xB0, data1: 64, data2: UInt8(cycle % 2 * 127)))
            node.schedule(ScheduledMIDI(time: time + 400, status: 0x80, data1: key, data2: 0))
            if cycle >= 100 { pianola_allocations_start() }
            node.render(buffer.slice(frames: 512), at: time)
            if cycle >= 100 {
                allocations += pianola_allocations_stop()
                locks += pianola_locks_taken()
            }
            for i in 0..<512 { loudest = max(loudest, abs(buffer.left[i])) }
        }
        #expect(allocations == 0, "\(allocations) allocations in 900 render cycles")
        #expect(locks == 0, "\(locks) locks taken in 900 render cycles")
        #expect(loudest > 0.05 && loudest.isFinite, "the piano sounds (peak \(loudest))")
        #expect(instrument.droppedEvents == 0)
    }
}

@Suite("LV2 presets")
struct LV2PresetTests {
    @Test("A preset's values are the ones its Turtle file gives, read by lilv; a preset that does not exist is one line naming those that do")
    func presetValues() throws {
        let plugin = try LV2World.shared().plugin("http://drobilla.net/plugins/mda/Detune")
        let values = try LV2World.shared().presetValues(plugin, preset: "out of tune")
        // The preset as mda-lv2 writes it: lv2:symbol "detune" ; pset:value 0.8 …
        let turtle = try String(contentsOfFile: "/usr/lib/lv2/mda.lv2/Detune-presets.ttl", encoding: .utf8)
        let block = turtle.components(separatedBy: "<http://drobilla.net/plugins/mda/presets#Detune-out-of-tune>")[1].components(separatedBy: " .\n")[0]
        var written: [String: Double] = [:]
        let pairs = block.components(separatedBy: "lv2:symbol \"").dropFirst()
        for pair in pairs {
            let symbol = String(pair.prefix { $0 != "\"" })
            let value = pair.components(separatedBy: "pset:value ")[1].prefix { "0123456789.-e".contains($0) }
            written[symbol] = Double(value)
        }
        #expect(!written.isEmpty && values.mapValues(Float.init) == written.mapValues(Float.init), "lilv \(values), the file \(written)")
        #expect(throws: LV2Error.self) { try LV2World.shared().presetValues(plugin, preset: "Cathedral") }
        do { _ = try LV2World.shared().presetValues(plugin, preset: "Cathedral") } catch {
            #expect(error.description == "MDA Detune has no preset 'Cathedral' (it has 'Out Of Tune', 'Stereo Detune', 'Symphonic')")
        }
    }
}

@Suite("LV2 worker and state")
struct LV2WorkerTests {
    static let convolverURI = "http://gareus.org/oss/lv2/zeroconvolv#Stereo"
    static let noOp = "http://gareus.org/oss/lv2/zeroconvolv/pset#noopStereo"

    /// x42's preset convolver with its No-OP preset: the preset's state names an impulse
    /// response file (a spike), which the plugin loads through the worker.
    static func convolver(offline: Bool, maxFrames: Int, preset: String? = noOp) throws -> LV2EffectUnit {
        try LV2EffectUnit(try LV2World.shared().plugin(convolverURI), sampleRate: 48_000, maxFrames: maxFrames, preset: preset, offline: offline)
    }

    @Test("x42's preset convolver, which needs the worker, given its No-OP preset's state: the impulse response it loads passes the input 64 frames later from the first frame, within -130 dB, offline and live; with no state it is silent",
          arguments: [true, false])
    func convolverThroughTheWorker(offline: Bool) throws {
        let unit = try Self.convolver(offline: offline, maxFrames: 512)
        let silent = try Self.convolver(offline: offline, maxFrames: 512, preset: nil)
        let signal = LV2ApplyTests.input(channels: 2)
        let frames = 48_000
        let buffer = AudioBuffer(capacity: frames), quiet = AudioBuffer(capacity: frames)
        for target in [buffer, quiet] {
            target.left.update(from: signal[0], count: frames)
            target.right.update(from: signal[1], count: frames)
        }
        for start in stride(from: 0, to: frames, by: 512) {
            let count = min(512, frames - start)
            unit.process(buffer.slice(frames: start + count).dropFirst(start, count: count))
            silent.process(quiet.slice(frames: start + count).dropFirst(start, count: count))
        }
        var power = 0.0, error = 0.0
        for i in 64..<frames {
            for (expected, got) in [(signal[0][i - 64], buffer.left[i]), (signal[1][i - 64], buffer.right[i])] {
                power += Double(expected * expected)
                error += Double((expected - got) * (expected - got))
            }
        }
        let snr = 10 * log10(power / max(error, 1e-30))
        print("x42 preset convolver, No-OP, \(offline ? "offline" : "live"): \(String(format: "%.1f", snr)) dB SNR against the input 64 frames later; reports \(unit.latencyFrames) frames of latency")
        #expect(snr >= 130)
        #expect((0..<64).allSatisfy { buffer.left[$0] == 0 }, "the first 64 frames are the spike's delay")
        #expect((0..<frames).allSatisfy { quiet.left[$0] == 0 && quiet.right[$0] == 0 }, "no impulse response, no sound")
    }

    @Test("a preset whose state cannot be read, given by URI, is one line")
    func unreadableState() throws {
        #expect(throws: LV2Error.self) { try Self.convolver(offline: true, maxFrames: 512, preset: "urn:pianola:no-such-state") }
    }
}
