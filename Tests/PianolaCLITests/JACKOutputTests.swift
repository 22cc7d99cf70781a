import Foundation
import SoundServers
import Testing

/// `jack-capture` (Tests/JackCapture), a client named "capture" on `server`.
func jackCapture(on server: JACKServer, seconds: Int, into scratch: Scratch) throws -> OutputCapture {
    try OutputCapture(jackOn: server, seconds: seconds, tools: captureTools, into: scratch.url)
}

// Serialized: each test starts its own server, and JACK's registry holds only 8 at a time.
@Suite("pianola play --driver jack, against a real jackd", .serialized)
struct JACKOutputTests {
    static let testFont = PlayCommandTests.testFont
    static let song = PlayCommandTests.song

    @Test("what JACK delivers to a client patched to Pianola's ports is what render writes (SNR ≥ 60 dB, no gap)")
    func playEqualsRender() throws {
        let server = try JACKServer()
        try expectPlayEqualsRender(["--driver", "jack", "--device", "capture", "--quiet"], environment: server.environment) {
            try OutputCapture(jackOn: server, seconds: 40, tools: captureTools, into: $0)
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
