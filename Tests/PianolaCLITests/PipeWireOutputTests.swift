import Foundation
import Testing

/// A real PipeWire daemon of the test's own, headless: a session bus, `pipewire`, a null sink
/// named "pianola-null" and WirePlumber (which links streams and makes the sink the
/// default), all in a private runtime folder, so it never meets the user's daemon.
final class PipeWireServer: @unchecked Sendable {   // @unchecked: `stop` may come from another thread; Process allows it
    private let folder: Scratch
    private var processes: [Process] = []

    /// The environment that points PipeWire clients at this daemon.
    let environment: [String: String]

    init() throws {
        folder = try Scratch()
        chmod(folder.url.path, 0o700)
        environment = ["XDG_RUNTIME_DIR": folder.url.path, "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(folder.url.path)/bus",
                       "PIPEWIRE_DEBUG": "0", "WIREPLUMBER_DEBUG": "0"]
        try start("/usr/bin/dbus-daemon", ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(folder.url.path)/bus"])
        try waitFor { FileManager.default.fileExists(atPath: "\(self.folder.url.path)/bus") }
        try start("/usr/bin/pipewire", [])
        try waitFor { FileManager.default.fileExists(atPath: "\(self.folder.url.path)/pipewire-0") }
        let sink = try start("/usr/bin/pw-cli", ["create-node", "adapter", "{ factory.name=support.null-audio-sink node.name=pianola-null "
                                                 + "media.class=Audio/Sink object.linger=true audio.position=[FL FR] }"])
        sink.waitUntilExit()
        #expect(sink.terminationStatus == 0, "pw-cli could not make the null sink")
        try start("/usr/bin/wireplumber", [])
        try waitFor { (try? CLIRun.pianola(["devices", "--driver", "pipewire"], environment: self.environment))?.stdout.hasPrefix("* pianola-null") == true }
    }

    @discardableResult
    private func start(_ program: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        return process
    }

    /// Polls `ready` for up to 10 seconds.
    private func waitFor(_ ready: () throws -> Bool) throws {
        for _ in 0..<200 {
            if try ready() { return }
            usleep(50_000)
        }
        Issue.record("the test's PipeWire daemon did not come up")
    }

    /// Kills the daemon, as a crash would.
    func stopDaemon() { if processes[1].isRunning { kill(processes[1].processIdentifier, SIGKILL) } }

    // SIGKILL: the children inherit a test thread's signal mask, in which SIGTERM may be
    // blocked (WirePlumber and dbus-daemon then never see it); they keep nothing outside the
    // private folder, so nothing is left behind.
    deinit {
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// `pipewire-capture` (Tests/PipeWireCapture), recording the monitor of the test daemon's null sink.
func pipeWireCapture(on server: PipeWireServer, seconds: Int, into scratch: Scratch) throws -> OutputCapture {
    try OutputCapture("pipewire-capture", ["pianola-null", "\(seconds)"], environment: server.environment, into: scratch)
}

// Serialized: each test starts a daemon of its own, and they would load the machine together.
@Suite("pianola play --driver pipewire, against a real headless PipeWire", .serialized)
struct PipeWireOutputTests {
    static let testFont = PlayCommandTests.testFont
    static let song = PlayCommandTests.song

    @Test("with a daemon running, play chooses PipeWire, and the sink's monitor hears what render writes (SNR ≥ 60 dB, no gap)")
    func playEqualsRender() throws {
        let scratch = try Scratch()
        let server = try PipeWireServer()
        let common = ["--soundfont", Self.testFont, "--tempo", "150"]
        let wav = scratch.url.appendingPathComponent("rendered.wav").path
        let rendered = try CLIRun.pianola(["render", Self.song, "-o", wav, "--bits", "32f"] + common)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let reference = try PlayCommandTests.wavFloats(wav)
        // 1024-frame quanta (21 ms): the null sink's timer drives the graph with deadlines, and
        // on a loaded 2-vCPU machine even a real-time thread was measured waking 8.5 ms late,
        // which at 256 frames (5.3 ms) drops a cycle. One retry for a cycle missed all the same
        // (Pianola and the ear each count their own): the machine's fault, not the stream's.
        for attempt in 1...2 {
            let capture = try pipeWireCapture(on: server, seconds: 40, into: scratch)
            let played = try CLIRun.pianola(["play", Self.song, "--period", "1024"] + common, environment: server.environment)
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.stdout.contains("Audio: PipeWire default sink, 48000 Hz, 1024-frame periods"), "\(played.stdout)")
            let (samples, _, xruns) = try capture.finish()
            let missed = played.stderr.contains("underrun")
            if (xruns > 0 || missed) && attempt == 1 { continue }
            let snr = alignedSNR(captured: samples, reference: reference)
            #expect(snr != nil, "the capture is shorter than the render: a gap or a cut end")
            #expect((snr ?? 0) >= 60, "SNR \(snr ?? 0) dB; the ear missed \(xruns) cycles; \(played.stderr)")
            return
        }
    }

    @Test("the daemon stopped mid-play: one line, exit 1, no hang")
    func daemonStopped() throws {
        let server = try PipeWireServer()
        let stopper = Thread {
            usleep(1_500_000)
            server.stopDaemon()
        }
        stopper.start()
        // timeout(1) only as a backstop: a hang would show as its status 124.
        let run = try CLIRun.pianola(["play", PlayCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path, "--driver", "pipewire",
                                      "--soundfont", Self.testFont, "--quiet"], environment: server.environment, prefix: ["/usr/bin/timeout", "30"])
        #expect(!run.signaled)
        #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.hasPrefix("pianola: the PipeWire daemon went away") && run.stderr.filter { $0 == "\n" }.count == 1, "\(run.stderr)")
    }

    @Test("no daemon and a missing sink: one line each naming it, exit 1; devices marks the default sink")
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
    }
}
