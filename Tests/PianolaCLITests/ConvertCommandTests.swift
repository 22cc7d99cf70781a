import Foundation
import MIDI
import Testing

@Suite("pianola convert, run as a user runs it")
struct ConvertCommandTests {
    /// A MUS score: a program, A440 at volume 100 for 70 ticks after 140 silent ones, the end.
    static let mus: [UInt8] = {
        let score: [UInt8] = [0x40, 0, 19, 0x90, 0x80 | 69, 0, 0x81, 0x0C, 0x90, 0x80 | 69, 100, 0x46, 0x00, 69, 0x60]
        return Array("MUS".utf8) + [0x1A, UInt8(score.count), 0, 18, 0, 1, 0, 0, 0, 1, 0, 0, 0, 19, 0] + score
    }()

    @Test("a MUS score becomes a Standard MIDI File holding what Pianola reads from it; an existing file is refused, a bad song leaves none")
    func musToMIDI() throws {
        let scratch = try Scratch()
        let song = try scratch.write("d_e1m1.mus", Self.mus)
        let out = scratch.url.appendingPathComponent("e1m1.mid").path
        let run = try CLIRun.pianola("convert", song, out)
        #expect(run.status == 0 && run.stdout == "wrote \(out): format 0, 1 track, 1 note; source: MUS score (Doom), 15 bytes at 140 ticks a second; instruments 19\n", "\(run.stdout)\(run.stderr)")
        var read = try MIDIFile(contentsOf: song, mode: .strict)
        read.origin = .standardMIDIFile
        let written = try MIDIFile(contentsOf: out, mode: .strict)
        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(written == read && Array(before.prefix(4)) == Array("MThd".utf8))

        let refused = try CLIRun.pianola("convert", song, out)
        #expect(refused.status == 1 && refused.stderr == "pianola: \(out): already exists (use --force to replace it)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
        #expect(try CLIRun.pianola("convert", song, out, "--force").status == 0)

        let piped = try CLIRun.pianolaBytes("convert", song, "-")
        #expect(piped.status == 0 && Array(piped.stdout) == Array(before))

        let truncated = try scratch.write("short.mus", Array(Self.mus.dropLast(4)))
        let nothing = scratch.url.appendingPathComponent("short.mid").path
        let strict = try CLIRun.pianola("convert", "--strict", truncated, nothing)
        #expect(strict.status == 1 && strict.stderr == "pianola: \(truncated): byte 4: MUS: the score claims 15 bytes from byte 18, past the end of the file (size 29)\n")
        #expect(!FileManager.default.fileExists(atPath: nothing))
    }
}
