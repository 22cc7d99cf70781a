import TestSupport
import RenderHarness
import Testing
@testable import Engine
import MIDI
@testable import Playback
@testable import Sequencing

@Suite("Player transport: seek with chase, seamless loops, nothing left sounding")
struct TransportTests {

    @Test("seeking into a held note: it is not re-struck, and the next note plays the chased program")
    func seekChasesProgram() throws {
        // Sine (program 0) at 0, square (program 1) at beat 2; a note held over beats 4–12,
        // another at beat 10. Seek to beat 8: silence until beat 10, then a square.
        var track = MusicTrack(events: [
            MIDIEvent(tick: 0, .programChange(channel: 0, program: 0)),
            MIDIEvent(tick: 960, .programChange(channel: 0, program: 1)),
        ])
        track.insert(MIDIEvent(tick: 1920, .noteOn(channel: 0, note: 69, velocity: 100)))
        track.insert(MIDIEvent(tick: 5760, .noteOff(channel: 0, note: 69, velocity: 0)))
        track.insert(MIDIEvent(tick: 4800, .noteOn(channel: 0, note: 81, velocity: 100)))
        track.insert(MIDIEvent(tick: 6720, .noteOff(channel: 0, note: 81, velocity: 0)))
        let harness = try RenderHarness(MusicSequence(division: .ticksPerQuarter(480), tracks: [track]))
        harness.player.seek(toTick: 3840)
        let audio = harness.render(frames: 48_000 * 2)
        // Beat 8 → 10 at 120 bpm is one second: silent.
        #expect(audio[0..<47_900].allSatisfy { $0 == 0 })
        let note = audio[(48_000 + 4_800)..<(48_000 + 40_000)]
        #expect(RenderHarness.formFactor(note) > 0.97, "form factor \(RenderHarness.formFactor(note)): the square was chased")
        let sine = try RenderHarness(RenderHarness.sequence(program: 0, notes: [(0, 960, 81)])).render(frames: 40_000)
        #expect(abs(RenderHarness.formFactor(sine[4_800...]) - 0.9003) < 0.005, "the measure tells a sine")
        #expect(abs(RenderHarness.frequency(note) - 880) < 0.1)
    }

    @Test("a note that begins exactly at the seek point sounds at once")
    func noteAtSeekPoint() throws {
        let sequence = RenderHarness.sequence(program: 0, notes: [(960, 480, 69), (1920, 480, 72)])
        let harness = try RenderHarness(sequence)
        harness.player.seek(toTick: 1920)
        let audio = harness.render(frames: 9_600)
        let onset = noteOnsets(audio).first
        #expect(onset == 1)
    }

    @Test("loop ×4 of a 2-bar region: four identical copies, no gap at the seams")
    func seamlessLoop() throws {
        // Legato sine notes filling two bars at 120 bpm: 3840 ticks = 192,000 frames.
        let notes = (0..<8).map { (tick: $0 * 480, length: 480, key: UInt8(60 + [0, 4, 7, 12, 7, 4, 0, 7][$0])) }
        let sequence = RenderHarness.sequence(program: 0, notes: notes + [(3840, 960, 48)])
        let harness = try RenderHarness(sequence)
        harness.player.setLoop(startTick: 0, endTick: 3840, count: 4)
        let region = 192_000
        let audio = harness.render(frames: region * 4 + 48_000, slice: 777)
        // Each later pass opens while the previous pass's last note is in its release (about
        // 15 ms); from there on, passes 2, 3 and 4 are exact copies. Pass 1 is too but for one
        // 64-frame block: libfluidsynth glides a voice's filter coefficients over its first
        // block from the voice slot's previous note, and in pass 1 the slots are fresh.
        let release = 1_024
        func pass(_ k: Int) -> [Float] { Array(audio[(k * region + release)..<((k + 1) * region)]) }
        let second = pass(1)
        #expect(pass(2) == second)
        #expect(pass(3) == second)
        let differing = zip(pass(0), second).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(differing.count < 64 && (differing.last ?? 0) - (differing.first ?? 0) < 64,
                "pass 1 differs from pass 2 at \(differing.count) frames")
        // No silent run at or near a seam.
        for seam in 1...3 {
            let around = audio[(seam * region - 2_000)..<(seam * region + 2_000)]
            var run = 0, longest = 0
            for s in around { run = s == 0 ? run + 1 : 0; longest = max(longest, run) }
            #expect(longest < 8, "a silent run of \(longest) frames at seam \(seam)")
        }
        // After the fourth pass the song goes on to its last note (key 48 at 130.8 Hz).
        #expect(abs(RenderHarness.frequency(audio[(region * 4 + 4_800)..<(region * 4 + 40_000)]) - 130.81) < 0.05)
    }

    @Test("stop and pause release every sounding note: silence after the release time")
    func stopLeavesNothingSounding() throws {
        let sequence = RenderHarness.sequence(program: 0, notes: [(0, 48_000, 60), (0, 48_000, 64), (240, 48_000, 67)])
        for action in ["stop", "pause"] {
            let harness = try RenderHarness(sequence)
            _ = harness.render(frames: 24_000)
            if action == "stop" { harness.player.stop() } else { harness.player.pause() }
            let after = harness.render(frames: 24_000)
            #expect(after[0..<64].contains { $0 != 0 }, "\(action): sound right up to the stop")
            #expect(after[960...].allSatisfy { $0 == 0 }, "\(action): notes still sounding after 20 ms")
            #expect(harness.sampler.synthesizer.activeVoiceCount == 0)
        }
    }

    @Test("muting a track releases its notes; solo silences the others")
    func muteAndSolo() throws {
        let a = MusicTrack(events: [MIDIEvent(tick: 0, .noteOn(channel: 0, note: 69, velocity: 100)), MIDIEvent(tick: 9600, .noteOff(channel: 0, note: 69, velocity: 0))])
        let b = MusicTrack(events: [MIDIEvent(tick: 0, .noteOn(channel: 1, note: 81, velocity: 100)), MIDIEvent(tick: 9600, .noteOff(channel: 1, note: 81, velocity: 0))])
        let sequence = MusicSequence(division: .ticksPerQuarter(480), tracks: [a, b])
        let harness = try RenderHarness(sequence)
        _ = harness.render(frames: 9_600)
        harness.player.setMuted(true, track: 0)
        let muted = harness.render(frames: 24_000)
        #expect(abs(RenderHarness.frequency(muted[4_800...]) - 880) < 0.1)
        harness.player.setMuted(false, track: 0)
        harness.player.setSoloed(true, track: 0)
        let solo = harness.render(frames: 9_600)
        #expect(solo[4_800...].allSatisfy { $0 == 0 }, "track 2 silenced by the solo, track 1's note was released by the mute")
    }
}

@Suite("Player events reach the control thread")
struct PlayerEventTests {
    @Test("markers, cue points and user events arrive in order with their exact sample times; loop wraps and the end too")
    func events() throws {
        var track = MusicTrack(events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 2))])
        track.insert(MIDIEvent(tick: 0, .meta(.text(.marker, string: "intro"))))
        track.insert(MIDIEvent(tick: 700, .meta(.text(.cuePoint, string: "door"))))
        track.insert(MIDIEvent(tick: 960, .meta(.text(.marker, string: "verse"))))
        track.insert(MIDIEvent(tick: 1234, .meta(.sequencerSpecific([0x7D, 1, 2]))))
        track.insert(MIDIEvent(tick: 1500, .noteOn(channel: 0, note: 60, velocity: 90)))
        track.insert(MIDIEvent(tick: 1900, .noteOff(channel: 0, note: 60, velocity: 0)))
        var tempo = MusicTrack()
        tempo.insert(MIDIEvent(tick: 480, .meta(.tempo(microsecondsPerQuarter: 333_333))))
        let sequence = MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [track])
        let harness = try RenderHarness(sequence)
        harness.player.setLoop(startTick: 960, endTick: 1920, count: 2)
        _ = harness.renderSong(slice: 500)
        let map = sequence.tempoMap
        func at(_ tick: Int) -> SampleTime { map.sampleFrame(atTick: tick, sampleRate: RenderHarness.rate) }
        let loopLength = at(1920) - at(960)
        #expect(harness.player.pollEvents() == [
            .marker(text: "intro", tick: 0, sampleTime: 0),
            .cuePoint(text: "door", tick: 700, sampleTime: at(700)),
            .marker(text: "verse", tick: 960, sampleTime: at(960)),
            .userEvent(track: 0, data: [0x7D, 1, 2], tick: 1234, sampleTime: at(1234)),
            .loopWrapped(sampleTime: at(1920)),
            .marker(text: "verse", tick: 960, sampleTime: at(960) + loopLength),
            .userEvent(track: 0, data: [0x7D, 1, 2], tick: 1234, sampleTime: at(1234) + loopLength),
            .ended(sampleTime: at(1900) + loopLength),   // the song ends with its last event, at tick 1900
        ])
        #expect(harness.player.pollEvents().isEmpty)
    }
}

@Suite("The position at the end of each cycle")
struct RenderedPositionTests {
    @Test("exact to the frame across a tempo change, loop wraps and the end, for slices shorter than the lookahead and not", arguments: [64, 100, 777])
    func exactAcrossWrapsAndEnd(slice: Int) throws {
        let sequence = RenderHarness.sequence(program: 0, notes: [(0, 480, 60), (960, 480, 64), (1900, 500, 67)], tempos: [(480, 333_333)])
        let harness = try RenderHarness(sequence)
        harness.player.setLoop(startTick: 960, endTick: 1920, count: 2)
        let map = sequence.tempoMap
        func at(_ tick: Int) -> Int64 { map.sampleFrame(atTick: tick, sampleRate: RenderHarness.rate) }
        let loop = at(1920) - at(960), end = at(2400)
        // The frame the song plays at output time t: on to the loop's end, once round the
        // loop, then on to the end, after which it is not playing.
        func expected(_ t: Int64) -> Int64? {
            if t < at(1920) { return t }
            if t < at(1920) + loop { return at(960) + t - at(1920) }
            let frame = t - loop
            return frame < end ? frame : nil
        }
        var t: Int64 = 0, checked = 0, wrong: [String] = []
        while t < end + loop + 4_800 {
            _ = harness.render(frames: slice, slice: slice)
            t += Int64(slice)
            let p = harness.player.renderedPosition
            checked += 1
            if p.time != t || p.frame?.frames != expected(t) { wrong.append("t \(t): \(p.time) \(p.frame.map(String.init) ?? "nil"), expected \(expected(t).map(String.init) ?? "nil")") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(checked) cycles: \(wrong.prefix(4))")
    }
}

@Suite("Seeking by beats and bar:beat; changing the graph while it renders")
struct SeekAndGraphTests {
    @Test("seek by beats and by bar:beat lands where the meter says")
    func seekPositions() throws {
        // 3/4: bar 3 beat 1 is tick 2880 = 3 s at 120 bpm. Clicks on every beat.
        let notes = (0..<12).map { (tick: $0 * 480, length: 100, key: UInt8(60)) }
        var sequence = RenderHarness.sequence(program: 2, notes: notes)
        sequence.tempoTrack.insert(MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(3, 4)))))
        for (seek, expectedTick) in [("bar", 2880), ("beats", 1440)] {
            let harness = try RenderHarness(sequence)
            if seek == "bar" { harness.player.seek(to: BarBeatTick(bar: 3, beat: 1)) } else { harness.player.seek(toBeats: 3) }
            let audio = harness.render(frames: 24_000 * 2)
            // The note at the seek point sounds at once; the next comes one beat later.
            #expect(noteOnsets(audio).prefix(2) == [1, 24_001], "seek by \(seek) to tick \(expectedTick)")
        }
    }
}

@Suite("The song's end")
struct SongEndTests {
    @Test("the finish time is the output time of the end: a pause puts it later by as long as the pause lasted")
    func finishTimeAfterPause() throws {
        let sequence = RenderHarness.sequence(program: 0, notes: [(0, 1920, 69), (1920, 960, 72)])
        let plain = try RenderHarness(sequence)
        #expect(plain.player.finishTime == nil)
        _ = plain.renderSong()
        #expect(plain.player.finishTime == plain.player.score.endFrame.frames)   // rate 1 from output time 0
        let paused = try RenderHarness(sequence)
        _ = paused.render(frames: 24_000)
        paused.player.pause()
        _ = paused.render(frames: 30_000)
        paused.player.start()
        _ = paused.renderSong()
        #expect(paused.player.finishTime == paused.player.score.endFrame.frames + 30_000)
    }

    @Test("setEnd stops the song there: notes released, finished, nothing after")
    func endEarly() throws {
        let sequence = RenderHarness.sequence(program: 0, notes: [(0, 1920, 69), (1920, 960, 72)])
        let harness = try RenderHarness(sequence)
        harness.player.setEnd(tick: 960)   // one second in (48,000 frames), in the middle of the first note
        let audio = harness.renderSong(tail: 4_800)
        #expect(harness.player.isFinished)
        #expect(harness.player.pollEvents() == [.ended(sampleTime: 48_000)])
        #expect(audio.count <= 48_000 + 1_000 + 4_800)
        #expect(audio[47_000..<48_000].contains { $0 != 0 }, "sounding up to the end")
        #expect(audio[(48_000 + 960)...].allSatisfy { $0 == 0 }, "released at the end, and the later note never starts")
    }
}
