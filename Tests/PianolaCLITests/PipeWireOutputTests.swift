import Foundation
import SoundServers
import Testing
import TestSupport

// Serialized: each test starts a daemon of its own, and they would load the machine together.
// Real time: the smoke test's graph keeps deadlines, and a freewheeling one keeps a core busy.
@Suite("pianola play --driver pipewire, against a real headless PipeWire", .serialized, .listensInRealTime)
struct PipeWireOutputTests {
    static let testFont = PlayCommandTests.testFont
    static let song = PlayCommandTests.song

    @Test("with a daemon running, play chooses PipeWire, and the sink's monitor hears what render writes (SNR ≥ 60 dB, no gap), the graph freewheeling so no cycle can be missed")
    func playEqualsRender() throws {
        let server = try PipeWireServer()
        try expectPlayEqualsRender(["--period", "256"], environment: server.environment, capture: {
            try OutputCapture(pipeWireOn: server, seconds: 40, freewheel: true, package: RenderCommandTests.root, into: $0)
        }, check: { played in
            #expect(played.stdout.contains("Audio: PipeWire default sink, 48000 Hz, 256-frame periods"), "\(played.stdout)")
        })
    }

    @Test("in real time: play reaches the sink, the song arrives at its monitor, and the graph's clock moves on; the cycles missed are reported, not failed")
    func realTimeSmoke() throws {
        let server = try PipeWireServer()
        try expectPlaysInRealTime(["--driver", "pipewire"], environment: server.environment, showing: "Audio: PipeWire default sink") {
            try OutputCapture(pipeWireOn: server, seconds: 40, package: RenderCommandTests.root, into: $0)
        }
    }

    @Test("the daemon stopped mid-play: one line, exit 1, no hang")
    func daemonStopped() throws {
        let server = try PipeWireServer()
        let run = try playWhileServerStops(driver: "pipewire", environment: server.environment) { server.stopDaemon() }
        #expect(!run.signaled)
        #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.hasPrefix("pianola: the PipeWire daemon went away") && run.stderr.filter { $0 == "\n" }.count == 1, "\(run.stderr)")
    }

    @Test("no daemon, a missing sink, no session manager: one line each, exit 1; devices marks the default sink")
    func refusalsAndDevices() throws {
        let empty = try Scratch()
        let none = try CLIRun.pianola(["play", Self.song, "--driver", "pipewire", "--soundfont", Self.testFont], environment: ["XDG_RUNTIME_DIR": empty.url.path])
        #expect(none.status == 1)
        #expect(none.stderr.hasPrefix("pianola: no PipeWire daemon answers") && none.stderr.filter { $0 == "\n" }.count == 1, "\(none.stderr)")
        let server = try PipeWireServer()
        let sink = try CLIRun.pianola(["play", Self.song, "--driver", "pipewire", "--device", "nowhere", "--soundfont", Self.testFont], environment: server.environment)
        #expect(sink.status == 1)
        #expect(sink.stderr.hasPrefix("pianola: sink 'nowhere': no PipeWire sink by that name or serial") && sink.stderr.filter { $0 == "\n" }.count == 1, "\(sink.stderr)")
        let devices = try CLIRun.pianola(["devices"], environment: server.environment)
        #expect(devices.stdout.contains("pipewire (the default driver: a PipeWire daemon is running):\n  * pianola-null\n"), "\(devices.stdout)")
        // With no session manager nothing links the stream: a line after 5 s, not a hang.
        server.stopSessionManager()
        let unlinked = try CLIRun.pianola(["play", Self.song, "--driver", "pipewire", "--soundfont", Self.testFont, "--quiet"],
                                          environment: server.environment, prefix: ["/usr/bin/timeout", "30"])
        #expect(unlinked.status == 1, "exit \(unlinked.status): \(unlinked.stderr)")
        #expect(unlinked.stderr == "pianola: PipeWire did not run Pianola's stream to default sink within 5 s: no session manager linked it (is WirePlumber running?)\n")
    }
}
