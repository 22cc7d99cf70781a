import Foundation
import MIDI
import Pianola
import SoundServers
import Testing
import TestSupport

/// `jack-capture` (Tests/Support/JackCapture), a client named "capture" on `server`.
func jackCapture(on server: JACKServer, seconds: Int, into scratch: Scratch) throws -> OutputCapture {
    try OutputCapture(jackOn: server, seconds: seconds, package: RenderCommandTests.root, into: scratch.url)
}

// Serialized: each test starts its own server, and JACK's registry holds only 8 at a time.
// Real time: the smoke test's server keeps deadlines, and a freewheeling one keeps a core busy.
@Suite("pianola play --driver jack, against a real jackd", .serialized, .listensInRealTime)
struct JACKOutputTests {
    static let testFont = PlayCommandTests.testFont
    static let song = PlayCommandTests.song

    @Test("what JACK delivers to a client patched to Pianola's ports is what render writes (SNR ≥ 60 dB, no gap), the server freewheeling so no cycle can be missed")
    func playEqualsRender() throws {
        let server = try JACKServer()
        try expectPlayEqualsRender(["--driver", "jack", "--device", "capture", "--quiet"], environment: server.environment) {
            try OutputCapture(jackOn: server, seconds: 120, freewheel: true, package: RenderCommandTests.root, into: $0)
        }
    }

    @Test("in real time: Pianola's ports reach the capture's, the song arrives there, and the server's clock moves on; the cycles missed are reported, not failed")
    func realTimeSmoke() throws {
        let server = try JACKServer()
        try expectPlaysInRealTime(["--driver", "jack", "--device", "capture"], environment: server.environment, showing: "capture:in_L, capture:in_R") {
            try OutputCapture(jackOn: server, seconds: 40, package: RenderCommandTests.root, into: $0)
        }
    }

    @Test("--jack-transport: silent while the transport stands; located 0.1 s before bar 3 and rolled, it plays what render --from 3:1 writes (SNR ≥ 60 dB), its first note exactly 4,800 frames after the roll")
    func followsTransport() throws {
        let server = try JACKServer()
        let scratch = try Scratch()
        let sequence = MusicSequence(file: try MIDIFile(contentsOf: Self.song))
        let bar3 = try #require(sequence.meterMap).tick(at: BarBeatTick(bar: 3, beat: 1))
        let from = sequence.tempoMap.sampleFrame(atTick: bar3, sampleRate: 48_000), lead: Int64 = 4_800
        let wav = scratch.url.appendingPathComponent("from-bar-3.wav").path
        let rendered = try CLIRun.pianola(["render", Self.song, "--soundfont", Self.testFont, "--from", "3:1", "--to", "6:1", "-o", wav, "--bits", "32f"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let reference = try PlayCommandTests.wavFloats(wav)
        // The capture rolls the transport itself, 2 s of audio after Pianola connects, with the
        // server freewheeling: the roll's cycle and every cycle after it are certain.
        let rollAfter = 96_000
        let capture = try OutputCapture(jackOn: server, seconds: 120, freewheel: true, roll: (from - lead, rollAfter), package: RenderCommandTests.root, into: scratch.url)
        let played = try CLIRun.pianola(["play", Self.song, "--driver", "jack", "--device", "capture", "--jack-transport", "--to", "6:1",
                                         "--soundfont", Self.testFont, "--quiet"], environment: server.environment, prefix: ["/usr/bin/timeout", "60"])
        #expect(played.status == 0, "\(played.stderr)")
        let (samples, _, _) = try capture.finish()
        let rolled = try #require(capture.transportRolled, "the transport never rolled")
        #expect(rolled.transportFrame == from - lead)
        #expect(rolled.recordedFrame >= rollAfter, "the transport rolled \(rolled.recordedFrame) frames in, before the capture rolled it")
        func firstSound(_ x: [Float]) -> Int? { x.firstIndex { abs($0) > 1e-4 }.map { $0 / 2 } }
        let heard = try #require(firstSound(samples)), written = try #require(firstSound(reference))
        #expect(heard >= rolled.recordedFrame, "sound at frame \(heard), before the transport rolled at \(rolled.recordedFrame)")
        #expect(Int64(heard - rolled.recordedFrame - written) == lead, "first sound \(heard), rolled at \(rolled.recordedFrame), the render's \(written)")
        let snr = alignedSNR(captured: samples, reference: reference)
        #expect((snr ?? 0) >= 60, "SNR \(snr ?? 0) dB; \(played.stderr)")
    }

    @Test("--jack-transport refuses what would move the song away from the transport, and a driver with no transport: one line each, exit 1")
    func transportRefusals() throws {
        let refusals: [([String], String)] = [
            (["--tempo", "80"], "pianola: --tempo 80 with --jack-transport: the transport says where the song is, at its written tempo\n"),
            (["--loop", "2"], "pianola: --loop 2 with --jack-transport: the transport says where the song is; loop it in the program that moves the transport\n"),
            (["--from", "2:1"], "pianola: --from 2:1 with --jack-transport: the transport says where the song is; locate the transport there (jack_transport's locate, or the DAW)\n"),
            (["--sync", "14:0"], "pianola: --sync and --jack-transport: follow one master, a MIDI clock or JACK's transport\n"),
            (["--driver", "alsa", "--device", "null"], "pianola: --jack-transport: the audio goes to ALSA, which has no transport to follow; give --driver jack\n"),
        ]
        for (arguments, message) in refusals {
            let run = try CLIRun.pianola(["play", Self.song, "--soundfont", Self.testFont, "--jack-transport", "--quiet"] + arguments)
            #expect(run.status == 1 && run.stderr == message, "\(arguments): exit \(run.status): \(run.stderr)")
        }
    }

    @Test("the server stopped mid-play: one line, exit 1, no hang")
    func serverKilled() throws {
        let server = try JACKServer()
        let scratch = try Scratch()
        let capture = try jackCapture(on: server, seconds: 30, into: scratch)   // waits until the server is up
        let run = try playWhileServerStops(driver: "jack", environment: server.environment) { server.kill() }
        #expect(!run.signaled)
        #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr == "pianola: the JACK server went away (client 'pianola')\n", "\(run.stderr)")
        _ = try capture.finish()
    }

    @Test("no server, a missing client and a missing port: one line each naming it, exit 1")
    func refusals() throws {
        let none = try CLIRun.pianola(["play", Self.song, "--driver", "jack", "--soundfont", Self.testFont],
                                      environment: ["JACK_DEFAULT_SERVER": "pianola-no-such-server"])
        #expect(none.status == 1)
        #expect(none.stderr == "pianola: no JACK server named 'pianola-no-such-server' is running (start one with jackd, or choose another --driver)\n")
        let server = try JACKServer()
        let scratch = try Scratch()
        let capture = try jackCapture(on: server, seconds: 30, into: scratch)
        let client = try CLIRun.pianola(["play", Self.song, "--driver", "jack", "--device", "nobody", "--soundfont", Self.testFont], environment: server.environment)
        #expect(client.status == 1)
        #expect(client.stderr.hasPrefix("pianola: client 'nobody': no JACK client with audio inputs by that name"))
        let port = try CLIRun.pianola(["play", Self.song, "--driver", "jack", "--device", "capture:in_X", "--soundfont", Self.testFont], environment: server.environment)
        #expect(port.status == 1)
        #expect(port.stderr.hasPrefix("pianola: port 'capture:in_X': no such JACK port"))
        #expect([none, client, port].allSatisfy { $0.stderr.filter { $0 == "\n" }.count == 1 })
        _ = try capture.finish()
    }

    @Test("lists the server's clients with their input ports, the physical ones first and marked default")
    func listsClients() throws {
        let server = try JACKServer()
        let scratch = try Scratch()
        let capture = try jackCapture(on: server, seconds: 30, into: scratch)
        let run = try CLIRun.pianola(["devices", "--driver", "jack"], environment: server.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "* system\n      system:playback_1, system:playback_2\n  capture\n      capture:in_L, capture:in_R\n")
        _ = try capture.finish()
    }
}
