import Foundation
import MIDI
import Sequencing
import Testing
import TestSupport

/// A MUS file written from the format's description (the header, then one byte per event —
/// last-flag, type, channel — its data bytes, and after an event with the flag a delay in
/// 7-bit groups, most significant first).
struct MUSScore {
    /// One event and the delay in ticks after it (0: none, the flag clear).
    enum Event {
        case release(channel: UInt8, key: UInt8)
        case play(channel: UInt8, key: UInt8, volume: UInt8?)
        case bend(channel: UInt8, UInt8)
        case system(channel: UInt8, UInt8)
        case controller(channel: UInt8, UInt8, UInt8)
        case measureEnd
        case end
    }

    var events: [(Event, delay: Int)] = []
    var instruments: [UInt16] = [0]
    var primaryChannels: UInt16 = 8

    /// The event bytes.
    var score: [UInt8] {
        var bytes: [UInt8] = []
        for (event, delay) in events {
            let flag: UInt8 = delay > 0 ? 0x80 : 0
            switch event {
            case .release(let c, let key): bytes += [flag | c, key]
            case .play(let c, let key, let volume): bytes += [flag | 0x10 | c] + (volume.map { [key | 0x80, $0] } ?? [key])
            case .bend(let c, let value): bytes += [flag | 0x20 | c, value]
            case .system(let c, let value): bytes += [flag | 0x30 | c, value]
            case .controller(let c, let number, let value): bytes += [flag | 0x40 | c, number, value]
            case .measureEnd: bytes += [flag | 0x50]
            case .end: bytes += [flag | 0x60]
            }
            if delay > 0 {
                var groups = [UInt8(delay & 0x7F)]
                var rest = delay >> 7
                while rest > 0 { groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
                bytes += groups
            }
        }
        return bytes
    }

    /// The whole file.
    var bytes: [UInt8] {
        let score = self.score
        let start = 16 + 2 * instruments.count
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        return Array("MUS".utf8) + [0x1A] + le16(score.count) + le16(start) + le16(Int(primaryChannels)) + le16(0)
            + le16(instruments.count) + le16(0) + instruments.flatMap { le16(Int($0)) } + score
    }
}

@Suite("MUS (Doom) scores read into the sequence model")
struct MUSReaderTests {
    @Test("a score written from the format's description reads as its notes, controllers and delays, at 140 ticks a second")
    func reads() throws {
        var score = MUSScore()
        score.instruments = [19, 135]
        score.events = [
            (.controller(channel: 3, 0, 19), 0),                    // program on MUS 3: the first channel used → MIDI 0
            (.play(channel: 3, key: 60, volume: 100), 0),
            (.play(channel: 15, key: 36, volume: 90), 70),          // percussion → MIDI 9
            (.release(channel: 3, key: 60), 0),
            (.release(channel: 15, key: 36), 200),                  // a two-byte delay
            (.bend(channel: 3, 200), 0),
            (.controller(channel: 3, 3, 200), 0),                   // volume, clamped to 127
            (.system(channel: 3, 11), 0),                           // all notes off
            (.measureEnd, 0),
            (.play(channel: 0, key: 64, volume: nil), 35),          // MUS 0, used second → MIDI 1, volume 127
            (.play(channel: 3, key: 67, volume: nil), 10),          // keeps MUS 3's 100
            (.end, 0),
        ]
        let file = try MIDIFile(bytes: score.bytes, mode: .strict)
        #expect(file.format == 0 && file.division == .ticksPerQuarter(70) && file.tracks.count == 1)
        #expect(file.origin == .mus(instruments: [19, 135], scoreBytes: score.score.count))
        let channel = file.tracks[0].events.filter { $0.message.channel != nil }.map { "\($0.tick) \($0.message)" }
        #expect(channel == [
            "0 \(MIDIMessage.controlChange(channel: 9, controller: 7, value: 127))",
            "0 \(MIDIMessage.controlChange(channel: 0, controller: 7, value: 127))",
            "0 \(MIDIMessage.programChange(channel: 0, program: 19))",
            "0 \(MIDIMessage.noteOn(channel: 0, note: 60, velocity: 100))",
            "0 \(MIDIMessage.noteOn(channel: 9, note: 36, velocity: 90))",
            "70 \(MIDIMessage.noteOff(channel: 0, note: 60, velocity: 64))",
            "70 \(MIDIMessage.noteOff(channel: 9, note: 36, velocity: 64))",
            "270 \(MIDIMessage.pitchBend(channel: 0, value: 200 << 6))",
            "270 \(MIDIMessage.controlChange(channel: 0, controller: 7, value: 127))",
            "270 \(MIDIMessage.controlChange(channel: 0, controller: 123, value: 0))",
            "270 \(MIDIMessage.controlChange(channel: 1, controller: 7, value: 127))",
            "270 \(MIDIMessage.noteOn(channel: 1, note: 64, velocity: 127))",
            "305 \(MIDIMessage.noteOn(channel: 0, note: 67, velocity: 100))",
        ])
        #expect(file.tracks[0].events.last == MIDIEvent(tick: 315, .meta(.endOfTrack)))
        #expect(abs(file.durationSeconds - 315.0 / 140) < 1e-9)
    }

    @Test("defects: strict reading refuses each with its byte; lenient reading keeps what comes before it")
    func defects() throws {
        var score = MUSScore()
        score.events = [(.play(channel: 0, key: 60, volume: 100), 140), (.release(channel: 0, key: 60), 0), (.end, 0)]
        let whole = score.bytes
        let cases: [DefectCase] = [
            ("truncated header", Array(whole.prefix(10)), "byte 0: MUS: the file ends inside the MUS header (size 10, the header is 16 bytes)", nil),
            ("score past the lump", Array(whole.dropLast(3)), "byte 4: MUS: the score claims \(score.score.count) bytes from byte 18, past the end of the file (size \(whole.count - 3))", 1),
            ("no end event", MUSScore(events: Array(score.events.dropLast()), instruments: [0]).bytes, "byte \(whole.count - 1): MUS: the score has no end event", 1),
            ("unknown controller", MUSScore(events: [(.controller(channel: 0, 12, 0), 0), (.end, 0)], instruments: [0]).bytes, "byte 18: MUS: controller 12 is not one of MUS's (0–9)", 0),
            ("event type 7", { var b = MUSScore(events: [(.play(channel: 0, key: 60, volume: 1), 0)], instruments: [0]).bytes + [0x70]; b[4] += 1; return b }(),
             "byte 21: MUS: event type 7 is not a MUS event", 1),
            ("score inside the instruments", { var b = whole; b[6] = 10; return b }(), "byte 6: MUS: the score starts at byte 10, inside the list of 1 instruments that ends at byte 18", nil),
        ]
        try expectDefects(cases)
    }

    /// A seeded score over all 16 MUS channels: notes held and overlapping, volumes now and
    /// then, bends, controllers, delays of one to three bytes.
    static func generatedScore(seed: UInt64) -> MUSScore {
        var random = SplitMix(seed: seed)
        var score = MUSScore()
        var held: [(channel: UInt8, key: UInt8)] = []
        for channel in UInt8(0)...15 where channel != 7 {           // MUS 7 plays without ever setting a volume
            score.events.append((.controller(channel: channel, 0, UInt8.random(in: 0...127, using: &random)), 0))
        }
        for _ in 0..<600 {
            let channel = UInt8.random(in: 0...15, using: &random)
            let delay = [0, 0, 1, 7, 35, 140, 300, 20_000][Int.random(in: 0..<8, using: &random)]
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let key = UInt8.random(in: 24...100, using: &random)
                let volume: UInt8? = channel != 7 && Bool.random(using: &random) ? UInt8.random(in: 1...127, using: &random) : nil
                score.events.append((.play(channel: channel, key: key, volume: volume), delay))
                held.append((channel, key))
            case 5..<8 where !held.isEmpty:
                let note = held.remove(at: Int.random(in: 0..<held.count, using: &random))
                score.events.append((.release(channel: note.channel, key: note.key), delay))
            case 8:
                score.events.append((.bend(channel: channel, UInt8.random(in: 0...255, using: &random)), delay))
            default:
                score.events.append((.controller(channel: channel, UInt8.random(in: 2...9, using: &random), UInt8.random(in: 0...127, using: &random)), delay))
            }
        }
        for note in held { score.events.append((.release(channel: note.channel, key: note.key), 0)) }
        score.events.append((.end, 0))
        return score
    }

    @Test("WildMIDI's converter (wildmidi -x) makes the same notes of generated scores: channel, key, velocity, start and end tick")
    func againstWildMIDI() throws {
        try #require(WildMIDI.installed, "install wildmidi (the README's setup does)")
        let folder = try WildMIDI.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for seed in UInt64(1)...4 {
            let (read, converted) = try WildMIDI.convert(Self.generatedScore(seed: seed).bytes, named: "song-\(seed).mus", in: folder)
            let ours = MusicSequence(file: read).tracks.flatMap(\.notes)
            let theirs = MusicSequence(file: try #require(converted, "wildmidi -x failed on seed \(seed)")).tracks.flatMap(\.notes)
            #expect(ours.count > 200 && ours.count == theirs.count, "seed \(seed)")
            // WildMIDI's ticks are MUS ticks too (division 257, and a tempo whose bytes it writes
            // reversed: 1,805,830 µs a quarter, 142.3 ticks a second, where MUS plays 140).
            // The one difference, explained: a note played before its channel ever set a volume
            // has velocity 127 here (DMX's and Chocolate Doom's start) and 64 in WildMIDI's.
            var explained = 0
            for (mine, wild) in zip(ours, theirs) {
                let same = mine.channel == wild.channel && mine.key == wild.key && mine.start == wild.start && mine.end == wild.end
                #expect(same, "seed \(seed): \(mine) against WildMIDI's \(wild)")
                if mine.velocity != wild.velocity {
                    #expect(mine.velocity == 127 && wild.velocity == 64, "seed \(seed): \(mine) against WildMIDI's \(wild)")
                    explained += 1
                }
            }
            #expect(explained > 0, "seed \(seed): the channel that never sets a volume played")
        }
    }
}
