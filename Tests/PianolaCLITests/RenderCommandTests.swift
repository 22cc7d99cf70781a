import Foundation
import Testing
import MIDI

@Suite("pianola render, run as a user runs it")
struct RenderCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let testFont = root.appendingPathComponent("soundfonts/pianola-test.sf2").path

    /// One sine note (A440) from beat 1 for one beat, in a 2-beat song at 120 bpm.
    static func song() -> [UInt8] {
        MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: [
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 69, velocity: 100)),
            MIDIEvent(tick: 480, .noteOff(channel: 0, note: 69, velocity: 0)),
            MIDIEvent(tick: 960, .meta(.endOfTrack)),
        ])]).serialized()
    }

    /// The frames of a 16-bit stereo WAV written by libsndfile (44-byte header), left channel.
    static func wavLeft(_ path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(String(decoding: data[0..<4], as: UTF8.self) == "RIFF" && String(decoding: data[8..<12], as: UTF8.self) == "WAVE")
        let samples = data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
    }

    @Test("renders the song's length plus the release, deterministic to the byte, and never overwrites unasked")
    func renderWav() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let out = scratch.url.appendingPathComponent("out.wav").path
        let run = try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont, "--reverb", "off", "--chorus", "off")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("SoundFont: \(Self.testFont) (--soundfont)"))
        let left = try Self.wavLeft(out)
        // 2 beats = 48,000 frames of music, then the tail stops once the voice has died.
        #expect(left.count >= 48_000 && left.count <= 48_000 + 4_096 * 2, "\(left.count) frames")
        let loud = left.indices.filter { abs(Int(left[$0])) > 100 }
        #expect(loud.first! < 64 && abs(loud.last! - 24_000) < 1_000)

        let again = scratch.url.appendingPathComponent("again.wav").path
        _ = try CLIRun.pianola("render", song, "-o", again, "--soundfont", Self.testFont, "--reverb", "off", "--chorus", "off")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: URL(fileURLWithPath: again)))

        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        let refused = try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont)
        #expect(refused.status == 1)
        #expect(refused.stderr == "pianola: \(out): already exists (use --force to replace it)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
        let forced = try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont, "--force", "--loop", "3", "--tail", "0")
        #expect(forced.status == 0)
        #expect(try Self.wavLeft(out).count == 3 * 48_000)
    }

    @Test("FLAC at 24 bits, tempo, transposition and --from/--to by bar:beat")
    func options() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let flac = scratch.url.appendingPathComponent("out.flac").path
        let run = try CLIRun.pianola("render", song, "-o", flac, "--soundfont", Self.testFont, "--bits", "24",
                                     "--tempo", "200", "--tail", "0", "--from", "1:1", "--to", "1:2")
        #expect(run.status == 0, "\(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: flac))
        #expect(String(decoding: data[0..<4], as: UTF8.self) == "fLaC")
    }

    @Test("bad input: one line on stderr, exit 1, no file left behind", arguments: [
        (["--soundfont", "/nonexistent.sf2"], "/nonexistent.sf2: cannot load SoundFont: No such file or directory"),
        (["--mute", "3"], "track 3 does not exist: SONG has 1 track"),
        (["--from", "0:1"], "--from 0:1: give seconds (12.5) or bar:beat (3:1), counted from 1"),
        (["--bits", "32f", "--format", "flac"], "OUT: FLAC holds 16 or 24 bits, not 32-bit float"),
        (["--tempo", "0"], "--tempo 0: use 10 to 1000 percent"),
        (["--from", "1:2", "--to", "1:1"], "--to 1:1 is not after --from 1:2"),
    ])
    func badInput(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let out = scratch.url.appendingPathComponent("out.wav").path
        let run = try CLIRun.pianola(["render", song, "-o", out, "--soundfont", Self.testFont] + arguments)
        #expect(run.status == 1)
        #expect(run.stderr == "pianola: \(message.replacingOccurrences(of: "SONG", with: song).replacingOccurrences(of: "OUT", with: out))\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
