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

    /// An XMI of two songs (FORM XDIR, then CAT XMID): the first a program and A4's octave
    /// below for a second inside a FOR/NEXT loop of two seconds, the second one half-second note.
    static let xmi: [UInt8] = {
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + [0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body + (body.count & 1 == 1 ? [0] : [])
        }
        let first: [UInt8] = [0xC0, 48, 0xB0, 116, 0, 0x90, 57, 100, 120, 120, 120, 0xB0, 117, 127, 0xFF, 0x2F, 0]
        let second: [UInt8] = [0x91, 64, 90, 60, 60, 0xFF, 0x2F, 0]
        let forms = [first, second].flatMap { chunk("FORM", Array("XMID".utf8) + chunk("EVNT", $0)) }
        return chunk("FORM", Array("XDIR".utf8) + chunk("INFO", [2, 0])) + chunk("CAT ", Array("XMID".utf8) + forms)
    }()

    @Test("an XMI of two songs: info lists them, --song chooses one to convert or show, --loops marks its FOR/NEXT loop as asked")
    func songsAndLoops() throws {
        let scratch = try Scratch()
        let song = try scratch.write("intro.xmi", Self.xmi)
        let info = try CLIRun.pianola("info", song)
        #expect(info.stdout.contains("  songs (one after another; --song n chooses one):\n    1   0:02.00  1 note\n    2   0:00.50  1 note\n"), "\(info.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(try CLIRun.pianola("info", "--json", song).stdout.utf8)) as? [String: Any]
        let songs = try #require(json?["songs"] as? [[String: Any]])
        #expect(songs.map { $0["durationSeconds"] as? Double } == [2, 0.5] && songs.map { $0["noteCount"] as? Int } == [1, 1])
        let second = try CLIRun.pianola("info", "--song", "2", song)
        #expect(second.stdout.contains("format 0, 1 track, 60 ticks per quarter note\n  length 0:00.50"), "\(second.stdout)")

        let both = scratch.url.appendingPathComponent("both.mid").path
        let kept = try CLIRun.pianola("convert", song, both)
        #expect(kept.stdout.hasPrefix("wrote \(both): format 2, 2 tracks, 2 notes; loop 0:00.00–0:02.00 kept as controllers 116/117 (EMIDI, XMI's FOR/NEXT); source: XMI"), "\(kept.stdout)")
        let refused = try CLIRun.pianola("convert", song, scratch.url.appendingPathComponent("none.mid").path, "--loops", "markers")
        #expect(refused.status == 1 && refused.stderr == "pianola: --loops: \(song) holds 2 songs, each with its own loop; choose one with --song\n")

        for (marking, expected) in [("markers", "loopStart/loopEnd markers"), ("cc111", "controller 111")] {
            let out = scratch.url.appendingPathComponent("\(marking).mid").path
            let run = try CLIRun.pianola("convert", song, out, "--song", "1", "--loops", marking)
            #expect(run.status == 0 && run.stdout.hasPrefix("wrote \(out): format 0, 1 track, 1 note; loop 0:00.00–0:02.00 marked with \(expected); source: XMI"), "\(run.stdout)\(run.stderr)")
            let events = try MIDIFile(contentsOf: out, mode: .strict).tracks[0].events
            #expect(!events.contains { if case .controlChange(_, 116...117, _) = $0.message { true } else { false } }, "\(marking): FOR/NEXT gone")
            let mark = marking == "markers" ? MIDIMessage.meta(.text(.marker, Array("loopStart".utf8))) : .controlChange(channel: 0, controller: 111, value: 0)
            #expect(events.contains(MIDIEvent(tick: 0, mark)), "\(marking)")
            #expect(events.last == MIDIEvent(tick: 240, .meta(.endOfTrack)), "\(marking)")
        }
        let beyond = try CLIRun.pianola("convert", song, scratch.url.appendingPathComponent("third.mid").path, "--song", "3")
        #expect(beyond.status == 1 && beyond.stderr == "pianola: --song 3: \(song) holds 2 songs; give 1 to 2\n")
    }
}
