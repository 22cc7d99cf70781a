import Foundation
import MIDI
import Sequencing
import Testing
import TestSupport

/// One event of an HMP or HMI track, after `delay` ticks.
enum HMIEvent {
    /// HMP: a note-on (its note-off is an event of its own); HMI: a note-on with its duration.
    case noteOn(channel: UInt8, key: UInt8, velocity: UInt8, duration: Int)
    case noteOff(channel: UInt8, key: UInt8)
    case controller(channel: UInt8, UInt8, UInt8)
    case program(channel: UInt8, UInt8)
    /// A loop marker: controller 110 (start) or 111 (end), its value above 127 as in Descent's files.
    case loop(start: Bool)
    /// An HMI `FE` event: `FE 10` with `length` bytes of text, or `FE 15`/`FE 12`.
    case hmiOwn(UInt8, length: Int)
    case marker(String)
    case end

    /// The event's bytes; a note-on carries its duration in HMI.
    func bytes(hmi: Bool) -> [UInt8] {
        switch self {
        case .noteOn(let c, let key, let velocity, let duration): return [0x90 | c, key, velocity] + (hmi ? SMFNumber.bytes(duration) : [])
        case .noteOff(let c, let key): return [0x80 | c, key, 64]
        case .controller(let c, let number, let value): return [0xB0 | c, number, value]
        case .program(let c, let program): return [0xC0 | c, program]
        case .loop(let start): return [0xB0, start ? 110 : 111, 0x80]
        case .hmiOwn(0x10, let length): return [0xFE, 0x10, 0, 0, UInt8(length), 0, 0] + [UInt8](repeating: 0x41, count: length) + [0, 0]
        case .hmiOwn(0x15, _): return [0xFE, 0x15, 0, 0, 0, 0, 0, 0]
        case .hmiOwn(let type, _): return [0xFE, type, 0, 0]
        case .marker(let name): return [0xFF, 0x06] + SMFNumber.bytes(name.utf8.count) + Array(name.utf8)
        case .end: return [0xFF, 0x2F, 0]
        }
    }
}

/// SMF's variable-length numbers, high bits first.
enum SMFNumber {
    static func bytes(_ value: Int) -> [UInt8] {
        var groups = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 { groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
        return groups
    }
}

/// Four bytes, little-endian.
func littleEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }

/// An HMP file written from the format's description (as the Descent source ports and WildMIDI
/// read it): "HMIMIDIP" (then "013195" in the second layout), zeros to byte 32, the file's
/// length, the chunk count at byte 48, the ticks a second at 56, the song's seconds at 60, a
/// table to byte 776 (904); then each chunk: its number, its length with its 12-byte header,
/// its track, and events each after a delta time written low bits first, the last byte's top
/// bit set.
struct HMPFile {
    var variant = false
    var ticksPerSecond = 120
    var tracks: [[(delay: Int, event: HMIEvent)]]

    /// A delta time, low 7 bits first, the top bit marking the last byte.
    static func delta(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.append(UInt8(rest & 0x7F))
            rest >>= 7
        } while rest > 0
        bytes[bytes.count - 1] |= 0x80
        return bytes
    }

    var bytes: [UInt8] {
        let start = variant ? 904 : 776
        let chunks = tracks.enumerated().map { index, events -> [UInt8] in
            let body = events.flatMap { Self.delta($0.delay) + $0.event.bytes(hmi: false) }
            return littleEndian(index) + littleEndian(body.count + 12) + littleEndian(index) + body
        }
        var header = Array("HMIMIDIP".utf8) + (variant ? Array("013195".utf8) : [])
        header += [UInt8](repeating: 0, count: 32 - header.count)
        header += littleEndian(start + chunks.reduce(0) { $0 + $1.count }) + [UInt8](repeating: 0, count: 12)
        header += littleEndian(tracks.count) + littleEndian(0) + littleEndian(ticksPerSecond) + littleEndian(60)
        header += [UInt8](repeating: 0, count: start - header.count)
        return header + chunks.flatMap { $0 }
    }
}

/// An HMI file written from the format's description (as WildMIDI reads it):
/// "HMI-MIDISONG061595", the ticks a second at byte 212, the track count at 228, the table of
/// track offsets at 370; each track "HMI-MIDITRACK" with its header's length at byte 0x57,
/// then events each after an SMF delta time, a note-on followed by its duration.
struct HMIFile {
    var ticksPerSecond: UInt8 = 120
    var tracks: [[(delay: Int, event: HMIEvent)]]
    /// Track header length (at least 0x5B).
    static let trackHeader = 0xC2

    var bytes: [UInt8] {
        var header = Array("HMI-MIDISONG061595".utf8) + [UInt8](repeating: 0, count: 370 - 18)
        header[212] = ticksPerSecond
        header[228] = UInt8(tracks.count)
        var offset = header.count + 4 * tracks.count
        var table: [UInt8] = [], body: [UInt8] = []
        for events in tracks {
            table += littleEndian(offset)
            var track = Array("HMI-MIDITRACK".utf8) + [UInt8](repeating: 0, count: Self.trackHeader - 13)
            track.replaceSubrange(0x57..<0x5B, with: littleEndian(Self.trackHeader))
            track += events.flatMap { SMFNumber.bytes($0.delay) + $0.event.bytes(hmi: true) }
            body += track
            offset += track.count
        }
        return header + table + body
    }
}

@Suite("HMP and HMI (Human Machine Interfaces) songs read into the sequence model")
struct HMPReaderTests {
    static let song: [[(delay: Int, event: HMIEvent)]] = [
        [(0, .marker("Descent")), (0, .end)],
        [(0, .program(channel: 0, 48)), (0, .noteOn(channel: 0, key: 60, velocity: 100, duration: 200)), (0, .loop(start: true)),
         (200, .noteOff(channel: 0, key: 60)), (0, .noteOn(channel: 9, key: 36, velocity: 90, duration: 10)),
         (10, .noteOff(channel: 9, key: 36)), (16_384, .loop(start: false)), (0, .end)],
    ]

    @Test("HMP, both layouts: chunks as tracks, delta times low bits first, the header's ticks a second, loop controllers as loopStart/loopEnd markers")
    func readsHMP() throws {
        for variant in [false, true] {
            let file = try MIDIFile(bytes: HMPFile(variant: variant, ticksPerSecond: 150, tracks: Self.song).bytes, mode: .strict)
            #expect(file.origin == .hmp(variant: variant, ticksPerSecond: 150))
            #expect(file.format == 1 && file.division == .ticksPerQuarter(60) && file.tracks.count == 2)
            #expect(file.tracks[0].events.first == MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 400_000))))   // 60 ticks in 0.4 s
            let events = file.tracks[1].events.map { "\($0.tick) \($0.message)" }
            #expect(events == [
                "0 \(MIDIMessage.programChange(channel: 0, program: 48))",
                "0 \(MIDIMessage.noteOn(channel: 0, note: 60, velocity: 100))",
                "0 \(MIDIMessage.meta(.text(.marker, Array("loopStart".utf8))))",
                "200 \(MIDIMessage.noteOff(channel: 0, note: 60, velocity: 64))",
                "200 \(MIDIMessage.noteOn(channel: 9, note: 36, velocity: 90))",
                "210 \(MIDIMessage.noteOff(channel: 9, note: 36, velocity: 64))",
                "16594 \(MIDIMessage.meta(.text(.marker, Array("loopEnd".utf8))))",
                "16594 \(MIDIMessage.meta(.endOfTrack))",
            ], "variant \(variant)")
            #expect(abs(file.durationSeconds - 16_594.0 / 150) < 1e-9)
            let loop = SongLoop.find(in: MusicSequence(file: file))
            #expect(loop == SongLoop(startTick: 0, endTick: 16_594, count: 0, convention: .markers))
        }
    }

    @Test("HMI: the track table, durations made note-offs, HMI's own FE events skipped, running status")
    func readsHMI() throws {
        let track: [(delay: Int, event: HMIEvent)] = [
            (0, .program(channel: 0, 48)), (0, .hmiOwn(0x12, length: 0)), (0, .hmiOwn(0x15, length: 0)), (0, .hmiOwn(0x10, length: 7)),
            (0, .noteOn(channel: 0, key: 60, velocity: 100, duration: 200)), (0, .noteOn(channel: 0, key: 64, velocity: 80, duration: 100)),
            (0, .loop(start: true)), (200, .noteOn(channel: 9, key: 36, velocity: 90, duration: 10)), (16_394, .loop(start: false)), (0, .end),
        ]
        var bytes = HMIFile(ticksPerSecond: 150, tracks: [Self.song[0], track]).bytes
        // Running status: the second note's status byte left out.
        bytes.remove(at: try #require(bytes.firstRange(of: [0x90, 64, 80] as [UInt8])).lowerBound)
        let file = try MIDIFile(bytes: bytes, mode: .strict)
        #expect(file.origin == .hmi(ticksPerSecond: 150))
        #expect(file.format == 1 && file.division == .ticksPerQuarter(60) && file.tracks.count == 2)
        let notes = MusicTrack(events: file.tracks[1].events).notes.map { "\($0.channel) \($0.key) \($0.velocity) \($0.start)-\($0.end ?? -1)" }
        #expect(notes == ["0 60 100 0-200", "0 64 80 0-100", "9 36 90 200-210"])
        let loop = SongLoop.find(in: MusicSequence(file: file))
        #expect(loop == SongLoop(startTick: 0, endTick: 16_594, count: 0, convention: .markers))
    }
}

extension HMPReaderTests {
    @Test("HMI: time carried by skipped FE events adds up past one delta time (2^28 - 1 ticks); written as SMF the gap is bridged and the note keeps its tick")
    func longGapThroughFEEvents() throws {
        let longest = 0x0FFF_FFFF
        let track: [(delay: Int, event: HMIEvent)] = [
            (longest, .hmiOwn(0x12, length: 0)), (longest, .hmiOwn(0x12, length: 0)),
            (5, .noteOn(channel: 0, key: 60, velocity: 100, duration: 10)), (10, .end),
        ]
        let file = try MIDIFile(bytes: HMIFile(tracks: [Self.song[0], track]).bytes, mode: .strict)
        func notes(_ file: MIDIFile) -> [String] { MusicTrack(events: file.tracks[1].events).notes.map { "\($0.key) \($0.start)-\($0.end ?? -1)" } }
        let start = 2 * longest + 5
        #expect(notes(file) == ["60 \(start)-\(start + 10)"])
        var smf = file
        smf.origin = .standardMIDIFile
        let again = try MIDIFile(bytes: smf.serialized(runningStatus: true), mode: .strict)
        #expect(notes(again) == notes(file))
        let bridges = again.tracks[1].events.filter { $0.message == .meta(.text(.text, [])) }.map(\.tick)
        #expect(bridges == [longest, 2 * longest])
    }
}

extension HMPReaderTests {
    /// Seeded tracks: notes on all 16 channels with controllers, programs and delays of up to
    /// three bytes. HMP notes end with note-offs of their own; HMI notes carry durations, of at
    /// least a tick and never over a note on the same key of the same track still sounding
    /// (WildMIDI keeps one duration per key and track, and ends a 0-tick note on the wrong key).
    static func generated(seed: UInt64, tracks: Int, hmi: Bool) -> [[(delay: Int, event: HMIEvent)]] {
        var random = SplitMix(seed: seed)
        let tracks: [[(delay: Int, event: HMIEvent)]] = [[(0, .marker("conductor")), (0, .end)]] + (0..<tracks).map { _ in
            var events: [(delay: Int, event: HMIEvent)] = []
            var tick = 0
            var sounding: [Int: Int] = [:]   // key → end tick (HMI) or channel (HMP, one at a time per key)
            for _ in 0..<300 {
                let channel = UInt8.random(in: 0...15, using: &random)
                let delay = [0, 0, 1, 30, 127, 128, 300, 20_000][Int.random(in: 0..<8, using: &random)]
                tick += delay
                let key = Int.random(in: 30...90, using: &random)
                switch Int.random(in: 0..<8, using: &random) {
                case 0..<5:
                    let velocity = UInt8.random(in: 1...127, using: &random)
                    if hmi {
                        guard (sounding[key] ?? 0) <= tick else { events.append((delay, .program(channel: channel, 0))); continue }
                        let duration = [1, 60, 127, 128, 1_000, 20_000][Int.random(in: 0..<6, using: &random)]
                        sounding[key] = tick + duration
                        events.append((delay, .noteOn(channel: channel, key: UInt8(key), velocity: velocity, duration: duration)))
                    } else if let on = sounding.removeValue(forKey: key) {
                        events.append((delay, .noteOff(channel: UInt8(on), key: UInt8(key))))
                    } else {
                        sounding[key] = Int(channel)
                        events.append((delay, .noteOn(channel: channel, key: UInt8(key), velocity: velocity, duration: 0)))
                    }
                case 5:
                    events.append((delay, .program(channel: channel, UInt8.random(in: 0...127, using: &random))))
                default:
                    events.append((delay, .controller(channel: channel, UInt8.random(in: 1...100, using: &random), UInt8.random(in: 0...127, using: &random))))
                }
            }
            if !hmi { events += sounding.sorted { $0.key < $1.key }.map { (0, .noteOff(channel: UInt8($0.value), key: UInt8($0.key))) } }
            return events + [(hmi ? 20_001 : 0, .end)]
        }
        // Every track ends at the same tick: WildMIDI loses the time from a track's End of
        // Track to the next event of the others (`wildmidiDropsTimeAfterATrackEnds`).
        let ends = tracks.map { $0.reduce(0) { $0 + $1.delay } }
        return tracks.enumerated().map { index, events in
            var padded = events
            padded[padded.count - 1].delay += ends.max()! - ends[index]
            return padded
        }
    }

    @Test("libWildMidi's own reading makes the same notes, HMP (both layouts) and HMI: channel, key, velocity, start and end")
    func againstWildMIDI() throws {
        try #require(WildMIDI.Library.available, "install libwildmidi2 (the README's setup does, with wildmidi)")
        let folder = try WildMIDI.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files: [(String, [UInt8])] = [
            ("one.hmp", HMPFile(tracks: Self.generated(seed: 1, tracks: 3, hmi: false)).bytes),
            ("two.hmp", HMPFile(variant: true, ticksPerSecond: 140, tracks: Self.generated(seed: 2, tracks: 5, hmi: false)).bytes),
            ("three.hmi", HMIFile(tracks: Self.generated(seed: 3, tracks: 4, hmi: true)).bytes),
        ]
        for (name, bytes) in files {
            let (ours, converted) = try WildMIDI.Library.convert(bytes, named: name, in: folder)
            let theirs = try #require(converted, "libWildMidi refused \(name)")
            #expect(theirs.division == .ticksPerQuarter(60), "\(name)")
            // WildMIDI writes one track: the notes are compared as the synthesizer hears them,
            // every track's events merged in time order (a note-off ends the channel's key,
            // whichever track it is on).
            func notes(_ file: MIDIFile) -> [NoteSpan] {
                let merged = file.tracks.enumerated().flatMap { track, chunk in chunk.events.enumerated().map { (track, $0.offset, $0.element) } }
                    .sorted { ($0.2.tick, $0.0, $0.1) < ($1.2.tick, $1.0, $1.1) }.map(\.2)
                return MusicTrack(events: merged).notes.sorted { ($0.start, $0.channel, $0.key) < ($1.start, $1.channel, $1.key) }
            }
            let mine = notes(ours), wild = notes(theirs)
            #expect(mine.count > 300 && mine.count == wild.count, "\(name): \(mine.count) against \(wild.count)")
            for (a, b) in zip(mine, wild) where !(a.channel == b.channel && a.key == b.key && a.velocity == b.velocity && a.start == b.start && a.end == b.end) {
                Issue.record("\(name): \(a) against WildMIDI's \(b)")
                break
            }
        }
    }
}

extension HMPReaderTests {
    @Test("the one difference from libWildMidi, explained: it loses the time from a track's End of Track to the next event of the others; here each track keeps its own time")
    func wildmidiDropsTimeAfterATrackEnds() throws {
        try #require(WildMIDI.Library.available, "install libwildmidi2 (the README's setup does, with wildmidi)")
        let folder = try WildMIDI.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let short: [(delay: Int, event: HMIEvent)] = [(0, .noteOn(channel: 0, key: 60, velocity: 100, duration: 0)), (100, .noteOff(channel: 0, key: 60)), (0, .end)]
        let long: [(delay: Int, event: HMIEvent)] = [(0, .noteOn(channel: 1, key: 64, velocity: 100, duration: 0)), (50, .noteOff(channel: 1, key: 64)),
                                                      (450, .noteOn(channel: 1, key: 67, velocity: 100, duration: 0)), (100, .noteOff(channel: 1, key: 67)), (0, .end)]
        let (ours, converted) = try WildMIDI.Library.convert(HMPFile(tracks: [short, long]).bytes, named: "ends.hmp", in: folder)
        let theirs = try #require(converted)
        func starts(_ file: MIDIFile) -> [Int] {
            file.tracks.flatMap { MusicTrack(events: $0.events).notes }.filter { $0.key == 67 }.map(\.start)
        }
        #expect(starts(ours) == [500])
        #expect(starts(theirs) == [100], "the 400 ticks after the first track's end at 100 are lost")
    }
}

extension HMPReaderTests {
    @Test("defects: strict reading refuses each with its byte; lenient reading keeps what comes before it")
    func defects() throws {
        let hmp = HMPFile(tracks: Self.song).bytes
        var absurd = hmp
        absurd.replaceSubrange(48..<52, with: littleEndian(1_000_000))
        let room = (hmp.count - 776) / 12
        let secondChunk = 776 + Int(hmp[780])   // after the conductor chunk, of the length at its byte 4
        let hmi = HMIFile(tracks: [Self.song[0], [(0, .noteOn(channel: 0, key: 60, velocity: 100, duration: 60)), (60, .noteOn(channel: 0, key: 62, velocity: 100, duration: 60)), (60, .end)]]).bytes
        var lost = hmi
        lost.replaceSubrange(374..<378, with: littleEndian(99_999))
        let cases: [DefectCase] = [
            ("an HMP at 2 ticks a second", HMPFile(ticksPerSecond: 2, tracks: Self.song).bytes, "byte 56: HMP: 2 ticks a second is not a tempo (4 to 10000)", 2),
            ("an HMP header cut short", Array(hmp.prefix(100)), "byte 0: HMP: the file ends inside the HMP header (size 100, the header is 776 bytes)", nil),
            ("an HMP with an absurd track count", absurd, "byte 48: HMP: the header claims 1000000 tracks; the file has room for at most \(room)", 2),
            ("an HMP cut inside its last chunk", Array(hmp.dropLast(5)),
             "byte \(secondChunk + 4), track 2: HMP: the chunk claims \(hmp.count - secondChunk) bytes (with its 12-byte header); \(hmp.count - secondChunk - 5) are left in the file", 2),
            ("an HMI track outside the file", lost, "byte 374, track 2: HMI: the track table points at byte 99999, where no 'HMI-MIDITRACK' header is", 0),
            ("an HMI cut inside a note", Array(hmi.dropLast(6)), "byte \(hmi.count - 8), track 2: HMI: the track ends inside an event", 1),
        ]
        try expectDefects(cases)
    }
}
