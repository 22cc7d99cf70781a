import Foundation
import MIDI
import Sequencing
import Testing
import TestSupport

/// An XMI file written from the format's description: IFF chunks (big-endian lengths, bodies
/// padded to even); `FORM XDIR` with an `INFO` sequence count, then `CAT XMID` of one
/// `FORM XMID` per sequence, each with its `EVNT` chunk (or a lone `FORM XMID`). In EVNT an
/// interval is a run of bytes below 0x80 that add up; a note-on carries its duration.
struct XMIFile {
    /// One event, after an interval of `delay` ticks.
    enum Event {
        case note(channel: UInt8, key: UInt8, velocity: UInt8, duration: Int)
        case controller(channel: UInt8, UInt8, UInt8)
        case program(channel: UInt8, UInt8)
        case tempo(Int)
        case marker(String)
        case end
    }

    var sequences: [[(delay: Int, event: Event)]]
    var directory = true

    /// A variable-length number.
    static func number(_ value: Int) -> [UInt8] {
        var groups = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 { groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
        return groups
    }

    /// An IFF chunk.
    static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        let n = body.count
        return Array(id.utf8) + [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + body + (n & 1 == 1 ? [0] : [])
    }

    /// One sequence's EVNT body.
    static func evnt(_ events: [(delay: Int, event: Event)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (delay, event) in events {
            var rest = delay
            while rest > 127 { bytes.append(127); rest -= 127 }
            if rest > 0 { bytes.append(UInt8(rest)) }
            switch event {
            case .note(let c, let key, let velocity, let duration): bytes += [0x90 | c, key, velocity] + number(duration)
            case .controller(let c, let number, let value): bytes += [0xB0 | c, number, value]
            case .program(let c, let program): bytes += [0xC0 | c, program]
            case .tempo(let t): bytes += [0xFF, 0x51, 3, UInt8(t >> 16 & 0xFF), UInt8(t >> 8 & 0xFF), UInt8(t & 0xFF)]
            case .marker(let name): bytes += [0xFF, 0x06] + number(name.utf8.count) + Array(name.utf8)
            case .end: bytes += [0xFF, 0x2F, 0]
            }
        }
        return bytes
    }

    /// The whole file.
    var bytes: [UInt8] {
        let forms = sequences.map { Self.chunk("FORM", Array("XMID".utf8) + Self.chunk("EVNT", Self.evnt($0))) }
        guard directory else { return forms[0] }
        let count = sequences.count
        return Self.chunk("FORM", Array("XDIR".utf8) + Self.chunk("INFO", [UInt8(count & 0xFF), UInt8(count >> 8)]))
            + Self.chunk("CAT ", Array("XMID".utf8) + forms.flatMap { $0 })
    }
}

@Suite("XMI (Miles Sound System) files read into the sequence model")
struct XMIReaderTests {
    @Test("sequences written from the format's description read as their notes (durations made note-offs), intervals, controllers and loops, at 120 ticks a second")
    func reads() throws {
        let first: [(delay: Int, event: XMIFile.Event)] = [
            (0, .tempo(600_000)),                                   // dropped: AIL keeps 120 ticks a second
            (0, .program(channel: 0, 48)),
            (0, .note(channel: 0, key: 60, velocity: 100, duration: 200)),
            (0, .controller(channel: 0, 116, 0)),                   // FOR, forever
            (200, .marker("verse")),                                // a two-byte interval
            (0, .note(channel: 9, key: 36, velocity: 90, duration: 10)),
            (60, .controller(channel: 0, 117, 127)),                // NEXT
            (0, .end),
        ]
        let second: [(delay: Int, event: XMIFile.Event)] = [(0, .note(channel: 1, key: 64, velocity: 80, duration: 120)), (120, .end)]
        let file = try MIDIFile(bytes: XMIFile(sequences: [first, second]).bytes, mode: .strict)
        #expect(file.format == 2 && file.division == .ticksPerQuarter(60) && file.tracks.count == 2)
        #expect(file.origin == .xmi(sequences: 2))
        let events = file.tracks[0].events.map { "\($0.tick) \($0.message)" }
        #expect(events == [
            "0 \(MIDIMessage.meta(.tempo(microsecondsPerQuarter: 500_000)))",
            "0 \(MIDIMessage.programChange(channel: 0, program: 48))",
            "0 \(MIDIMessage.noteOn(channel: 0, note: 60, velocity: 100))",
            "0 \(MIDIMessage.controlChange(channel: 0, controller: 116, value: 0))",
            "200 \(MIDIMessage.noteOff(channel: 0, note: 60, velocity: 0))",
            "200 \(MIDIMessage.meta(.text(.marker, Array("verse".utf8))))",
            "200 \(MIDIMessage.noteOn(channel: 9, note: 36, velocity: 90))",
            "210 \(MIDIMessage.noteOff(channel: 9, note: 36, velocity: 0))",
            "260 \(MIDIMessage.controlChange(channel: 0, controller: 117, value: 127))",
            "260 \(MIDIMessage.meta(.endOfTrack))",
        ])
        #expect(file.tracks[1].events.last == MIDIEvent(tick: 120, .meta(.endOfTrack)))
        // Format 2: the second sequence after the first, each at 120 ticks a second.
        #expect(abs(file.durationSeconds - (260.0 + 120.0) / 120) < 1e-9)
        let loop = SongLoop.find(in: MusicSequence(file: try MIDIFile(bytes: XMIFile(sequences: [first]).bytes, mode: .strict)))
        #expect(loop == SongLoop(startTick: 0, endTick: 260, count: 0, convention: .emidi))
        // A lone FORM XMID is one sequence, format 0.
        let lone = try MIDIFile(bytes: XMIFile(sequences: [second], directory: false).bytes, mode: .strict)
        #expect(lone.format == 0 && lone.tracks.count == 1 && lone.noteCount == 1)
    }

    @Test("defects: strict reading refuses each with its byte; lenient reading keeps what comes before it")
    func defects() throws {
        let song: [(delay: Int, event: XMIFile.Event)] = [(0, .note(channel: 0, key: 60, velocity: 100, duration: 30)), (30, .note(channel: 0, key: 62, velocity: 100, duration: 30)), (30, .end)]
        let whole = XMIFile(sequences: [song]).bytes
        let directory = XMIFile.chunk("FORM", Array("XDIR".utf8) + XMIFile.chunk("INFO", [1, 0])).count   // CAT starts here
        var promised = whole
        promised[20] = 3                                            // INFO: 3 sequences
        let noEnd = XMIFile(sequences: [Array(song.dropLast())]).bytes
        let cases: [DefectCase] = [
            ("cut inside the EVNT chunk", Array(whole.dropLast(5)),
             "byte \(directory + 4): XMI: chunk 'CAT ' claims \(whole.count - directory - 8) bytes, past the end of what holds it (byte \(whole.count - 5))", 2),
            ("XDIR promises 3", promised, "byte 20: XMI: XDIR promises 3 sequences, the file holds 1", 2),
            ("no End of Track", noEnd, "byte \(noEnd.count - XMIFile.evnt(Array(song.dropLast())).count % 2): XMI: sequence 1: no End of Track", 2),
        ]
        try expectDefects(cases)
    }

    /// Seeded sequences: notes of every length on all 16 channels, overlapping and retriggered,
    /// controllers, programs, intervals of up to four bytes (as WildMIDI's reader takes them).
    static func generated(seed: UInt64, sequences: Int) -> XMIFile {
        var random = SplitMix(seed: seed)
        return XMIFile(sequences: (0..<sequences).map { _ in
            var events: [(delay: Int, event: XMIFile.Event)] = [(0, .tempo(500_000))]
            for _ in 0..<400 {
                let channel = UInt8.random(in: 0...15, using: &random)
                let delay = [0, 0, 1, 30, 127, 128, 300, 500][Int.random(in: 0..<8, using: &random)]
                switch Int.random(in: 0..<8, using: &random) {
                case 0..<5:
                    let duration = [0, 1, 60, 127, 128, 1_000, 20_000][Int.random(in: 0..<7, using: &random)]
                    events.append((delay, .note(channel: channel, key: UInt8.random(in: 30...90, using: &random), velocity: UInt8.random(in: 1...127, using: &random), duration: duration)))
                case 5:
                    events.append((delay, .program(channel: channel, UInt8.random(in: 0...127, using: &random))))
                default:
                    events.append((delay, .controller(channel: channel, UInt8.random(in: 1...100, using: &random), UInt8.random(in: 0...127, using: &random))))
                }
            }
            return events + [(0, .end)]
        })
    }

    @Test("WildMIDI's converter (wildmidi -x) makes the same notes, sequence by sequence: channel, key, velocity, start and end")
    func againstWildMIDI() throws {
        try #require(WildMIDI.installed, "install wildmidi (the README's setup does)")
        let folder = try WildMIDI.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (seed, count) in [(UInt64(1), 1), (2, 3), (3, 2)] {
            let (ours, converted) = try WildMIDI.convert(Self.generated(seed: seed, sequences: count).bytes, named: "song-\(seed).xmi", in: folder)
            let theirs = try #require(converted, "wildmidi -x failed on seed \(seed)")
            #expect(ours.tracks.count == count && theirs.tracks.count == count, "seed \(seed)")
            // WildMIDI's ticks are three of ours: it counts every interval and duration three
            // times over, at a division of 180 from the file's first tempo (500,000 µs).
            #expect(theirs.division == .ticksPerQuarter(180), "seed \(seed)")
            // The one difference, explained: a note whose duration runs past its sequence's End
            // of Track has no note-off in WildMIDI's file (it stops writing at End of Track, and
            // the note hangs); here the note-off is kept and End of Track moves after it.
            var explained = 0
            for (mine, wild) in zip(ours.tracks, theirs.tracks) {
                let myNotes = MusicTrack(events: mine.events).notes, wildNotes = MusicTrack(events: wild.events).notes
                let wildEnd = wild.events.last?.tick ?? 0
                #expect(myNotes.count > 200 && myNotes.count == wildNotes.count, "seed \(seed)")
                for (a, b) in zip(myNotes, wildNotes) {
                    let same = a.channel == b.channel && a.key == b.key && a.velocity == b.velocity && a.start * 3 == b.start
                    let hung = b.end == nil && a.end.map { $0 * 3 > wildEnd } == true
                    #expect(same && (a.end.map { $0 * 3 } == b.end || hung), "seed \(seed): \(a) (×3) against WildMIDI's \(b)")
                    if hung { explained += 1 }
                }
                #expect(mine.events.last!.tick * 3 >= wildEnd, "seed \(seed)")
            }
            #expect(explained > 0, "seed \(seed): a note ran past End of Track")
        }
    }
}
