import Foundation
@testable import Pianola
import TestSupport
import Testing

@Suite("Labels: every note on the frames the synthesizer pressed and released it")
struct NoteLabelTests {
    /// 16 beats at 480 ticks a beat, the tempo changing every two beats (to tempos whose frames
    /// per tick are not whole), one sine note in each beat, starting off the grid and ending
    /// well before the next, on programs 0 and then 1 from beat 9.
    static func song() -> MusicSequence {
        var tempo = MusicTrack()
        let tempos: [UInt32] = [500_000, 433_333, 611_111, 487_123, 555_557, 377_777, 701_234, 520_001]
        for (i, microseconds) in tempos.enumerated() { tempo.insert(MIDIEvent(tick: i * 960, .meta(.tempo(microsecondsPerQuarter: microseconds)))) }
        var notes = MusicTrack(events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0)), MIDIEvent(tick: 8 * 480 - 10, .programChange(channel: 0, program: 1))])
        for beat in 0..<16 {
            let start = beat * 480 + 37 + beat * 11
            notes.insert(MIDIEvent(tick: start, .noteOn(channel: 0, note: 69, velocity: UInt8(60 + beat))))
            notes.insert(MIDIEvent(tick: start + 200, .noteOff(channel: 0, note: 69, velocity: 0)))
        }
        notes.length = 16 * 480
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [notes])
    }

    @Test("on libfluidsynth each label starts on the rendered onset, on the block edge within ±32 frames of the tempo map's exact frame; velocity and program are the note's")
    func labelsMatchTheAudio() throws {
        let sequence = Self.song()
        var settings = SongGraph.Settings()
        settings.engine = .fluidsynth
        settings.reverb = false
        settings.chorus = false
        let renderer = try SongRenderer(sequence: sequence, soundFontPath: SoundtrackFixture.testFont, settings: settings)
        renderer.recordLabels()
        var left: [Float] = []
        renderer.render(sliceFrames: 1000) { slice, _ in left += UnsafeBufferPointer(start: slice.left, count: slice.frames) }
        let labels = renderer.labels
        #expect(labels.count == 16)
        let onsets = noteOnsets(left)
        #expect(onsets.count == 16)
        let map = sequence.tempoMap
        let noteOns = sequence.tracks[0].events.filter(\.message.isSoundingNoteOn)
        for (i, label) in labels.enumerated() where i < min(onsets.count, noteOns.count) {
            let exact = map.sampleFrame(atTick: noteOns[i].tick, sampleRate: 48_000)
            #expect(abs(label.startFrame - exact) <= 32, "note \(i): label \(label.startFrame), tempo map \(exact)")
            #expect(label.startFrame % 64 == 0, "note \(i) starts on a block edge")
            #expect(abs(onsets[i] - Int(label.startFrame)) <= 1, "note \(i): label \(label.startFrame), audio onset \(onsets[i])")
            #expect(label.endFrame > label.startFrame && label.channel == 0 && label.key == 69 && label.velocity == 60 + i)
            #expect(label.program == (i < 8 ? 0 : 1))
        }
    }

    @Test("on Pianola's own synthesizer every label and onset is on the tempo map's exact frame (0 frames off), whatever the slice sizes, and the render is the same for every slicing", arguments: [64, 777, 4096])
    func exactFramesOnPianolasEngine(sliceFrames: Int) throws {
        let sequence = Self.song()
        var settings = SongGraph.Settings()
        settings.engine = .pianola
        let renderer = try SongRenderer(sequence: sequence, soundFontPath: SoundtrackFixture.testFont, settings: settings)
        #expect(renderer.songGraph.engine == .pianola && renderer.songGraph.engineNote == nil)
        renderer.recordLabels()
        var left: [Float] = []
        renderer.render(sliceFrames: sliceFrames) { slice, _ in left += UnsafeBufferPointer(start: slice.left, count: slice.frames) }
        let labels = renderer.labels
        let onsets = noteOnsets(left)
        #expect(labels.count == 16 && onsets.count == 16)
        let map = sequence.tempoMap
        let noteOns = sequence.tracks[0].events.filter(\.message.isSoundingNoteOn)
        let noteOffs = sequence.tracks[0].events.filter { if case .noteOff = $0.message { true } else { false } }
        for (i, label) in labels.enumerated() where i < min(onsets.count, noteOns.count) {
            let exact = map.sampleFrame(atTick: noteOns[i].tick, sampleRate: 48_000)
            #expect(label.startFrame == exact, "note \(i): label \(label.startFrame), tempo map \(exact)")
            #expect(label.endFrame == map.sampleFrame(atTick: noteOffs[i].tick, sampleRate: 48_000), "note \(i)'s release")
            // A voice fades in from 0 over its first control block, so its first frame is silent.
            #expect((0...1).contains(onsets[i] - Int(exact)), "note \(i): audio onset \(onsets[i]), tempo map \(exact)")
            #expect(label.velocity == 60 + i && label.program == (i < 8 ? 0 : 1))
        }
        let whole = try SongRenderer(sequence: sequence, soundFontPath: SoundtrackFixture.testFont, settings: settings)
        var reference: [Float] = []
        whole.render(sliceFrames: 1000) { slice, _ in reference += UnsafeBufferPointer(start: slice.left, count: slice.frames) }
        // (The render stops in the slice where the voices fall silent, so only the lengths may differ.)
        let differing = zip(reference, left).filter { $0 != $1 }.count
        #expect(differing == 0, "slices of \(sliceFrames) and of 1000 frames: \(differing) of \(min(reference.count, left.count)) samples differ")
    }
}
