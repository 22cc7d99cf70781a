import Foundation
import Testing
import MIDI
@testable import SongBook
@testable import Sequencing

@Suite("MusicSequence: loading, layouts, editing")
struct SequenceTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A format 1 file: conductor (tempo 100 bpm at 0, 3/4 at 0, tempo 50 bpm at tick 960, marker),
    /// then a track with channels 0 and 9, then a track with channel 4 and a sysex.
    static func twoTrackFile() -> MIDIFile {
        MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [
            .init(events: [
                MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 600_000))),
                MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(3, 4)))),
                MIDIEvent(tick: 960, .meta(.tempo(microsecondsPerQuarter: 1_200_000))),
                MIDIEvent(tick: 960, .meta(.text(.marker, string: "B"))),
                MIDIEvent(tick: 1440, .meta(.endOfTrack)),
            ]),
            .init(events: [
                MIDIEvent(tick: 0, .meta(.text(.trackName, string: "Keys"))),
                MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 90)),
                MIDIEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 90)),
                MIDIEvent(tick: 480, .noteOff(channel: 0, note: 60, velocity: 0)),
                MIDIEvent(tick: 480, .noteOff(channel: 9, note: 36, velocity: 0)),
                MIDIEvent(tick: 480, .meta(.endOfTrack)),
            ]),
            .init(events: [
                MIDIEvent(tick: 0, .sysex([0x7E, 0x7F, 0x09, 0x01, 0xF7])),
                MIDIEvent(tick: 240, .noteOn(channel: 4, note: 64, velocity: 90)),
                MIDIEvent(tick: 2000, .noteOff(channel: 4, note: 64, velocity: 0)),
                MIDIEvent(tick: 2000, .meta(.endOfTrack)),
            ]),
        ])
    }

    @Test("file tracks: one track per chunk, tempo-track events moved to the tempo track")
    func fileTracks() {
        let sequence = MusicSequence(file: Self.twoTrackFile())
        #expect(sequence.tracks.count == 3)
        #expect(sequence.tracks[1].name == "Keys")
        #expect(sequence.tempoTrack.events.map(\.tick) == [0, 0, 960])
        #expect(sequence.tracks[0].events.map(\.message) == [.meta(.text(.marker, string: "B"))])
        #expect(sequence.tracks[2].length == 2000)
        #expect(sequence.length == 2000)
        // 960 ticks at 0.6 s/quarter, then 1040 at 1.2 s/quarter.
        #expect(abs(sequence.durationSeconds - (1.2 + 1040.0 / 480 * 1.2)) < 1e-12)
        #expect(sequence.meterMap?.position(atTick: 1440) == BarBeatTick(bar: 2, beat: 1))
    }

    @Test("channels to tracks: a track per channel ascending, then sysex and meta")
    func channelsToTracks() {
        let sequence = MusicSequence(file: Self.twoTrackFile(), layout: .channelsToTracks)
        #expect(sequence.tracks.map(\.channels) == [[0], [4], [9], []])
        #expect(sequence.tracks.map(\.name) == ["Channel 1", "Channel 5", "Channel 10", nil])
        let other: [MIDIMessage] = [
            .meta(.text(.trackName, string: "Keys")), .sysex([0x7E, 0x7F, 0x09, 0x01, 0xF7]), .meta(.text(.marker, string: "B")),
        ]
        #expect(sequence.tracks[3].events.map(\.message) == other)
        #expect(sequence.tracks.reduce(0) { $0 + $1.noteCount } == 3)
        #expect(sequence.tempoMap == MusicSequence(file: Self.twoTrackFile()).tempoMap)
    }

    @Test("format 2: the sequences are laid end to end, each from 120 bpm unless it sets its own")
    func formatTwo() throws {
        let a = MIDIFile.Track(events: [
            MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 1_000_000))),
            MIDIEvent(tick: 96, .noteOn(channel: 0, note: 60, velocity: 1)),
            MIDIEvent(tick: 192, .meta(.endOfTrack)),
        ])
        let b = MIDIFile.Track(events: [MIDIEvent(tick: 96, .noteOn(channel: 0, note: 62, velocity: 1)), MIDIEvent(tick: 192, .meta(.endOfTrack))])
        let file = MIDIFile(format: 2, division: .ticksPerQuarter(96), tracks: [a, b])
        let sequence = MusicSequence(file: file)
        #expect(sequence.tracks[1].events.map(\.tick) == [192 + 96])
        // 2 quarters at 60 bpm then 2 at 120 bpm.
        #expect(sequence.durationSeconds == 3.0)
        #expect(file.durationSeconds == 3.0)
        #expect(sequence.tempoMap.seconds(atTick: 192 + 96) == 2.5)
    }

    @Test("editing: insert keeps time order and insertion order at equal ticks; remove, replace, shift")
    func editing() {
        var track = MusicTrack(name: "T")
        track.insert(MIDIEvent(tick: 100, .noteOn(channel: 0, note: 60, velocity: 1)))
        track.insert(MIDIEvent(tick: 50, .controlChange(channel: 0, controller: 7, value: 100)))
        track.insert(MIDIEvent(tick: 100, .noteOn(channel: 0, note: 64, velocity: 1)))
        track.insert(MIDIEvent(tick: 300, .noteOff(channel: 0, note: 60, velocity: 0)))
        #expect(track.events.map(\.tick) == [50, 100, 100, 300])
        #expect(track.events[2].message == .noteOn(channel: 0, note: 64, velocity: 1))
        #expect(track.length == 300)
        #expect(track.events(in: 100..<300).count == 2)
        #expect(track.events(in: 0..<100).count == 1)
        track.replace(at: 0, with: MIDIEvent(tick: 400, .controlChange(channel: 0, controller: 7, value: 50)))
        #expect(track.events.map(\.tick) == [100, 100, 300, 400])
        track.removeAll { $0.message.isSoundingNoteOn }
        #expect(track.events.map(\.tick) == [300, 400])
        track.shift(by: -350)
        #expect(track.events.map(\.tick) == [0, 50])
        var sequence = MusicSequence()
        let index = sequence.addTrack(track)
        #expect(sequence.tracks[index].name == "T")
        #expect(sequence.removeTrack(at: index).events.count == 2)
        #expect(sequence.tracks.isEmpty)
    }

    @Test("a sequence written as a file reads back as the same sequence")
    func writeAndReload() throws {
        let sequence = MusicSequence(file: Self.twoTrackFile())
        let bytes = sequence.midiFile().serialized()
        let reloaded = MusicSequence(file: try MIDIFile(bytes: bytes, mode: .strict))
        #expect(reloaded.tempoTrack.events == sequence.tempoTrack.events)
        // The tempo track is written as the first chunk, which reloads as an empty track.
        #expect(reloaded.tracks.first?.events == [])
        #expect(Array(reloaded.tracks.dropFirst()) == sequence.tracks)
        #expect(reloaded.durationSeconds == sequence.durationSeconds)
    }

    @Test("songs/ holds exactly what SongBook writes, and each song is what it says", arguments: SongBook.all.map(\.fileName))
    func songs(fileName: String) throws {
        let song = SongBook.all.first { $0.fileName == fileName }!
        let committed = try Data(contentsOf: Self.packageRoot.appendingPathComponent("songs/\(fileName)"))
        let generated = song.midiFile().serialized()
        #expect(Array(committed) == generated, "songs/\(fileName) is stale: run `swift run make-songs`")
        let file = try MIDIFile(bytes: generated, mode: .strict)
        #expect(file.format == song.format)
        let sequence = MusicSequence(file: file)
        // Every note-on has its note-off on the same key and channel, later.
        for track in sequence.tracks {
            var held: [Int: Int] = [:]
            for event in track.events {
                switch event.message {
                case .noteOn(let c, let n, let v) where v > 0: held[Int(c) << 8 | Int(n), default: 0] += 1
                case .noteOff(let c, let n, _), .noteOn(let c, let n, 0): held[Int(c) << 8 | Int(n), default: 0] -= 1
                default: break
                }
            }
            #expect(held.values.allSatisfy { $0 == 0 }, "hanging notes in \(track.name ?? "?")")
        }
    }

    @Test("Ode to Joy: several tracks, drums on channel 10, and a tempo change before the end")
    func odeToJoy() throws {
        let file = try MIDIFile(contentsOf: Self.packageRoot.appendingPathComponent("songs/ode-to-joy.mid").path, mode: .strict)
        let sequence = MusicSequence(file: file)
        #expect(sequence.tracks.count >= 4)
        #expect(sequence.tracks.contains { $0.channels == [9] && $0.noteCount > 100 })
        let bpms = sequence.tempoMap.segments.map(\.beatsPerMinute)
        #expect(bpms.count == 3 && bpms.first! > bpms.last!)
        // 16 bars of 4/4: 14 at 112 bpm, one at 100, one at 80 (tempos in whole µs per quarter).
        let expected = Double(14 * 4 * (60_000_000 / 112) + 4 * 600_000 + 4 * 750_000) / 1_000_000
        #expect(abs(sequence.durationSeconds - expected) < 1e-9)
        #expect(sequence.meterMap?.position(atTick: sequence.length) == BarBeatTick(bar: 17, beat: 1))
    }

    @Test("notation: lengths, dots, chords, rests and drum names")
    func notation() {
        let n = Notation("C4:4 D4:8. r:16 [C3 E3 G3]:2 E4", ticksPerQuarter: 480)
        #expect(n.steps == [
            .init(tick: 0, length: 480, keys: [60]), .init(tick: 480, length: 360, keys: [62]),
            .init(tick: 960, length: 960, keys: [48, 52, 55]), .init(tick: 1920, length: 960, keys: [64]),
        ])
        #expect(n.length == 2880)
        #expect(Notation("[kick hat]:8 snare", ticksPerQuarter: 96, drums: true).steps.map(\.keys) == [[36, 42], [38]])
        #expect(Notation.key("Bb2") == 46 && Notation.key("F#3") == 54 && Notation.key("H2") == nil)
    }
}

@Suite("A sequence at another tempo")
struct StartingAtTempoTests {
    @Test("every tempo scales with the first, whatever shares its tick; a sequence with no tempo at its start gets the scaled 120 bpm there")
    func scales() {
        let tempo = MusicTrack(events: [
            MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 600_000))),
            MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))),
            MIDIEvent(tick: 960, .meta(.tempo(microsecondsPerQuarter: 300_000))),
        ], length: 1920)
        let faster = MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo).startingAtTempo(microsecondsPerQuarter: 400_000)
        #expect(faster.tempoTrack.events == [
            MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 400_000))),
            MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))),
            MIDIEvent(tick: 960, .meta(.tempo(microsecondsPerQuarter: 200_000))),
        ])
        let none = MusicSequence(division: .ticksPerQuarter(480)).startingAtTempo(microsecondsPerQuarter: 250_000)
        #expect(none.tempoTrack.events == [MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 250_000)))])
    }
}
