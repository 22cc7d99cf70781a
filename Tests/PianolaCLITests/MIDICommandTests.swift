import Foundation
import Testing

/// The MIDI commands as far as a machine without a sequencer can show them: every refusal is
/// one line and status 1. What they do with a real sequencer is shown in the ALSA VM
/// (Tests/alsa-vm/in-vm-midi.sh).
@Suite("pianola ports, play --port and record: bad input")
struct MIDICommandTests {
    static let song = PlayCommandTests.song
    static let hasSequencer = FileManager.default.fileExists(atPath: "/dev/snd/seq")

    /// The run failed with exactly one line on stderr, which starts with `prefix`.
    static func expectOneLine(_ run: CLIRun, _ prefix: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 1, sourceLocation: sourceLocation)
        #expect(run.stderr.hasPrefix(prefix), "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.filter { $0 == "\n" }.count == 1, "\(run.stderr)", sourceLocation: sourceLocation)
    }

    @Test("no sequencer (/dev/snd/seq missing): ports, play --port and record each say so in one line")
    func noSequencer() throws {
        let scratch = try Scratch()
        let runs = try [
            CLIRun.pianola("ports"),
            CLIRun.pianola("play", Self.song, "--port", "24:0"),
            CLIRun.pianola("record", scratch.url.appendingPathComponent("new.mid").path, "--port", "24:0"),
        ]
        if Self.hasSequencer {
            // A machine with a sequencer lists its ports instead.
            #expect(runs[0].status == 0)
            #expect(runs[0].stdout.contains("Pianola out"))
        } else {
            for run in runs {
                Self.expectOneLine(run, "pianola: no ALSA sequencer: /dev/snd/seq is missing (load it: modprobe snd-seq)")
            }
        }
    }

    @Test("malformed --route: one line naming the route and what is wrong, before any port is opened")
    func badRoutes() throws {
        let cases: [(String, String)] = [
            ("ch17=synth", "pianola: --route ch17=synth: 'ch17' is not a channel or range of them within 1-16"),
            ("ch0=synth", "pianola: --route ch0=synth: 'ch0' is not a channel or range of them within 1-16"),
            ("ch9-3=synth", "pianola: --route ch9-3=synth: 'ch9-3' is not a channel or range of them within 1-16"),
            ("track2=synth", "pianola: --route track2=synth: 'track2' is not a track of this song or range of them within 1-1"),
            ("ch1", "pianola: --route ch1: give SELECTORS=TARGET, e.g. ch10=synth or ch1-9=24:0"),
            ("ch1=", "pianola: --route ch1=: give SELECTORS=TARGET, e.g. ch10=synth or ch1-9=24:0"),
            ("=synth", "pianola: --route =synth: give SELECTORS=TARGET, e.g. ch10=synth or ch1-9=24:0"),
            ("bass=synth", "pianola: --route bass=synth: 'bass' names no channels (ch1-16) or tracks (track1...)"),
        ]
        for (route, message) in cases {
            Self.expectOneLine(try CLIRun.pianola("play", Self.song, "--route", route), message)
        }
    }

    @Test("record never overwrites: an existing file needs --force, a directory is refused, before recording starts")
    func recordRefusesToOverwrite() throws {
        let scratch = try Scratch()
        let existing = try scratch.write("take.mid", [1, 2, 3])
        Self.expectOneLine(try CLIRun.pianola("record", existing, "--port", "24:0"), "pianola: \(existing): already exists (use --force to replace it)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data([1, 2, 3]))
        Self.expectOneLine(try CLIRun.pianola("record", scratch.url.path, "--port", "24:0"), "pianola: \(scratch.url.path): is a directory; give a file name")
        Self.expectOneLine(try CLIRun.pianola("record", scratch.url.appendingPathComponent("no/such/dir/x.mid").path, "--port", "24:0"),
                           "pianola: \(scratch.url.appendingPathComponent("no/such/dir/x.mid").path): cannot write in")
        Self.expectOneLine(try CLIRun.pianola("record", scratch.url.appendingPathComponent("x.mid").path, "--port", "24:0", "--clock", "14:0"),
                           "pianola: --route, --clock, --mtc, --port-latency and --play-to need --play SONG")
        Self.expectOneLine(try CLIRun.pianola("record", scratch.url.appendingPathComponent("x.mid").path, "--port", "24:0", "--tempo", "0"),
                           "pianola: --tempo 0.0: use 10 to 1000 beats per minute")
    }
}
