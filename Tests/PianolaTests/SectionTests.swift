import Foundation
@testable import Pianola
import SoundServers
import TestSupport
import Testing

/// A 4/4 song at 120 bpm (a bar is 96,000 frames at 48 kHz) in sections: an intro bar that
/// sets channel 1 to the sine at full volume (program 0, CC7 127), "calm" from bar 2 (A4 on
/// beats 2 and 3 of each bar, nothing on a bar line), and "combat" from bar 6, which sets the
/// square at half volume (program 1, CC7 64) on its first tick and plays A4 on every bar line.
func sectionSong() -> MusicSequence {
    var tempo = MusicTrack(events: [
        MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))),
        MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
        MIDIEvent(tick: 1920, .meta(.text(.marker, string: "calm"))),
        MIDIEvent(tick: 5 * 1920, .meta(.text(.marker, string: "combat"))),
    ])
    tempo.length = 9 * 1920
    var music = MusicTrack(name: "Music", events: [
        MIDIEvent(tick: 0, .programChange(channel: 0, program: 0)),
        MIDIEvent(tick: 0, .controlChange(channel: 0, controller: 7, value: 127)),
    ])
    for bar in 1..<5 {
        for beat in 1...2 {
            music.insert(MIDIEvent(tick: bar * 1920 + beat * 480, .noteOn(channel: 0, note: 69, velocity: 100)))
            music.insert(MIDIEvent(tick: bar * 1920 + beat * 480 + 240, .noteOff(channel: 0, note: 69, velocity: 0)))
        }
    }
    music.insert(MIDIEvent(tick: 5 * 1920, .programChange(channel: 0, program: 1)))
    music.insert(MIDIEvent(tick: 5 * 1920, .controlChange(channel: 0, controller: 7, value: 64)))
    for bar in 5..<9 {
        music.insert(MIDIEvent(tick: bar * 1920, .noteOn(channel: 0, note: 69, velocity: 100)))
        music.insert(MIDIEvent(tick: bar * 1920 + 960, .noteOff(channel: 0, note: 69, velocity: 0)))
    }
    music.length = 9 * 1920
    return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [music])
}

@Suite("Interactive music on MIDI: sections of one song, jumps on the bar")
struct SectionTests {
    @Test("a jump to a section, requested anywhere in a bar, lands on the next bar line's frame: the event exactly, the section's first note within 32 frames, with the section's program and volume; a jump back chases the state from before the section",
          arguments: [100_000, 137_777, 191_000])
    func jumpOnNextBar(requestAt: Int) async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let song = try await soundtrack.load(.init(midiPath: fixture.write(sectionSong(), as: "sections.mid"), soundFontPath: SoundtrackFixture.testFont))
        #expect(song.sections == [SongSection(name: "calm", startTick: 1920, endTick: 9600), SongSection(name: "combat", startTick: 9600, endTick: 17280)])
        var pull = Puller(soundtrack)
        try soundtrack.play(song)
        pull.pull(requestAt)
        try soundtrack.jump(to: "combat")
        let barLine = stride(from: 0, to: 2_000_000, by: 96_000).first { $0 >= requestAt + 4096 }!
        pull.pull(barLine + 96_000 - requestAt)
        try soundtrack.jump(to: "Calm", at: .now)   // any case; back to calm at once, mid-note
        pull.pull(200_000)
        let events = soundtrack.pollEvents()
        let jumps = events.compactMap { if case .jumped(_, let section, let t) = $0 { (section, Int(t)) } else { nil } }
        #expect(jumps.first.map { $0 == ("combat", barLine) } == true, "jumps \(jumps), bar line \(barLine)")
        let onset = noteOnsets(pull.left).first { $0 >= barLine - 64 }
        #expect(onset.map { abs($0 - barLine) <= 32 } == true, "onset \(onset ?? -1), bar line \(barLine)")
        func shape(_ range: Range<Int>) -> (rms: Double, crest: Double) {
            let window = pull.left[range]
            let rms = (window.reduce(0) { $0 + Double($1 * $1) } / Double(window.count)).squareRoot()
            return (rms, Double(window.map(abs).max() ?? 0) / rms)
        }
        // The square (program 1) at CC7 64: the test font's tones peak at 0.08 here, and
        // libfluidsynth's volume curve gives CC7 64 a gain of (64/127)²; a sine there would be
        // 3 dB lower, the sine at full volume 8.9 dB higher.
        let combat = shape(barLine + 4_800 ..< barLine + 24_000)
        #expect(abs(20 * log10(combat.rms / (0.08 * pow(64.0 / 127, 2)))) < 0.5, "combat rms \(combat.rms)")
        // Back in calm at once: its first note (beat 2 of its first bar) is the sine at full
        // volume, program 0 and CC7 127 chased from the intro bar before the section.
        let back = try #require(jumps.last.map { $0.1 })
        #expect(jumps.last?.0 == "calm")
        let calmOnset = noteOnsets(pull.left).first { $0 >= back }
        #expect(calmOnset.map { abs($0 - (back + 24_000)) <= 32 } == true, "calm onset \(calmOnset ?? -1), jump \(back)")
        let calm = shape(back + 24_000 + 4_800 ..< back + 24_000 + 10_000)
        #expect(abs(20 * log10(calm.rms / (0.08 / 2.0.squareRoot()))) < 0.2 && abs(calm.crest - 2.0.squareRoot()) < 0.02, "calm \(calm)")
    }

    @Test("jumps refused in one line: no song playing, a section the song lacks (naming its sections), a section end with none after")
    func refusals() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let song = try await soundtrack.load(.init(midiPath: fixture.write(sectionSong(), as: "sections.mid"), soundFontPath: SoundtrackFixture.testFont))
        #expect(throws: SoundtrackError.self) { try soundtrack.jump(to: "combat") }
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(10_000)
        do {
            try soundtrack.jump(to: "boss")
            Issue.record("jumped to a section that is not there")
        } catch {
            #expect(error.description.hasSuffix("has no section 'boss' (sections: calm, combat)"), "\(error)")
        }
        // In the intro, the calm section's start is the next section end.
        try soundtrack.jump(to: "combat", at: .sectionEnd)
        pull.pull(200_000)
        let jumps = soundtrack.pollEvents().compactMap { if case .jumped(_, let section, let t) = $0 { (section, Int(t)) } else { nil } }
        #expect(jumps.map(\.0) == ["combat"] && jumps.map(\.1) == [96_000])
        do {
            try soundtrack.jump(to: "calm", at: .sectionEnd)   // combat is the last section, and the song does not loop
            Issue.record("a section end after the last section")
        } catch {
            #expect(error.description.hasSuffix("reaches no section after the one playing"), "\(error)")
        }
    }
}

extension SectionTests {
    /// A 4/4 song at 120 bpm on the project's GM font's pad (program 88: its release takes a
    /// second, so a released note fades slowly): a chord on bar 1, and a long note through bar
    /// 2 to the loop's end; loopStart at its first tick and loopEnd at bar 3, and the sections
    /// "a" (bar 1) and "b" (bar 2).
    static func heldSong() -> MusicSequence {
        let tempo = MusicTrack(events: [
            MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))),
            MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
            MIDIEvent(tick: 0, .meta(.text(.marker, string: "loopStart"))),
            MIDIEvent(tick: 0, .meta(.text(.marker, string: "a"))),
            MIDIEvent(tick: 1920, .meta(.text(.marker, string: "b"))),
            MIDIEvent(tick: 3840, .meta(.text(.marker, string: "loopEnd"))),
        ], length: 3840)
        var strings = MusicTrack(name: "Pad", events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 88))])
        for key: UInt8 in [60, 64, 67] {
            strings.insert(MIDIEvent(tick: 0, .noteOn(channel: 0, note: key, velocity: 90)))
            strings.insert(MIDIEvent(tick: 1800, .noteOff(channel: 0, note: key, velocity: 0)))
        }
        strings.insert(MIDIEvent(tick: 1920, .noteOn(channel: 0, note: 72, velocity: 100)))
        strings.insert(MIDIEvent(tick: 3840, .noteOff(channel: 0, note: 72, velocity: 0)))
        strings.length = 3840
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [strings])
    }

    @Test("tails across a loop's wrap and a jump: the note released there rings on with its release and the reverb, no silent frame, the level just after within 1 dB of just before")
    func tailsRingOn() async throws {
        let fixture = try SoundtrackFixture()
        var configuration = Soundtrack.Configuration()
        configuration.limiter = false
        let soundtrack = Soundtrack(configuration: configuration)   // reverb on
        let font = SoundtrackFixture.root.appendingPathComponent("soundfonts/pianola-gm.sf2").path
        let song = try await soundtrack.load(.init(midiPath: fixture.write(Self.heldSong(), as: "held.mid"), soundFontPath: font))
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(192_000 + 96_000 + 24_000)        // through the first wrap (at 192,000), into bar 2 again by a beat
        try soundtrack.jump(to: "a", at: .nextBeat) // in the middle of the long note
        pull.pull(200_000)
        let events = soundtrack.pollEvents()
        let wrap = try #require(events.compactMap { if case .loopWrapped(_, let t) = $0 { Int(t) } else { nil } }.first)
        let jump = try #require(events.compactMap { if case .jumped(_, _, let t) = $0 { Int(t) } else { nil } }.first)
        for (what, at) in [("wrap", wrap), ("jump", jump)] {
            func level(_ range: Range<Int>) -> Double {
                10 * log10(range.reduce(0) { $0 + Double(pull.left[$1] * pull.left[$1] + pull.right[$1] * pull.right[$1]) } / Double(range.count))
            }
            let before = level(at - 480 ..< at), after = level(at ..< at + 480)   // 10 ms each side
            #expect(abs(after - before) < 1, "\(what) at \(at): \(before) dB before, \(after) dB after")
            print("tail across the \(what): \(before.fixed2) dB in the 10 ms before, \(after.fixed2) dB in the 10 ms after")
            let silent = (at - 4_800 ..< at + 4_800).filter { pull.left[$0] == 0 && pull.right[$0] == 0 }
            #expect(silent.isEmpty, "\(what): \(silent.count) silent frames around it")
        }
    }
}

private extension Double {
    /// Two decimals.
    var fixed2: String { String(format: "%.2f", self) }
}

extension SectionTests {
    @Test("beats carry the music: bar and beat, the meter, the tempo as played (setTempo included), the section, the tick and frame; and, with the soundtrack's own output, when each is heard")
    func beatDetails() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let waltz = try await soundtrack.load(.init(midiPath: fixture.write(SoundtrackFixture.waltz(), as: "waltz.mid"), soundFontPath: SoundtrackFixture.testFont))
        try soundtrack.play(waltz)
        var pull = Puller(soundtrack)
        pull.pull(waltzFrame(2880) + 1000)          // into bar 3, where the waltz slows to 90 bpm
        try soundtrack.setTempo(percent: 150)
        pull.pull(200_000)
        let beats = soundtrack.pollEvents().compactMap { if case .beat(_, let beat) = $0 { beat } else { nil } }
        let first = try #require(beats.first)
        #expect(first == Soundtrack.Beat(bar: 1, beat: 1, beatsPerBar: 3, beatUnit: 4, bpm: 120, section: nil, tick: 0, sampleTime: 0, heardAtNanos: nil))
        let verse = try #require(beats.first { $0.bar == 2 && $0.beat == 1 })
        #expect(verse.section == "verse" && verse.tick == 1440 && verse.sampleTime == SampleTime(waltzFrame(1440)) && verse.bpm == 120)
        let slower = try #require(beats.first { $0.bar == 3 && $0.beat == 1 })
        #expect(abs(slower.bpm - 90) < 0.001 && slower.sampleTime == SampleTime(waltzFrame(2880)), "\(slower)")   // 666,667 µs a quarter
        let faster = try #require(beats.first { $0.bar == 4 && $0.beat == 1 })
        #expect(abs(faster.bpm - 135) < 0.001, "90 bpm at 150 %: \(faster.bpm)")
        #expect(beats.allSatisfy { $0.heardAtNanos == nil }, "pulled by the game: no output of the soundtrack's own")
    }

    @Test("with the soundtrack's own output (a real jackd, paced by its dummy driver), each beat says when it is heard, on CLOCK_MONOTONIC, as far apart as its frames", .listensInRealTime)
    func beatsHeardAt() async throws {
        let server = try JACKServer()
        defer { server.kill() }
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let waltz = try await soundtrack.load(.init(midiPath: fixture.write(SoundtrackFixture.waltz(), as: "waltz.mid"), soundFontPath: SoundtrackFixture.testFont))
        var started = false
        for _ in 0..<50 where !started {   // the server takes a moment to come up
            started = (try? soundtrack.startOutput(driver: .jack, server: server.name, periodFrames: 256)) != nil || soundtrack.isOutputRunning
            if !started { try await Task.sleep(nanoseconds: 100_000_000) }
        }
        try #require(started, "no jackd answered")
        defer { soundtrack.stopOutput() }
        func monotonicNanos() -> Int64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        }
        let before = monotonicNanos()
        try soundtrack.play(waltz)
        // The beats are taken in one poll, after 3.2 s of playing or more: their heard times all
        // come from one estimate of when frame 0 sounds, so they are exactly as far apart as their
        // frames, however late JACK's thread woke to take the cycle stamps the estimate comes from.
        var beats: [Soundtrack.Beat] = []
        try await Task.sleep(nanoseconds: 3_200_000_000)
        for _ in 0..<500 where beats.count < 6 {
            beats += soundtrack.pollEvents().compactMap { if case .beat(_, let beat) = $0, beat.heardAtNanos != nil { beat } else { nil } }
            if beats.count < 6 { try await Task.sleep(nanoseconds: 20_000_000) }
        }
        let after = monotonicNanos()
        try #require(beats.count >= 2, "no beat with a heard time")
        for (a, b) in zip(beats, beats.dropFirst()) {
            let apart = b.heardAtNanos! - a.heardAtNanos!, frames = (b.sampleTime - a.sampleTime) * 1_000_000_000 / 48_000
            #expect(abs(apart - frames) <= 1, "beats \(a.bar):\(a.beat) and \(b.bar):\(b.beat) heard \(apart) ns apart, their frames \(frames) ns")
        }
        // When: the first beat is heard after play was asked for, and the beats polled are heard
        // by the time they were polled, but for the output's latency (one 256-frame period and
        // the dummy driver's, well under a second however busy the machine).
        let (first, last) = (beats[0].heardAtNanos!, beats[beats.count - 1].heardAtNanos!)
        #expect(first > before - 1_000_000_000 && last < after + 1_000_000_000,
                "heard \(Double(first - before) / 1e9) s after play and \(Double(after - last) / 1e9) s before the poll: not on CLOCK_MONOTONIC")
        print("beats heard through jackd: the first \(Double((first - before) / 1_000) / 1e3) ms after play was asked for")
    }
}

extension SectionTests {
    /// `bars` bars of 4/4 at 120 bpm with no note: a song whose beats can be heard against.
    static func silentSong(bars: Int = 16) -> MusicSequence {
        let tempo = MusicTrack(events: [
            MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))),
            MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
        ], length: bars * 1920)
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [MusicTrack(name: "Nothing", length: bars * 1920)])
    }

    /// A one-bar stinger written at 100 bpm in 4/4 (the time signature after the tempo at its
    /// first tick, as files often have them): A5 on the sine, a quarter note on each beat.
    static func stingerPhrase() -> MusicSequence {
        let tempo = MusicTrack(events: [
            MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 600_000))),
            MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))),
        ], length: 1920)
        var notes = MusicTrack(name: "Sting", events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))])
        for beat in 0..<4 {
            notes.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: 81, velocity: 100)))
            notes.insert(MIDIEvent(tick: beat * 480 + 240, .noteOff(channel: 0, note: 81, velocity: 0)))
        }
        notes.length = 1920
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [notes])
    }

    @Test("a MIDI stinger asked for mid-beat sounds on the song's next beat at the live tempo (the song at 150 %, the stinger written at 100 bpm) and transposition: its four notes on the song's next four beats")
    func stingerOnTheGrid() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let song = try await soundtrack.load(.init(midiPath: fixture.write(Self.silentSong(), as: "silent.mid"), soundFontPath: SoundtrackFixture.testFont))
        let stinger = try await soundtrack.load(.init(midiPath: fixture.write(Self.stingerPhrase(), as: "sting.mid"), soundFontPath: SoundtrackFixture.testFont))
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(100_000)
        try soundtrack.setTempo(percent: 150)      // 180 bpm: a beat every 16,000 frames
        try soundtrack.setTranspose(semitones: 2)
        pull.pull(37_777)
        try soundtrack.playStinger(stinger)
        pull.pull(150_000)
        let beats = soundtrack.pollEvents().compactMap { if case .beat(_, let beat) = $0, beat.sampleTime >= 137_777 + 4_096 { Int(beat.sampleTime) } else { nil } }
        let onsets = noteOnsets(pull.left, gap: 2_000)
        #expect(onsets.count == 4 && beats.count >= 4, "onsets \(onsets), beats \(beats)")
        for (onset, beat) in zip(onsets, beats) {
            #expect(abs(onset - beat) <= 32, "onset \(onset), beat \(beat)")
        }
        #expect(zip(beats, beats.dropFirst()).allSatisfy { $1 - $0 == 16_000 }, "the song's beats at 180 bpm: \(beats)")
        // Transposed with the song: A5 up 2 semitones, 987.77 Hz.
        let first = try #require(onsets.first)
        let note = Array(pull.left[first + 1_000 ..< first + 6_000])
        let crossings = (1..<note.count).filter { note[$0 - 1] < 0 && note[$0] >= 0 }
        let hertz = 48_000 * Double(crossings.count - 1) / Double(crossings.last! - crossings.first!)
        #expect(abs(hertz - 880 * pow(2, 2.0 / 12)) < 2, "\(hertz) Hz")
        print("stinger onsets \(onsets), the song's beats \(beats.prefix(4)), first note \((hertz * 100).rounded() / 100) Hz")
    }

    @Test("stingers do not pile up: beyond the limit, one of lower priority gives way to a new one, and a new one below them all is refused in one line")
    func stingerPriorities() async throws {
        let fixture = try SoundtrackFixture()
        var configuration = dryConfiguration()
        configuration.maxStingers = 2
        let soundtrack = Soundtrack(configuration: configuration)
        let song = try await soundtrack.load(.init(midiPath: fixture.write(Self.silentSong(), as: "silent.mid"), soundFontPath: SoundtrackFixture.testFont))
        let stinger = try await soundtrack.load(.init(midiPath: fixture.write(Self.stingerPhrase(), as: "sting.mid"), soundFontPath: SoundtrackFixture.testFont))
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(10_000)
        try soundtrack.playStinger(stinger, priority: 1)
        try soundtrack.playStinger(stinger, priority: 1)
        #expect(soundtrack.stingersSounding == 2)
        do {
            try soundtrack.playStinger(stinger, priority: 0)
            Issue.record("a third stinger below the others played")
        } catch {
            #expect(error.kind == .busy && error.description.hasSuffix("2 stingers of higher priority already sound (priority 0)"), "\(error)")
        }
        try soundtrack.playStinger(stinger, priority: 2)   // the oldest of priority 1 gives way
        #expect(soundtrack.stingersSounding == 2)
        pull.pull(300_000)                                  // a bar at 100 bpm is 2.4 s: all have ended
        #expect(soundtrack.stingersSounding == 0)
    }
}

extension SectionTests {
    @Test("sections from a table in the song's description, in place of its markers; a position the song does not have fails its load in one line")
    func sectionTable() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let path = try fixture.write(sectionSong(), as: "sections.mid")
        var description = Soundtrack.SongDescription(midiPath: path, soundFontPath: SoundtrackFixture.testFont)
        description.sections = ["intro": BarBeatTick(bar: 1, beat: 1), "boss": BarBeatTick(bar: 6, beat: 3)]
        let song = try await soundtrack.load(description)
        #expect(song.sections == [SongSection(name: "intro", startTick: 0, endTick: 10_560), SongSection(name: "boss", startTick: 10_560, endTick: 17_280)])
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(10_000)
        try soundtrack.jump(to: "boss", at: .nextBeat)
        pull.pull(30_000)
        let jumps = soundtrack.pollEvents().compactMap { if case .jumped(_, let section, let t) = $0 { (section, Int(t)) } else { nil } }
        #expect(jumps.map(\.0) == ["boss"] && jumps.map(\.1) == [24_000])
        for (table, says) in [(["late": BarBeatTick(bar: 20, beat: 1)], "section 'late' at 20:1 starts after the song's end"),
                              (["odd": BarBeatTick(bar: 2, beat: 5)], "section 'odd' at 2:5: ")] {
            description.sections = table
            do {
                _ = try await soundtrack.load(description)
                Issue.record("loaded with \(table)")
            } catch {
                #expect(error.description.hasPrefix("\(path): \(says)"), "\(error)")
            }
        }
    }
}
