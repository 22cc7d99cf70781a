@testable import Synthesis
import TestSupport
import RenderHarness
import Testing
@testable import Engine
import MIDI
@testable import Sequencing

@Suite("Engine timing: onsets, pitch, determinism")
struct TimingTests {
    /// Notes every beat for 48 beats; the tempo changes every 3 beats among odd values, so exact
    /// frames fall everywhere in the 64-frame blocks.
    static func tempoChangingSong(program: UInt8) -> MusicSequence {
        let tempos = (0..<16).map { i in (i * 3 * 480, [500_000, 431_234, 612_345, 377_777, 555_555, 468_001][i % 6]) }
        let notes = (0..<48).map { (tick: $0 * 480, length: 120, key: UInt8(57 + $0 % 24)) }
        return RenderHarness.sequence(program: program, notes: notes, tempos: tempos)
    }

    @Test("every onset lands within ±32 frames of its exact frame; mean error within ±4", arguments: [64, 256, 777, 1000, 4096])
    func onsets(slice: Int) throws {
        let sequence = Self.tempoChangingSong(program: 2)   // click: starts on its first frame
        let harness = try RenderHarness(sequence, maxFrames: 4096)
        let audio = harness.renderSong(slice: slice)
        let map = sequence.tempoMap
        let expected = sequence.tracks[0].events.filter(\.message.isSoundingNoteOn).map {
            Int(map.sampleFrame(atTick: $0.tick, sampleRate: RenderHarness.rate))
        }
        // A voice's first frame is its envelope's zero: the first note, due at frame 0, shows
        // where the detector sees a voice that starts exactly on a frame.
        let detected = noteOnsets(audio)
        try #require(detected.count == expected.count, "found \(detected.count) onsets, expected \(expected.count)")
        #expect(expected[0] == 0 && detected[0] == 1)
        let measured = detected.map { $0 - detected[0] }
        let errors = zip(measured, expected).map { $0 - $1 }
        #expect(errors.allSatisfy { abs($0) <= 32 }, "errors: \(errors)")
        let mean = Double(errors.reduce(0, +)) / Double(errors.count)
        #expect(abs(mean) <= 4, "mean error \(mean)")
        // Every onset is on the 64-frame grid: the nearest block start, as documented.
        #expect(zip(measured, expected).allSatisfy { Int64($0) == FluidSynthNode.nearestBlockStart(Int64($1)) })
    }

    @Test("each note's pitch is right (sine, equal temperament from A440)")
    func pitch() throws {
        let notes = (0..<12).map { (tick: $0 * 960, length: 720, key: UInt8(48 + $0 * 3)) }
        let sequence = RenderHarness.sequence(program: 0, notes: notes)
        let audio = try RenderHarness(sequence).renderSong()
        let map = sequence.tempoMap
        for n in notes {
            let start = Int(map.sampleFrame(atTick: n.tick, sampleRate: RenderHarness.rate)) + 2400
            let end = Int(map.sampleFrame(atTick: n.tick + n.length, sampleRate: RenderHarness.rate)) - 100
            let expected = 440 * pow(2, (Double(n.key) - 69) / 12)
            let measured = RenderHarness.frequency(audio[start..<end])
            #expect(abs(measured - expected) / expected < 1e-4, "key \(n.key): \(measured) Hz, expected \(expected)")
        }
    }

    @Test("the same render twice is bit-identical, whatever the slice sizes")
    func deterministic() throws {
        let sequence = Self.tempoChangingSong(program: 0)
        let a = try RenderHarness(sequence, reverb: true, maxFrames: 4096).renderSong(slice: 512)
        let b = try RenderHarness(sequence, reverb: true, maxFrames: 4096).renderSong(slice: 512)
        #expect(a == b)
        let c = try RenderHarness(sequence, reverb: true, maxFrames: 4096).render(frames: a.count, slice: 333)
        #expect(c == a)
    }
}

#if canImport(Glibc)
import Glibc
#endif
