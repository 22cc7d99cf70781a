import Engine
import Foundation
@testable import Pianola
import TestSupport
import Testing

@Suite("Interactive music on MIDI: game parameters (RTPC) driving layers, controllers and tempo")
struct ParameterTests {
    @Test("a parameter ramp from 0 to 1 over 2 s drives a layer's gain along its curve, no frame stepping more than the curve's slope along the ramp, and CC74 on the chosen channels (1 and 2, not 3) one value at a time")
    func rampDrivesLayerAndController() async throws {
        let fixture = try SoundtrackFixture()
        var configuration = dryConfiguration()
        configuration.engine = .fluidsynth   // whose controllers the test reads back
        let soundtrack = Soundtrack(configuration: configuration)
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(SectionTests.silentSong(bars: 4), as: "silent.mid"), soundFontPath: SoundtrackFixture.testFont)
        description.stems = ["pad": .path(try fixture.writeWAV([Float](repeating: 0.25, count: 192_000), as: "pad.wav"))]   // a level that reads as the gain
        let song = try await soundtrack.load(description)
        try soundtrack.defineParameter("intensity")
        let curve = Soundtrack.ParameterCurve([(0, 0), (0.5, 0.2), (1, 1)])
        try soundtrack.mapParameter("Intensity", to: .layerVolume("Pad"), curve: curve)
        try soundtrack.mapParameter("intensity", to: .controller(74, channels: [1, 2]), curve: .linear(from: 0, to: 127))
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.slices = [64]
        pull.pull(9_984)
        let synthesizer = try #require(soundtrack.state.withLock { $0.current?.node.sources.first as? FluidSynthNode }?.synthesizer)
        let untouched = synthesizer.controller(channel: 2, 74)
        #expect(synthesizer.controller(channel: 0, 74) == 0 && synthesizer.controller(channel: 1, 74) == 0, "CC74 at the parameter's 0")
        let start = Int(soundtrack.clock.earliestUnrenderedTime)
        try soundtrack.setParameter("intensity", to: 1, seconds: 2)
        var readings: [(frame: Int, values: [Int])] = []
        while pull.left.count < start + 100_000 {
            pull.pull(64)
            readings.append((pull.left.count, (0..<3).map { synthesizer.controller(channel: $0, 74) }))
        }
        // The gain: the stem's level over 0.25, against the curve at the ramp's value.
        let gains = pull.left.map { Double($0) / 0.25 }
        func expected(_ frame: Int) -> Double { curve.y(at: min(1, max(0, Double(frame - start) / 96_000))) }
        let error = (start - 1_000 ..< start + 100_000).map { abs(gains[$0] - expected($0)) }.max() ?? 1
        let steepest = 1.6 / 96_000                         // the curve's slope (0.8 per 0.5), along 1 every 96,000 frames
        let largestStep = (start - 1_000 ..< start + 100_000).map { abs(gains[$0 + 1] - gains[$0]) }.max() ?? 1
        #expect(error < 1e-4, "largest distance from the curve \(error)")
        // The audio is Float: a sample near 0.25 is known to 2⁻²⁵, a gain to 2⁻²³; two of those on top of the slope.
        #expect(largestStep <= steepest + 2 * pow(2, -23), "largest step \(largestStep), the slope \(steepest)")
        #expect(abs(gains[start + 48_000] - 0.2) < 1e-4 && abs(gains[start + 96_000 + 10] - 1) < 1e-4)
        // CC74: on channels 1 and 2 it climbs a value at a time, each reading within one of
        // the ramp's value there; channel 3 keeps its own.
        for (index, reading) in readings.enumerated() {
            let due = 127 * min(1, max(0, Double(reading.frame - start) / 96_000))
            #expect(abs(Double(reading.values[0]) - due) <= 1.5 && reading.values[1] == reading.values[0] && reading.values[2] == untouched,
                    "at frame \(reading.frame): \(reading.values), due \(due)")
            if index > 0 { #expect((0...1).contains(reading.values[0] - readings[index - 1].values[0])) }
        }
        #expect(readings.last?.values[0] == 127)
        print("ramp 0→1 over 2 s: layer gain within \(error) of its curve, largest step \(largestStep) (slope \(steepest)); CC74 0→\(readings.last?.values[0] ?? -1) in steps of at most 1")
    }

    @Test("a parameter driving the tempo moves the beats from the next frames not yet scheduled, and the note sounding goes on; one driving transposition moves the next note")
    func tempoAndTranspose() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        // 120 bpm, 4/4: A4 for three beats of each bar.
        var tempo = MusicTrack(events: [MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))), MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000)))])
        tempo.length = 8 * 1920
        var notes = MusicTrack(name: "Notes", events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))])
        for bar in 0..<8 {
            notes.insert(MIDIEvent(tick: bar * 1920, .noteOn(channel: 0, note: 69, velocity: 100)))
            notes.insert(MIDIEvent(tick: bar * 1920 + 1440, .noteOff(channel: 0, note: 69, velocity: 0)))
        }
        notes.length = 8 * 1920
        let song = try await soundtrack.load(.init(midiPath: fixture.write(MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [notes]), as: "whole.mid"),
                                                   soundFontPath: SoundtrackFixture.testFont))
        try soundtrack.defineParameter("speed", range: 0...2, value: 1)
        try soundtrack.mapParameter("speed", to: .tempo, curve: ParameterCurve([(0, 50), (2, 200)]))   // 1 → 125 %
        try soundtrack.defineParameter("key", range: -1...1, value: 0)
        try soundtrack.mapParameter("key", to: .transpose, curve: ParameterCurve([(-1, -12), (1, 12)]))
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(30_000)                                      // into the first note
        try soundtrack.setParameter("speed", to: 2)            // 200 %: 240 bpm, a beat every 12,000 frames
        try soundtrack.setParameter("key", to: 1)              // an octave up, from the next note
        pull.pull(200_000)
        let beats = soundtrack.pollEvents().compactMap { if case .beat(_, let beat) = $0 { beat } else { nil } }
        let late = beats.filter { $0.sampleTime > 60_000 }.map { Int($0.sampleTime) }
        #expect(late.count >= 4 && zip(late, late.dropFirst()).allSatisfy { $1 - $0 == 12_000 }, "beats \(late)")
        #expect(beats.first { $0.sampleTime > 60_000 }.map { abs($0.bpm - 240) < 0.001 } == true)
        let silent = (24_000 ..< 40_000).filter { pull.left[$0] == 0 }
        #expect(silent.count < 10, "the first note goes on through the change: \(silent.count) silent frames")
        let second = try #require(noteOnsets(pull.left, gap: 200).first { $0 > 40_000 })
        let note = Array(pull.left[second + 1_000 ..< second + 6_000])
        let crossings = (1..<note.count).filter { note[$0 - 1] < 0 && note[$0] >= 0 }
        let hertz = 48_000 * Double(crossings.count - 1) / Double(crossings.last! - crossings.first!)
        #expect(abs(hertz - 880) < 2, "the next note an octave up: \(hertz) Hz")
    }

    @Test("a parameter choosing the next section: low, calm repeats where it ends (a jump on that bar line's frame, its notes on their beats); high, combat follows")
    func nextSection() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let song = try await soundtrack.load(.init(midiPath: fixture.write(sectionSong(), as: "sections.mid"), soundFontPath: SoundtrackFixture.testFont))
        try soundtrack.defineParameter("intensity")
        try soundtrack.mapParameter("intensity", to: .nextSection(["calm", "Combat"]), curve: .linear(from: 0, to: 1))
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(500_000)                                 // past calm's first end (bar 6, 480,000)
        try soundtrack.setParameter("intensity", to: 0.8)
        pull.pull(500_000)                                 // past calm's second end (864,000)
        let events = soundtrack.pollEvents()
        let jumps = events.compactMap { if case .jumped(_, let section, let t) = $0 { (section, Int(t)) } else { nil } }
        #expect(jumps.count == 1 && jumps.first.map { $0 == ("calm", 480_000) } == true, "\(jumps)")
        let bars = events.compactMap { if case .beat(_, let beat) = $0, beat.beat == 1 { (beat.bar, beat.section, Int(beat.sampleTime)) } else { nil } }
        #expect(bars.contains { $0 == (2, "calm", 480_000) } && bars.contains { $0 == (6, "combat", 864_000) }, "\(bars)")
        // Calm again from 480,000: A4 on beats 2 and 3 of its bars, nothing on the bar line.
        let onsets = noteOnsets(pull.left, gap: 2_000).filter { $0 >= 470_000 && $0 < 864_000 }
        let due = (0..<4).flatMap { bar in [1, 2].map { 480_000 + bar * 96_000 + $0 * 24_000 } }
        #expect(onsets.count == due.count && zip(onsets, due).allSatisfy { abs($0 - $1) <= 32 }, "onsets \(onsets), due \(due)")
        #expect(noteOnsets(pull.left, gap: 2_000).contains { abs($0 - 864_000) <= 32 }, "combat's first note on its bar line")
    }

    @Test("parameters refused in one line: one not defined (naming those that are), made twice, a value outside its range, a curve outside its target's range, a channel that is not there")
    func refusals() throws {
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        try soundtrack.defineParameter("danger", range: 0...10)
        func refused(_ expected: String, _ call: () throws(SoundtrackError) -> Void) {
            do {
                try call()
                Issue.record("not refused: \(expected)")
            } catch {
                #expect(error.description == expected, "\(error)")
            }
        }
        refused("no parameter 'speed' (parameters: danger)") { () throws(SoundtrackError) in try soundtrack.setParameter("speed", to: 1) }
        refused("parameter 'Danger' is already defined") { () throws(SoundtrackError) in try soundtrack.defineParameter("Danger") }
        refused("parameter 'danger': value 11.0 is outside its range 0.0...10.0") { () throws(SoundtrackError) in try soundtrack.setParameter("danger", to: 11) }
        refused("parameter 'danger': the curve for tempo needs points with finite x and y in 1.0...1000.0") { () throws(SoundtrackError) in
            try soundtrack.mapParameter("danger", to: .tempo, curve: .linear(from: 0, to: 100))
        }
        refused("controller 74 on channels [0, 1]: give channels 1 to 16") { () throws(SoundtrackError) in
            try soundtrack.mapParameter("danger", to: .controller(74, channels: [0, 1]), curve: .linear(from: 0, to: 127))
        }
        #expect(soundtrack.parameter("danger") == 0 && soundtrack.parameter("nothing") == nil)
    }
}

private typealias ParameterCurve = Soundtrack.ParameterCurve
