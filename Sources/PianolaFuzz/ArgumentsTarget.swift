import MIDI
import PianolaCommands
import Sequencing

/// `pianola` command lines: the input's bytes split at each NUL into arguments, parsed and
/// checked as the command would before it touches a file or a device.
enum ArgumentsTarget {
    /// The song options are checked against: 8 bars of 3/4 at 120 bpm on two tracks.
    static let song: MusicSequence = {
        var sequence = MusicSequence(division: .ticksPerQuarter(480))
        sequence.tempoTrack.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))))
        sequence.tempoTrack.insert(MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(3, 4)))))
        for channel in 0..<2 {
            var track = MusicTrack(name: "Part \(channel + 1)")
            for beat in 0..<24 {
                track.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: MIDIChannel(channel), note: 60, velocity: 90)))
                track.insert(MIDIEvent(tick: beat * 480 + 240, .noteOff(channel: MIDIChannel(channel), note: 60, velocity: 0)))
            }
            sequence.tracks.append(track)
        }
        return sequence
    }()

    static func run(_ bytes: [UInt8]) {
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        _ = try? PianolaCommand.checkOptions(arguments, against: song)
    }

    /// Command lines from the README and the tests, and some near misses.
    static func seeds() -> [(String, [UInt8])] {
        let lines = [
            ["render", "song.mid", "-o", "song.wav", "--from", "2:1", "--to", "12.5", "--tempo", "90", "--transpose", "-3"],
            ["render", "song.mid", "-o", "song.flac", "--with", "drums.wav@3:1", "--mute", "2", "3", "--solo", "1", "--loop", "2"],
            ["render", "song.mid", "--output", "x.ogg", "--bits", "24", "--tail", "0.5", "--stems", "out", "--sample-rate", "44100"],
            ["play", "a.mid", "b.mid", "--route", "ch10=synth", "--route", "track2/ch1-9,ch11-16=24:0", "--period", "256"],
            ["play", "song.mid", "--port", "Midi Through", "--gain", "0.5", "--reverb", "off", "--polyphony", "64"],
            ["record", "take.mid", "--port", "20:0", "--play", "song.mid", "--route", "track1=synth", "--duration", "30"],
            ["record", "take.mid", "--port", "20:0", "--tempo", "97.5", "--ppq", "960"],
            ["render", "song.mid", "-o", "x.wav", "--from", "9223372036854775807:1"],
            ["info", "song.mid", "--json"],
            ["ports"], ["devices"], ["--version"],
        ]
        return lines.enumerated().map { ("line\($0.offset)", Array($0.element.joined(separator: "\0").utf8)) }
    }
}
