import Foundation
@testable import Pianola
import TestSupport
import Testing

/// A 4/4 song of `bars` bars at `microsecondsPerQuarter`, an eighth note of `key` on the sine
/// on every beat, with `markers` (text at tick).
private func beatSong(bars: Int, microsecondsPerQuarter: Int, key: UInt8, markers: [(String, Int)] = []) -> MusicSequence {
    var tempo = MusicTrack(events: [
        MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))),
        MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: UInt32(microsecondsPerQuarter)))),
    ] + markers.map { MIDIEvent(tick: $0.1, .meta(.text(.marker, string: $0.0))) })
    tempo.length = bars * 1920
    var notes = MusicTrack(name: "Notes", events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))])
    for beat in 0..<(bars * 4) {
        notes.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: key, velocity: 100)))
        notes.insert(MIDIEvent(tick: beat * 480 + 240, .noteOff(channel: 0, note: key, velocity: 0)))
    }
    notes.length = bars * 1920
    return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [notes])
}

/// The pitch of the note sounding 1,000 to 6,000 frames after `onset`, from its zero crossings.
private func hertz(_ samples: [Float], after onset: Int) -> Double {
    let note = Array(samples[onset + 1_000 ..< onset + 6_000])
    let crossings = (1..<note.count).filter { note[$0 - 1] < 0 && note[$0] >= 0 }
    return 48_000 * Double(crossings.count - 1) / Double(crossings.last! - crossings.first!)
}

/// `sequence`, written as `name`, loaded into `soundtrack` with the test font.
private func loadSong(_ sequence: MusicSequence, _ name: String, into soundtrack: Soundtrack, _ fixture: SoundtrackFixture) async throws -> Soundtrack.Song {
    try await soundtrack.load(.init(midiPath: fixture.write(sequence, as: name), soundFontPath: SoundtrackFixture.testFont))
}

@Suite("Interactive music on MIDI: transition rules between songs and sections")
struct TransitionTests {
    @Test("a transition with a segment: from song A (120 bpm) at bar 7 beat 3 to song B (100 bpm) through a one-bar segment (150 bpm): the segment's first beat on A's next bar line, B's first beat right after the segment, exact frames; the notes on them within 32 frames, at their pitches")
    func segmentBetween() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let load = { (sequence: MusicSequence, name: String) in try await loadSong(sequence, name, into: soundtrack, fixture) }
        let a = try await load(beatSong(bars: 12, microsecondsPerQuarter: 500_000, key: 69), "a.mid")          // A4, a bar 96,000 frames
        let segment = try await load(beatSong(bars: 1, microsecondsPerQuarter: 400_000, key: 84), "seg.mid")  // C6, a bar 76,800 frames
        let b = try await load(beatSong(bars: 8, microsecondsPerQuarter: 600_000, key: 76), "b.mid")          // E5, a beat 28,800 frames
        try soundtrack.setTransition(.init(name: "a-to-b", segment: .init(segment)), from: .song(a), to: .song(b))
        try soundtrack.play(a)
        var pull = Puller(soundtrack)
        let request = 6 * 96_000 + 2 * 24_000 + 5_000      // bar 7, beat 3, and a little
        pull.pull(request)
        let rule = try soundtrack.transition(to: b)
        #expect(rule.name == "a-to-b")
        pull.pull(900_000 - request)
        let barLine = 7 * 96_000, enter = barLine + 76_800
        let events = soundtrack.pollEvents()
        let moves = events.compactMap { if case .transitioned(let from, let to, _, let rule, let t) = $0 { (from, to, rule, Int(t)) } else { nil } }
        #expect(moves.count == 1 && moves.first.map { $0.0 == a && $0.1 == b && $0.2 == "a-to-b" && $0.3 == barLine } == true, "\(moves)")
        let beats = events.compactMap { if case .beat(let song, let beat) = $0, beat.sampleTime >= request { (song, beat) } else { nil } }
        let segmentBeats = beats.filter { $0.0 == segment }.map { Int($0.1.sampleTime) }
        #expect(segmentBeats == [barLine, barLine + 19_200, barLine + 38_400, barLine + 57_600], "segment beats \(segmentBeats)")
        let firstOfB = try #require(beats.first { $0.0 == b }?.1)
        #expect(firstOfB.sampleTime == SampleTime(enter) && firstOfB.bar == 1 && firstOfB.beat == 1, "\(firstOfB)")
        #expect(!beats.contains { $0.0 == a && Int($0.1.sampleTime) >= barLine }, "A beats on after it left")
        let onsets = noteOnsets(pull.left, gap: 2_000).filter { $0 >= request }
        let expected = [648_000, barLine, barLine + 19_200, barLine + 38_400, barLine + 57_600, enter, enter + 28_800]
        #expect(onsets.count >= expected.count, "onsets \(onsets)")
        for (onset, due) in zip(onsets, expected) { #expect(abs(onset - due) <= 32, "onset \(onset), due \(due)") }
        let pitches = zip(onsets, expected).map { hertz(pull.left, after: $0.0) }
        let keys = [440, 1046.50, 1046.50, 1046.50, 1046.50, 659.26, 659.26]
        for (pitch, key) in zip(pitches, keys) { #expect(abs(pitch - key) < 2, "\(pitch) Hz, \(key) Hz wanted") }
        print("segment from \(barLine) (A's bar 8), B from \(enter); onsets \(onsets.prefix(7)); pitches \(pitches.map { ($0 * 100).rounded() / 100 })")
    }

    @Test("the most specific rule fits: the leaving side counts first, a section before a song before any; the default when none fits")
    func ruleChoice() {
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let a = soundtrack.startLoading(.init(midiPath: "/nonexistent/a.mid", soundFontPath: "/nonexistent/f.sf2"))
        let b = soundtrack.startLoading(.init(midiPath: "/nonexistent/b.mid", soundFontPath: "/nonexistent/f.sf2"))
        var rules: [Soundtrack.Place.Pair: Soundtrack.Transition] = [:]
        func set(_ name: String, _ from: Soundtrack.Place, _ to: Soundtrack.Place) { rules[.init(from: from.folded, to: to.folded)] = .init(name: name) }
        func chosen(_ from: Soundtrack.Song?, _ fromSection: String?, _ to: Soundtrack.Song, _ toSection: String?) -> String {
            Soundtrack.rule(in: rules, from: from, section: fromSection, to: to, section: toSection).name
        }
        #expect(chosen(a, "calm", b, nil) == "default")
        set("any", .any, .any)
        #expect(chosen(a, "calm", b, nil) == "any" && chosen(nil, nil, b, nil) == "any")
        set("to b", .any, .song(b))
        set("to b combat", .any, .section(b, "Combat"))
        set("from a", .song(a), .any)
        #expect(chosen(a, "calm", b, "combat") == "from a", "the leaving side first")
        #expect(chosen(b, nil, b, "COMBAT") == "to b combat" && chosen(nil, nil, b, "verse") == "to b")
        set("a calm to b", .section(a, "calm"), .song(b))
        set("a to b combat", .song(a), .section(b, "combat"))
        #expect(chosen(a, "Calm", b, "combat") == "a calm to b" && chosen(a, "boss", b, "combat") == "a to b combat")
        #expect(chosen(a, "calm", a, nil) == "from a")
    }

    @Test("where the destination enters: the same bar and beat, counted from the sections' starts; a section start, crossfading; an entry cue")
    func entries() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let load = { (sequence: MusicSequence, name: String) in try await loadSong(sequence, name, into: soundtrack, fixture) }
        let a = try await load(beatSong(bars: 12, microsecondsPerQuarter: 500_000, key: 69, markers: [("explore", 0)]), "a.mid")
        let b = try await load(beatSong(bars: 12, microsecondsPerQuarter: 500_000, key: 76, markers: [("intro", 0), ("verse", 2 * 1920), ("enter", 5 * 1920)]), "b.mid")
        try soundtrack.setTransition(.init(name: "same place", leave: .nextBeat, entry: .samePosition), from: .song(a), to: .section(b, "verse"))
        try soundtrack.setTransition(.init(name: "on cue", leave: .now, entry: .cue("Enter")), from: .song(a), to: .song(b))
        try soundtrack.setTransition(.init(name: "crossfade", fadeOut: 1, fadeIn: 1))
        try soundtrack.play(a)
        var pull = Puller(soundtrack)
        pull.pull(96_000 + 24_000 + 5_000)                  // bar 2, beat 2, and a little
        #expect(try soundtrack.transition(to: b, section: "verse").name == "same place")
        pull.pull(100_000)
        let beats = soundtrack.pollEvents().compactMap { if case .beat(let song, let beat) = $0, song == b { beat } else { nil } }
        // Left on A's bar 2 beat 3 (bar 2 of its section); entered on B's bar 4 beat 3 (bar 2 of "verse").
        #expect(beats.first.map { ($0.bar, $0.beat, $0.section, Int($0.sampleTime)) == (4, 3, "verse", 96_000 + 48_000) } == true, "\(beats.first.map { "\($0)" } ?? "no beat")")

        // From B to A: no rule names either, so the default, a crossfade of a second from the
        // next bar line into A's start: half-way through, B's E5 and A's A4 sound at about the
        // same level; after it, A's alone.
        #expect(try soundtrack.transition(to: a).name == "crossfade")
        let asked = pull.left.count
        pull.pull(192_000)
        let entered = try #require(soundtrack.pollEvents().compactMap { if case .beat(let song, let beat) = $0, song == a, Int(beat.sampleTime) >= asked { beat } else { nil } }.first)
        #expect(entered.bar == 1 && entered.beat == 1, "\(entered)")
        let start = Int(entered.sampleTime)
        func level(_ hertz: Double, beatAfter at: Int) -> Double {
            let window = pull.left[at + 500 ..< at + 4_500]
            // One frequency's amplitude under a Hann window (so the other tone does not leak in).
            let (c, s) = window.enumerated().reduce((0.0, 0.0)) { sum, x in
                let phase = 2 * Double.pi * hertz * Double(x.offset) / 48_000
                let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(x.offset) / Double(window.count))
                return (sum.0 + Double(x.element) * hann * cos(phase), sum.1 + Double(x.element) * hann * sin(phase))
            }
            return 20 * log10((c * c + s * s).squareRoot() * 4 / Double(window.count))
        }
        let halfway = (a: level(440, beatAfter: start + 24_000), b: level(659.26, beatAfter: start + 24_000))
        let after = (a: level(440, beatAfter: start + 72_000), b: level(659.26, beatAfter: start + 72_000))
        #expect(abs(halfway.a - halfway.b) < 3 && after.a - after.b > 40, "half-way A4 \(halfway.a) dB, E5 \(halfway.b) dB; after A4 \(after.a) dB, E5 \(after.b) dB")
        print("crossfade: half-way A4 \(halfway.a.rounded2) dB, E5 \(halfway.b.rounded2) dB; after it A4 \(after.a.rounded2) dB, E5 \(after.b.rounded2) dB")

        // From A to B: the rule enters at B's cue (any case), leaving at once.
        #expect(try soundtrack.transition(to: b).name == "on cue")
        let cueAsked = pull.left.count
        pull.pull(50_000)
        let cued = try #require(soundtrack.pollEvents().compactMap { if case .beat(let song, let beat) = $0, song == b, Int(beat.sampleTime) >= cueAsked { beat } else { nil } }.first)
        #expect(cued.bar == 6 && cued.beat == 1 && cued.section == "enter" && Int(cued.sampleTime) < cueAsked + 4_096, "\(cued), asked at \(cueAsked)")
    }

    @Test("an equal-power crossfade rule: two songs' steady stems sum along cos + sin, 3 dB over a linear crossfade half-way, within 0.2 % all through")
    func equalPowerCrossfade() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(SectionTests.silentSong(bars: 4), as: "silent.mid"), soundFontPath: SoundtrackFixture.testFont)
        description.stems = ["pad": .path(try fixture.writeWAV([Float](repeating: 0.25, count: 384_000), as: "pad.wav"))]
        let (a, b) = (try await soundtrack.load(description), try await soundtrack.load(description))
        try soundtrack.setTransition(.init(name: "smooth", leave: .now, fadeOut: 1, fadeIn: 1, fadeShape: .equalPower))
        try soundtrack.play(a)
        var pull = Puller(soundtrack)
        pull.pull(10_000)
        try soundtrack.transition(to: b)
        pull.pull(100_000)
        let start = try #require(soundtrack.pollEvents().compactMap { if case .transitioned(_, _, _, "smooth", let t) = $0 { Int(t) } else { nil } }.first)
        let error = (start ..< start + 48_000).map { t -> Double in
            let phase = Double(t - start) / 48_000 * .pi / 2
            return abs(Double(pull.left[t]) - 0.25 * (cos(phase) + sin(phase)))
        }.max() ?? 1
        #expect(error < 0.0005, "largest distance from 0.25 (cos + sin): \(error)")
        let halfway = 20 * log10(Double(pull.left[start + 24_000]) / 0.25)
        #expect(abs(halfway - 3.01) < 0.05, "half-way \(halfway) dB over one song alone (a linear crossfade: 0 dB)")
        #expect(abs(pull.left[start + 60_000] - 0.25) < 1e-5, "after it, the new song alone")
        print("equal-power crossfade: within \(error) of 0.25 (cos + sin), half-way +\(halfway.rounded2) dB")
    }

    @Test("transitions refused in one line: a section the song lacks, an entry cue it lacks, a segment's section it lacks, a song of another soundtrack, a fade out of range")
    func refusals() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let song = try await soundtrack.load(.init(midiPath: fixture.write(beatSong(bars: 2, microsecondsPerQuarter: 500_000, key: 69, markers: [("one", 0)]), as: "a.mid"),
                                                   soundFontPath: SoundtrackFixture.testFont))
        let other = Soundtrack(configuration: dryConfiguration()).startLoading(.init(midiPath: "/nonexistent/x.mid", soundFontPath: "/nonexistent/f.sf2"))
        func refused(_ expected: String, _ call: () throws(SoundtrackError) -> Void) {
            do {
                try call()
                Issue.record("not refused: \(expected)")
            } catch {
                #expect(error.description.hasSuffix(expected), "\(error)")
            }
        }
        refused("has no section 'two' (sections: one)") { () throws(SoundtrackError) in _ = try soundtrack.transition(to: song, section: "two") }
        refused("has no section 'bridge' (sections: one)") { () throws(SoundtrackError) in try soundtrack.setTransition(.init(name: "x", segment: .init(song, section: "bridge"))) }
        refused("x.mid was loaded by another soundtrack") { () throws(SoundtrackError) in try soundtrack.setTransition(.init(name: "x"), to: .song(other)) }
        refused("fade-in of -1.0 s: use 0 to 3600 seconds") { () throws(SoundtrackError) in try soundtrack.setTransition(.init(name: "x", fadeIn: -1)) }
        try soundtrack.setTransition(.init(name: "cue", entry: .cue("nowhere")))
        refused("a.mid has no entry cue 'nowhere' (a marker) in or after its section 'one'") { () throws(SoundtrackError) in _ = try soundtrack.transition(to: song, section: "one") }
    }
}

private extension Double {
    /// Rounded to hundredths.
    var rounded2: Double { (self * 100).rounded() / 100 }
}
