import DSP
import AllocationCounter
import AudioFile
import Engine
import Foundation
import MIDI
import Sequencing
import Streaming
import Testing

/// Writes audio files for the tests and plays them through a graph.
final class Workbench {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-streaming-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A 32-bit float stereo WAV at `rate` holding `samples` on both sides.
    func wav(_ name: String, rate: Int, _ samples: [Float]) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let writer = try AudioFileWriter(path: path, container: .wav, encoding: .float32, sampleRate: rate)
        try samples.withUnsafeBufferPointer { try writer.write(left: $0.baseAddress!, right: $0.baseAddress!, frames: samples.count) }
        try writer.close()
        return path
    }

    /// `node` alone in a 48 kHz graph, pulled for `frames` in slices of `slice`: the left side.
    static func render(_ node: FilePlayerNode, frames: Int, slice: Int = 777) -> [Float] {
        let mixer = MixerNode()
        let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000), maxFrames: 4096)
        mixer.connect(node)
        let buffer = AudioBuffer(capacity: 4096)
        var out: [Float] = []
        out.reserveCapacity(frames)
        while out.count < frames {
            let part = buffer.slice(frames: min(slice, frames - out.count))
            graph.render(into: part)
            out += UnsafeBufferPointer(start: part.left, count: part.frames)
            if node.ringIsLow { usleep(2_000) }   // offline, faster than the reader: let it catch up
        }
        return out
    }

    /// `count` frames of a sine at `frequency` Hz sampled at `rate`.
    static func sine(_ frequency: Double, rate: Int, count: Int, amplitude: Double = 0.5) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }
}

extension FilePlayerNode {
    /// Whether less than a second waits in the ring (the tests render faster than real time).
    var ringIsLow: Bool { bufferedFrames < 48_000 && !isFinished }
}

/// Magnitudes of the real FFT of `x` (count a power of two), bins 0 ... n/2.
func spectrum(_ x: [Float]) -> [Double] {
    let n = x.count
    var re = x.map(Double.init), im = [Double](repeating: 0, count: n)
    var j = 0
    for i in 1..<n {
        var bit = n >> 1
        while j & bit != 0 { j ^= bit; bit >>= 1 }
        j |= bit
        if i < j { re.swapAt(i, j); im.swapAt(i, j) }
    }
    var length = 2
    while length <= n {
        let angle = -2 * Double.pi / Double(length)
        for start in stride(from: 0, to: n, by: length) {
            for k in 0..<length / 2 {
                let (wr, wi) = (cos(angle * Double(k)), sin(angle * Double(k)))
                let (a, b) = (start + k, start + k + length / 2)
                let tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr
                re[b] = re[a] - tr; im[b] = im[a] - ti
                re[a] += tr; im[a] += ti
            }
        }
        length <<= 1
    }
    return (0...n / 2).map { (re[$0] * re[$0] + im[$0] * im[$0]).squareRoot() }
}

@Suite("Audio files streamed into the graph")
struct FilePlayerTests {
    @Test("a click scheduled at frame N sounds at frame N exactly, at any slice size", arguments: [64, 777, 4096])
    func exactStart(slice: Int) throws {
        let bench = try Workbench()
        var click = [Float](repeating: 0, count: 4_800)
        click[0] = 0.5
        let path = try bench.wav("click.wav", rate: 48_000, click)
        var playing = FilePlayerNode.Playing()
        playing.startTime = 12_345
        let out = Workbench.render(try FilePlayerNode(path: path, sampleRate: 48_000, playing: playing), frames: 20_000, slice: slice)
        #expect(out.firstIndex { $0 != 0 } == 12_345)
        #expect(out[12_345] == 0.5)
    }

    @Test("started at a bar:beat of a song whose tempo changes, the click lands on that beat's frame")
    func startAtBarBeat() throws {
        // 4/4; 120 bpm, 90 bpm from beat 3, 140 bpm from bar 2 beat 3.
        var tempo = MusicTrack()
        tempo.insert(MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))))
        tempo.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))))
        tempo.insert(MIDIEvent(tick: 960, .meta(.tempo(microsecondsPerQuarter: 666_667))))
        tempo.insert(MIDIEvent(tick: 2_880, .meta(.tempo(microsecondsPerQuarter: 428_571))))
        let sequence = MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [MusicTrack()])
        let tick = sequence.meterMap!.tick(at: BarBeatTick(bar: 3, beat: 2))
        let frame = sequence.tempoMap.sampleFrame(atTick: tick, sampleRate: 48_000)
        let bench = try Workbench()
        var click = [Float](repeating: 0, count: 4_800)
        click[0] = 0.5
        var playing = FilePlayerNode.Playing()
        playing.startTime = frame
        let out = Workbench.render(try FilePlayerNode(path: try bench.wav("click.wav", rate: 48_000, click), sampleRate: 48_000, playing: playing),
                                   frames: Int(frame) + 10_000)
        #expect(tick == 2 * 4 * 480 + 480)
        #expect(out.firstIndex { $0 != 0 } == Int(frame))
    }

    @Test("a 44.1 kHz sine played at 48 kHz: the right frequency, and images and aliases below −90 dB")
    func resamplingQuality() throws {
        // 1365 cycles in 65,536 output frames: the tone falls exactly on one FFT bin.
        let frequency = 1_365.0 * 48_000 / 65_536
        let bench = try Workbench()
        let path = try bench.wav("sine.wav", rate: 44_100, Workbench.sine(frequency, rate: 44_100, count: 44_100 * 3))
        let out = Workbench.render(try FilePlayerNode(path: path, sampleRate: 48_000), frames: 48_000 + 65_536)
        let magnitudes = spectrum(Array(out[48_000..<(48_000 + 65_536)]))
        let peak = magnitudes.indices.max { magnitudes[$0] < magnitudes[$1] }!
        #expect(peak == 1_365, "the tone is at \(Double(peak) * 48_000 / 65_536) Hz, not \(frequency) Hz")
        let worst = magnitudes.indices.filter { abs($0 - peak) > 2 }.map { magnitudes[$0] }.max()!
        let decibels = 20 * log10(worst / magnitudes[peak])
        print(String(format: "resampling 44.1 → 48 kHz: strongest image or alias %.1f dB below the tone", -decibels))
        #expect(decibels < -90)
    }

    @Test("a looped region is seamless: no step at the seams larger than the sine's own, no silence", arguments: [48_000, 44_100])
    func seamlessLoop(rate: Int) throws {
        // 100 cycles of a 1 kHz sine fill the region exactly; after it, a level that must never play.
        let count = rate / 10
        let bench = try Workbench()
        let path = try bench.wav("loop.wav", rate: rate, Workbench.sine(1_000, rate: rate, count: count) + [Float](repeating: 0.9, count: 500))
        var playing = FilePlayerNode.Playing()
        playing.region = 0..<Int64(count)
        playing.plays = 4
        let node = try FilePlayerNode(path: path, sampleRate: 48_000, playing: playing)
        let out = Workbench.render(node, frames: 19_000)
        let steps = zip(out, out.dropFirst()).map { abs($0 - $1) }
        let sineStep = Float(0.5 * 2 * Double.pi * 1_000 / 48_000)
        #expect(steps[100..<18_000].max()! <= sineStep * 1.001, "largest step \(steps[100..<18_000].max()!), the sine's \(sineStep)")
        let silentRun = out[100..<18_000].split { $0 != 0 }.map(\.count).max() ?? 0
        #expect(silentRun < 3)
        #expect(out.allSatisfy { abs($0) < 0.6 }, "the 0.9 after the region never plays")
    }

    @Test("plays to its end and stops; a file that goes bad while playing ends the player, not the program")
    func badMidStream() throws {
        let bench = try Workbench()
        let path = try bench.wav("long.wav", rate: 48_000, [Float](repeating: 0.25, count: 48_000 * 10))
        let node = try FilePlayerNode(path: path, sampleRate: 48_000, bufferSeconds: 0.5, preroll: 0.1)
        // Cut the file to about one second (its header and 48,000 frames of 8 bytes) under the reader's feet.
        #expect(truncate(path, 100 + 48_000 * 8) == 0)
        let out = Workbench.render(node, frames: 48_000 * 3)
        #expect(node.isFinished)
        #expect(node.failure?.hasPrefix("\(path): ends at frame") == true, "\(node.failure ?? "no failure")")
        let sounding = out.firstIndex { $0 != 0.25 } ?? out.count
        #expect(abs(sounding - 48_000) < 16, "played \(sounding) frames")
        #expect(out[(48_000 * 2)...].allSatisfy { $0 == 0 })
    }

    @Test("missing, not audio, a directory: one line each")
    func badFiles() throws {
        let bench = try Workbench()
        let text = bench.folder.appendingPathComponent("notes.wav").path
        try "not audio".write(toFile: text, atomically: true, encoding: .utf8)
        let cases: [(String, String)] = [
            ("/no/such/file.ogg", "/no/such/file.ogg: No such file or directory"),
            (text, "\(text): not an audio file libsndfile can read"),
            (bench.folder.path, "\(bench.folder.path): is a directory, not an audio file"),
        ]
        for (path, message) in cases {
            do {
                _ = try FilePlayerNode(path: path, sampleRate: 48_000)
                Issue.record("\(path) opened")
            } catch {
                #expect(error.description.hasPrefix(message), "\(error.description)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    @Test("the render thread copies from the ring only: 1,000 cycles allocate nothing")
    func noAllocation() throws {
        let bench = try Workbench()
        let path = try bench.wav("sine.wav", rate: 44_100, Workbench.sine(440, rate: 44_100, count: 44_100 * 2))
        var playing = FilePlayerNode.Playing()
        playing.plays = 0
        let node = try FilePlayerNode(path: path, sampleRate: 48_000, playing: playing)
        let mixer = MixerNode()
        let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000), maxFrames: 256)
        mixer.connect(node)
        let buffer = AudioBuffer(capacity: 256)
        for _ in 0..<10 { graph.render(into: buffer.slice(frames: 256)) }
        var allocations = 0
        for _ in 0..<1_000 {
            while node.bufferedFrames < 256 { usleep(1_000) }
            pianola_allocations_start()
            graph.render(into: buffer.slice(frames: 256))
            allocations += pianola_allocations_stop()
        }
        #expect(allocations == 0)
        #expect(node.underruns == 0)
    }
}

@Suite("Sound effects from memory")
struct SoundEffectsTests {
    /// Renders `node` alone for `frames` in slices of `slice`, calling `between` before each slice
    /// with the time it starts at; the left side.
    static func render(_ node: SoundEffectsNode, frames: Int, slice: Int = 500, between: (SampleTime) -> Void = { _ in }) -> [Float] {
        let graph = AudioGraph(root: node, format: AudioFormat(sampleRate: 48_000), maxFrames: 4096)
        let buffer = AudioBuffer(capacity: 4096)
        var out: [Float] = []
        while out.count < frames {
            between(graph.sampleTime)
            let part = buffer.slice(frames: min(slice, frames - out.count))
            graph.render(into: part)
            out += UnsafeBufferPointer(start: part.left, count: part.frames)
        }
        return out
    }

    @Test("each sound starts on its exact frame, panned and scaled; a 44.1 kHz file is converted on loading")
    func exactStarts() throws {
        let bench = try Workbench()
        var click = [Float](repeating: 0, count: 100)
        click[0] = 0.5
        let sound = try SoundBuffer(path: try bench.wav("click.wav", rate: 48_000, click), sampleRate: 48_000)
        let node = SoundEffectsNode()
        node.play(sound, at: 1_234)
        node.play(sound, at: 2_345, volume: 0.5)
        node.play(sound, at: 3_456, pan: 1)          // hard right: nothing on the left
        let out = Self.render(node, frames: 5_000)
        #expect(out.indices.filter { out[$0] != 0 } == [1_234, 2_345])
        #expect(out[1_234] == 0.5 && out[2_345] == 0.25)
        let converted = try SoundBuffer(path: try bench.wav("long.wav", rate: 44_100, [Float](repeating: 0.1, count: 44_100)), sampleRate: 48_000)
        #expect(abs(converted.frames - 48_000) <= 2)
    }

    @Test("with every voice busy, a new sound steals the oldest")
    func stealsOldest() {
        // Three long constant sounds of different levels on two voices.
        let sounds = [Float(0.1), 0.2, 0.4].map { SoundBuffer(left: [Float](repeating: $0, count: 48_000), right: [Float](repeating: $0, count: 48_000)) }
        let node = SoundEffectsNode(voices: 2)
        node.play(sounds[0], at: 0)
        node.play(sounds[1], at: 100)
        let out = Self.render(node, frames: 1_000) { time in
            if time == 500 { node.play(sounds[2], at: 700) }
        }
        #expect(abs(out[50] - 0.1) < 1e-6)
        #expect(abs(out[699] - 0.3) < 1e-6, "the oldest plays on until the new sound's frame")
        #expect(abs(out[700] - 0.6) < 1e-6, "0.2 + 0.4: the 0.1 sound, the oldest, was stolen at frame 700")
        #expect(node.stolenVoices == 1)
    }

    @Test("mixing many voices allocates nothing on the render thread")
    func noAllocation() {
        let sound = SoundBuffer(left: [Float](repeating: 0.01, count: 2_000), right: [Float](repeating: 0.01, count: 2_000))
        let node = SoundEffectsNode(voices: 2)
        let graph = AudioGraph(root: node, format: AudioFormat(sampleRate: 48_000), maxFrames: 256)
        let buffer = AudioBuffer(capacity: 256)
        for _ in 0..<20 { node.play(sound); graph.render(into: buffer.slice(frames: 256)) }
        var allocations = 0
        for cycle in 0..<1_000 {
            if cycle % 3 == 0 { node.play(sound, at: graph.sampleTime + 100, volume: 0.5, pan: -0.5) }
            pianola_allocations_start()
            graph.render(into: buffer.slice(frames: 256))
            allocations += pianola_allocations_stop()
        }
        #expect(allocations == 0)
        #expect(node.stolenVoices > 0)
    }
}
