import Foundation
import RenderHarness
import Testing
@testable import Engine
import FluidSynth
import MIDI
import SF2
@testable import Sequencing

@Suite("Changing the SoundFont while playing")
struct SoundFontSwapTests {
    /// A font whose program 0 is a square at A440 (the test font's program 0 is a sine).
    static func squareFont() throws -> String {
        var font = SF2File(name: "square")
        let cycle = (0..<100).map { Int16($0 < 50 ? 20_000 : -20_000) }
        let sample = font.add(SF2Sample(name: "square", data: (0..<8).flatMap { _ in cycle }, sampleRate: 44_000, rootKey: 69, loop: (100, 700)))
        let instrument = font.add(SF2Instrument(name: "square", zones: [.init(sample: sample, generators: [
            .attack(-12000), .release(-12000), .sampleModes(1), .reverbSend(0), .chorusSend(0),
        ], modulators: SF2Modulator.neutralizingDefaults)]))
        font.presets = [SF2Preset(name: "Square", bank: 0, program: 0, zones: [.init(instrument: instrument)])]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-square-\(UUID().uuidString).sf2").path
        try Data(font.serialized()).write(to: URL(fileURLWithPath: path))
        return path
    }


    @Test("a swap whose font fails to load is never made: the old font plays on, sample for sample")
    func failedSwap() throws {
        var track = MusicTrack(events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))])
        for beat in 0..<8 {
            track.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: 69, velocity: 100)))
            track.insert(MIDIEvent(tick: beat * 480 + 400, .noteOff(channel: 0, note: 69, velocity: 0)))
        }
        let sequence = MusicSequence(division: .ticksPerQuarter(480), tracks: [track])
        let harness = try RenderHarness(sequence), untouched = try RenderHarness(sequence)
        #expect(harness.render(frames: 24_000) == untouched.render(frames: 24_000))
        // The new font is cut in half: loading it throws, so there is nothing to swap in.
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Self.squareFont()))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-cut-\(UUID().uuidString).sf2").path
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let original = harness.sampler.synthesizer
        #expect(throws: SynthesizerError.self) { _ = try FluidSynthesizer().loadSoundFont(path: path) }
        let after = harness.render(frames: 48_000)
        #expect(harness.sampler.synthesizer === original)
        #expect(after == untouched.render(frames: 48_000))
        #expect(abs(RenderHarness.formFactor(after[2_400..<18_000]) - 0.9003) < 0.01, "still the sine")
    }

    @Test("new notes use the new font with the channel's state; the old synth releases and is handed back")
    func swap() throws {
        // Pitch bend up a whole tone at once, then A4 every half second.
        var track = MusicTrack(events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0)),
                                   MIDIEvent(tick: 0, .pitchBend(channel: 0, value: 16_383))])
        for beat in 0..<8 {
            track.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: 69, velocity: 100)))
            track.insert(MIDIEvent(tick: beat * 480 + 400, .noteOff(channel: 0, note: 69, velocity: 0)))
        }
        let harness = try RenderHarness(MusicSequence(division: .ticksPerQuarter(480), tracks: [track]))
        let before = harness.render(frames: 48_000)

        let path = try Self.squareFont()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = FluidSynthesizer.Configuration()
        configuration.reverb = false
        configuration.chorus = false
        let replacement = try FluidSynthesizer(configuration: configuration)
        _ = try replacement.loadSoundFont(path: path)
        weak let old = harness.sampler.synthesizer
        harness.sampler.replaceSynthesizer(with: replacement)
        let after = harness.render(frames: 48_000)

        // Before: sines bent a whole tone up (B4, 493.88 Hz, within 5 cents: libfluidsynth's
        // full bend is about 2 cents over); after: squares, bent the same.
        let bent = RenderHarness.frequency(before[2_400..<18_000])
        #expect(abs(RenderHarness.formFactor(before[2_400..<18_000]) - 0.9003) < 0.01)
        #expect(abs(1200 * log2(bent / 493.88)) < 5)
        #expect(RenderHarness.formFactor(after[2_400..<18_000]) > 0.97)
        #expect(abs(RenderHarness.frequency(after[2_400..<18_000]) - bent) < 0.05)
        #expect(harness.sampler.synthesizer === replacement)
        // The old synth rang out, came back through the queue, and is freed here.
        #expect(old?.activeVoiceCount == 0)
        harness.sampler.collectRetired()
        #expect(old == nil)
    }
}
