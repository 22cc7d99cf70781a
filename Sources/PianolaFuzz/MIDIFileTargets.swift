import MIDI
import Sequencing

/// The SMF reader and what a read file becomes.
enum MIDIFileTargets {
    /// Every input is read in both modes; whatever strict mode reads must survive a write and
    /// read back equal.
    static func smf(_ bytes: [UInt8]) {
        if let lenient = try? MIDIFile(bytes: bytes, mode: .lenient) {
            _ = lenient.durationSeconds
            _ = lenient.serialized(runningStatus: true)
        }
        if var strict = try? MIDIFile(bytes: bytes, mode: .strict) {
            strict.origin = .standardMIDIFile   // what it is written as
            for runningStatus in [true, false] {
                let again = try? MIDIFile(bytes: strict.serialized(runningStatus: runningStatus), mode: .strict)
                precondition(again == strict, "strict read(write(x)) != x")
            }
        }
    }

    /// Bytes after a MUS header's magic, read as a MUS score both ways, then as `smf` and
    /// `sequence` do: what strict reading makes survives a write as an SMF and a read back.
    static func mus(_ bytes: [UInt8]) {
        let file = [0x4D, 0x55, 0x53, 0x1A] + bytes
        smf(file)
        sequence(file)
    }

    /// A small score: header (score of 13 bytes at byte 18, one instrument), a program, a
    /// note with its volume and a delay, a bend, its release, the end.
    static func musSeeds() -> [(String, [UInt8])] {
        [("mus-score", [13, 0, 18, 0, 1, 0, 0, 0, 1, 0, 0, 0, 19, 0,
                        0x40, 0, 19, 0x90, 0xBC, 100, 0x81, 0x0C, 0x22, 200, 0x00, 60, 0x60])]
    }

    /// A leniently read file as a MusicSequence both ways: both layouts hold the same channel
    /// messages, and each becomes a Score (every event on a sample frame) without trapping.
    static func sequence(_ bytes: [UInt8]) {
        guard let file = try? MIDIFile(bytes: bytes, mode: .lenient) else { return }
        let byTrack = MusicSequence(file: file)
        let byChannel = MusicSequence(file: file, layout: .channelsToTracks)
        precondition(channelMessages(byTrack) == channelMessages(byChannel), "the layouts disagree on channel messages")
        for sequence in [byTrack, byChannel] {
            let score = Score(sequence, sampleRate: 48_000)
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
