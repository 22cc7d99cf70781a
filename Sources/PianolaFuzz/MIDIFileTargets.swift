import MIDI
import Playback
import Sequencing

/// The SMF reader and what a read file becomes.
enum MIDIFileTargets {
    /// Every input is read in both modes; whatever strict mode reads must survive a write and
    /// read back equal (but for the empty text events that bridge a gap too long for one delta).
    static func smf(_ bytes: [UInt8]) {
        if let lenient = try? MIDIFile(bytes: bytes, mode: .lenient) {
            _ = lenient.durationSeconds
            _ = lenient.serialized(runningStatus: true)
        }
        if var strict = try? MIDIFile(bytes: bytes, mode: .strict) {
            strict.origin = .standardMIDIFile   // what it is written as
            for runningStatus in [true, false] {
                let again = try? MIDIFile(bytes: strict.serialized(runningStatus: runningStatus), mode: .strict)
                require(again.map(withoutBridges) == withoutBridges(strict), "strict read(write(x)) != x")
            }
        }
    }

    /// `file` without empty general-text events, which the writer puts in a gap longer than
    /// a delta time can say (2^28 - 1 ticks: an HMI track's skipped FE events can make one).
    private static func withoutBridges(_ file: MIDIFile) -> MIDIFile {
        var file = file
        for index in file.tracks.indices { file.tracks[index].events.removeAll { $0.message == .meta(.text(.text, [])) } }
        return file
    }

    /// Bytes after a MUS header's magic, read as a MUS score both ways, then as `smf` and
    /// `sequence` do: what strict reading makes survives a write as an SMF and a read back.
    static func mus(_ bytes: [UInt8]) {
        let file = [0x4D, 0x55, 0x53, 0x1A] + bytes
        smf(file)
        sequence(file)
    }

    /// Bytes as an XMI file (the fuzzer keeps its IFF header from the seed), read as `smf`
    /// and `sequence` read.
    static func xmi(_ bytes: [UInt8]) {
        smf(bytes)
        sequence(bytes)
    }

    /// A two-sequence XMI: FORM XDIR (INFO: 2), then CAT XMID holding two FORM XMID, each an
    /// EVNT of a note with its duration, an interval, a loop controller and End of Track.
    static func xmiSeeds() -> [(String, [UInt8])] {
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + [0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body + (body.count & 1 == 1 ? [0] : [])
        }
        let evnt: [UInt8] = [0xC0, 48, 0x90, 60, 100, 0x81, 0x00, 127, 5, 0xB0, 116, 0, 0x90, 64, 90, 60, 60, 0xB0, 117, 127, 0xFF, 0x2F, 0]
        let form = chunk("FORM", Array("XMID".utf8) + chunk("EVNT", evnt))
        return [("xmi-two-sequences", chunk("FORM", Array("XDIR".utf8) + chunk("INFO", [2, 0])) + chunk("CAT ", Array("XMID".utf8) + form + form))]
    }

    /// A small score: header (score of 13 bytes at byte 18, one instrument), a program, a
    /// note with its volume and a delay, a bend, its release, the end.
    static func musSeeds() -> [(String, [UInt8])] {
        [("mus-score", [13, 0, 18, 0, 1, 0, 0, 0, 1, 0, 0, 0, 19, 0,
                        0x40, 0, 19, 0x90, 0xBC, 100, 0x81, 0x0C, 0x22, 200, 0x00, 60, 0x60])]
    }

    /// An HMP file made from the input: its first byte chooses the layout (odd: "013195"),
    /// the next 16 are the header's counts from byte 48 (tracks, ticks a second…), the rest
    /// the chunks; read as `smf` and `sequence` read.
    static func hmp(_ bytes: [UInt8]) {
        let variant = (bytes.first ?? 0) & 1 == 1
        var file = Array("HMIMIDIP".utf8) + (variant ? Array("013195".utf8) : [])
        file += [UInt8](repeating: 0, count: (variant ? 904 : 776) - file.count)
        let counts = Array(bytes.dropFirst().prefix(16))
        file.replaceSubrange(48 ..< 48 + counts.count, with: counts)
        file += bytes.dropFirst(17)
        smf(file)
        sequence(file)
    }

    /// An HMI file made from the input: its first byte the ticks a second, its second the
    /// track count, the rest from byte 370 (the track table, then the tracks); read as `smf`
    /// and `sequence` read.
    static func hmi(_ bytes: [UInt8]) {
        var file = Array("HMI-MIDISONG061595".utf8) + [UInt8](repeating: 0, count: 370 - 18)
        file[212] = bytes.first ?? 0
        file[228] = bytes.dropFirst().first ?? 0
        file += bytes.dropFirst(2)
        smf(file)
        sequence(file)
    }

    /// A two-track HMP (a conductor, then a program, a note, its loop markers and note-off,
    /// delta times low bits first) as `hmp` takes it, in both layouts.
    static func hmpSeeds() -> [(String, [UInt8])] {
        func chunk(_ number: UInt8, _ body: [UInt8]) -> [UInt8] { [number, 0, 0, 0, UInt8(body.count + 12), 0, 0, 0, number, 0, 0, 0] + body }
        let counts: [UInt8] = [2, 0, 0, 0, 0, 0, 0, 0, 120, 0, 0, 0, 2, 0, 0, 0]
        let chunks = chunk(0, [0x80, 0xFF, 0x2F, 0]) + chunk(1, [0x80, 0xC0, 48, 0x80, 0x90, 60, 100, 0x80, 0xB0, 110, 0x80,
                                                                 0x48, 0x81, 0x80, 60, 64, 0x80, 0xB0, 111, 0x80, 0x80, 0xFF, 0x2F, 0])
        return [("hmp", [0] + counts + chunks), ("hmp-013195", [1] + counts + chunks)]
    }

    /// A two-track HMI (a conductor, then a program, a note with its duration, an FE 10
    /// event, a loop marker) as `hmi` takes it.
    static func hmiSeeds() -> [(String, [UInt8])] {
        func track(_ events: [UInt8]) -> [UInt8] { Array("HMI-MIDITRACK".utf8) + [UInt8](repeating: 0, count: 0x57 - 13) + [0x5B, 0, 0, 0] + events }
        let first = track([0, 0xFF, 0x2F, 0])
        let second = track([0, 0xC0, 48, 0, 0x90, 60, 100, 0x81, 0x48, 0, 0xFE, 0x10, 0, 0, 3, 0, 0, 0x41, 0x42, 0x43, 0, 0,
                            0, 0xB0, 110, 0x80, 0x81, 0x48, 0xFF, 0x2F, 0])
        let table = [378, 378 + first.count].flatMap { offset in (0..<4).map { UInt8(offset >> (8 * $0) & 0xFF) } }
        return [("hmi", [120, 2] + table + first + second)]
    }

    /// A leniently read file as a MusicSequence both ways: both layouts hold the same channel
    /// messages, and each becomes a Score (every event on a sample frame) without trapping.
    static func sequence(_ bytes: [UInt8]) {
        guard let file = try? MIDIFile(bytes: bytes, mode: .lenient) else { return }
        let byTrack = MusicSequence(file: file)
        let byChannel = MusicSequence(file: file, layout: .channelsToTracks)
        require(channelMessages(byTrack) == channelMessages(byChannel), "the layouts disagree on channel messages")
        for sequence in [byTrack, byChannel] {
            let score = MusicPlayer.Score(sequence, sampleRate: 48_000)
            _ = score.events.count
            _ = sequence.durationSeconds
            _ = sequence.meterMap?.position(atTick: sequence.length)
            _ = sequence.midiFile().serialized(runningStatus: true)
        }
    }

    /// How many times each channel message occurs at each tick: layouts may reorder tracks.
    private static func channelMessages(_ sequence: MusicSequence) -> [MIDIEvent: Int] {
        var counts: [MIDIEvent: Int] = [:]
        for track in sequence.tracks {
            for event in track.events where event.message.channel != nil { counts[event, default: 0] += 1 }
        }
        return counts
    }
}
