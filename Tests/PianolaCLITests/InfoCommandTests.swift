import Foundation
import Testing
import MIDI

@Suite("pianola info, run as a user runs it")
struct InfoCommandTests {
    /// Format 1, 480 tpq: conductor with 120 → 60 bpm at tick 960, 4/4 → 3/4 at 1920, marker
    /// "verse" at 960; one named track on channels 1 and 10 with three notes (one velocity 0).
    static func song() -> [UInt8] {
        MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [
            .init(events: [
                MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(4, 4)))),
                MIDIEvent(tick: 960, .meta(.tempo(microsecondsPerQuarter: 1_000_000))),
                MIDIEvent(tick: 960, .meta(.text(.marker, string: "verse"))),
                MIDIEvent(tick: 1920, .meta(.timeSignature(TimeSignature(3, 4)))),
                MIDIEvent(tick: 1920, .meta(.endOfTrack)),
            ]),
            .init(events: [
                MIDIEvent(tick: 0, .meta(.text(.trackName, string: "Piano"))),
                MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 80)),
                MIDIEvent(tick: 0, .noteOn(channel: 9, note: 36, velocity: 80)),
                MIDIEvent(tick: 480, .noteOn(channel: 0, note: 60, velocity: 0)),
                MIDIEvent(tick: 2400, .meta(.endOfTrack)),
            ]),
        ]).serialized()
    }

    @Test("--json has the documented shape and values")
    func json() throws {
        let scratch = try Scratch()
        let path = try scratch.write("song.mid", Self.song())
        let run = try CLIRun.pianola("info", path, "--json")
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        #expect(json["format"] as? Int == 1)
        #expect(json["division"] as? [String: Int] == ["ticksPerQuarter": 480])
        #expect(json["trackCount"] as? Int == 2)
        #expect(json["noteCount"] as? Int == 2)
        // 960 ticks at 120 bpm (1 s) + 1440 ticks at 60 bpm (3 s).
        #expect(json["durationSeconds"] as? Double == 4.0)
        let tracks = json["tracks"] as! [[String: Any]]
        #expect(tracks[0]["name"] is NSNull)
        #expect(tracks[1]["name"] as? String == "Piano")
        #expect(tracks[1]["eventCount"] as? Int == 5)
        #expect(tracks[1]["noteCount"] as? Int == 2)
        #expect(tracks[1]["channels"] as? [Int] == [1, 10], "numbered as the text numbers them")
        let tempos = json["tempoChanges"] as! [[String: Any]]
        #expect(tempos.count == 1)
        #expect(tempos[0]["tick"] as? Int == 960 && tempos[0]["seconds"] as? Double == 1.0 && tempos[0]["bpm"] as? Double == 60)
        let meters = json["timeSignatures"] as! [[String: Int]]
        #expect(meters == [["tick": 0, "numerator": 4, "denominator": 4], ["tick": 1920, "numerator": 3, "denominator": 4]])
        let markers = json["markers"] as! [[String: Any]]
        #expect(markers.count == 1 && markers[0]["text"] as? String == "verse" && markers[0]["seconds"] as? Double == 1.0)
        #expect(json["warnings"] as? [String] == [])
    }

    @Test("SMPTE division and lenient warnings in JSON")
    func smpteAndWarnings() throws {
        let scratch = try Scratch()
        var bytes = MIDIFile(format: 0, division: .smpte(.fps30, ticksPerFrame: 80), tracks: [
            .init(events: [MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 1)), MIDIEvent(tick: 4800, .meta(.endOfTrack))]),
        ]).serialized()
        bytes.removeLast(5)   // End of Track (delta A5 40, FF 2F 00) gone; the chunk length is now 5 too long
        let path = try scratch.write("smpte.mid", bytes)
        let run = try CLIRun.pianola("info", "--json", path)
        #expect(run.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        #expect(json["division"] as? [String: Int] == ["smpteFramesPerSecond": 30, "ticksPerFrame": 80])
        #expect(json["warnings"] as? [String] == [
            "byte 22, track 1: chunk length \(bytes.count - 22 + 5) runs past the end of the file (size \(bytes.count))",
            "byte \(bytes.count), track 1: missing End of Track; track ends at its last event",
        ])
        #expect(json["durationSeconds"] as? Double == 0.0)
    }

    @Test("an unreadable file: one line on stderr naming path, byte, track and why; exit 1; nothing on stdout")
    func unreadable() throws {
        let scratch = try Scratch()
        var bytes = Self.song()
        bytes.replaceSubrange(18..<22, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let path = try scratch.write("bad.mid", bytes)
        let strict = try CLIRun.pianola("info", path, "--strict")
        #expect(strict.status == 1)
        #expect(strict.stdout.isEmpty)
        #expect(strict.stderr == "pianola: \(path): byte 22, track 1: chunk length 4294967295 runs past the end of the file (size \(bytes.count))\n")

        for (file, why) in [("/nonexistent/x.mid", "No such file or directory"), (scratch.url.path, "is a directory")] {
            let run = try CLIRun.pianola("info", file)
            #expect(run.status == 1)
            #expect(run.stdout.isEmpty)
            #expect(run.stderr == "pianola: \(file): \(why)\n")
        }
        let text = try scratch.write("notes.mid", Array("just some text\n".utf8))
        let run = try CLIRun.pianola("info", text)
        #expect(run.status == 1 && run.stderr == "pianola: \(text): byte 0: not a Standard MIDI File (no 'MThd' header)\n")

        let usage = try CLIRun.pianola("info")
        #expect(usage.status != 0 && usage.stdout.isEmpty && usage.stderr.contains("Missing expected argument"))
    }

    @Test("the human summary names the tracks, tempo, meter, markers")
    func human() throws {
        let scratch = try Scratch()
        let path = try scratch.write("song.mid", Self.song())
        let run = try CLIRun.pianola("info", path)
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == path)
        #expect(lines.contains("  format 1, 2 tracks, 480 ticks per quarter note"))
        #expect(lines.contains("  length 0:04.00 (4 s), 2 notes"))
        #expect(lines.contains("  meter 4/4, 3/4"))
        #expect(lines.contains { $0.contains("\"Piano\"") && $0.contains("channels 1,10") })
        #expect(lines.contains("    0:01.00  \"verse\""))
    }
}
