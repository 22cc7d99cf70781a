import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Real sound servers of a test's or benchmark's own, never the user's, and the capture
/// clients (Tests/Support/JackCapture, Tests/Support/PipeWireCapture) that record what a server delivers.

/// What a server or a capture could not do, one line.
public struct SoundServerError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A real JACK server (jackd's dummy backend, real-time, 48 kHz, 256-frame periods unless
/// told) under a unique name, so it never meets the user's server or another test's. Any thread.
public final class JACKServer: @unchecked Sendable {   // @unchecked: `kill` may come from another thread; Process allows it
    /// The server's name.
    public let name = "pianola-test-\(UUID().uuidString.prefix(8))"
    private let process = Process()

    /// The environment that points libjack clients at this server.
    public var environment: [String: String] { ["JACK_DEFAULT_SERVER": name] }

    /// Starts it with `periodFrames`-frame periods; clients retry until it is up. Each line the
    /// server prints (its xrun reports among them: "JackEngine::XRun: client = NAME was not
    /// finished") goes to `message` on a thread of its own, as it comes.
    public init(periodFrames: Int = 256, message: (@Sendable (String) -> Void)? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        process.arguments = ["-n", name, "-R", "-P", "70", "-d", "dummy", "-r", "48000", "-p", "\(periodFrames)"]
        process.environment = ProcessInfo.processInfo.environment.merging(["JACK_NO_AUDIO_RESERVATION": "1"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if let message {
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            Thread {
                let reader = pipe.fileHandleForReading
                var pending = Data()
                while case let chunk = reader.availableData, !chunk.isEmpty {
                    pending += chunk
                    while let newline = pending.firstIndex(of: 10) {
                        message(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending = Data(pending[(newline + 1)...])
                    }
                }
            }.start()
        }
        try process.run()
    }

    /// Stops the server (SIGTERM: a SIGKILLed jackd leaves its entry in JACK's shared
    /// registry, which holds 8 servers, and later servers then fail to start).
    public func kill() { if process.isRunning { process.terminate() } }

    deinit {
        kill()
        process.waitUntilExit()
    }
}

/// A real PipeWire daemon, headless: a session bus, `pipewire`, a null sink named
/// "pianola-null" and WirePlumber (which links streams and makes the sink the default), all
/// in a private runtime folder, so it never meets the user's daemon. Any thread.
public final class PipeWireServer: @unchecked Sendable {   // @unchecked: `stopDaemon` may come from another thread; Process allows it
    /// The null sink's node name.
    public static let sink = "pianola-null"
    private let folder: String
    private var processes: [Process] = []

    /// The environment that points PipeWire clients at this daemon.
    public let environment: [String: String]

    /// The daemon's socket, for a client that names it (`remote.name`).
    public var socket: String { "\(folder)/pipewire-0" }

    /// Starts it and waits (up to 10 s) until the null sink is the default one.
    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-pipewire-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        environment = ["XDG_RUNTIME_DIR": folder, "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(folder)/bus", "PIPEWIRE_DEBUG": "0", "WIREPLUMBER_DEBUG": "0"]
        try start("/usr/bin/dbus-daemon", ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(folder)/bus"])
        try waitFor("the session bus") { FileManager.default.fileExists(atPath: "\(self.folder)/bus") }
        try start("/usr/bin/pipewire", [])
        try waitFor("pipewire") { FileManager.default.fileExists(atPath: "\(self.folder)/pipewire-0") }
        let sink = try start("/usr/bin/pw-cli", ["create-node", "adapter", "{ factory.name=support.null-audio-sink node.name=\(Self.sink) "
                                                 + "media.class=Audio/Sink object.linger=true audio.position=[FL FR] }"])
        sink.waitUntilExit()
        guard sink.terminationStatus == 0 else { throw SoundServerError("pw-cli could not make the null sink") }
        try start("/usr/bin/wireplumber", [])
        try waitFor("WirePlumber to make \(Self.sink) the default sink") {
            try self.output("/usr/bin/pw-metadata", ["-n", "default", "0", "default.audio.sink"]).contains("\"name\":\"\(Self.sink)\"")
        }
    }

    @discardableResult
    private func start(_ program: String, _ arguments: [String], output: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        if output == nil { processes.append(process) }
        return process
    }

    private func output(_ program: String, _ arguments: [String]) throws -> String {
        let pipe = Pipe()
        let process = try start(program, arguments, output: pipe)
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// Polls `ready` for up to 10 seconds.
    private func waitFor(_ what: String, _ ready: () throws -> Bool) throws {
        for _ in 0..<200 {
            if try ready() { return }
            usleep(50_000)
        }
        throw SoundServerError("the PipeWire daemon did not come up: no sign of \(what) in 10 s")
    }

    /// Kills WirePlumber, the session manager: nothing then links new streams.
    public func stopSessionManager() {
        guard let manager = processes.last, manager.isRunning else { return }
        Glibc.kill(manager.processIdentifier, SIGKILL)
        manager.waitUntilExit()
    }

    /// Kills the daemon, as a crash would.
    public func stopDaemon() { if processes[1].isRunning { Glibc.kill(processes[1].processIdentifier, SIGKILL) } }

    // SIGKILL: the children inherit the starting thread's signal mask, in which SIGTERM may be
    // blocked (WirePlumber and dbus-daemon then never see it); they keep nothing outside the
    // private folder, which goes with them.
    deinit {
        for process in processes.reversed() where process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// A capture client (`jack-capture`, `pipewire-capture`) recording what reaches it into a raw
/// file; it says "ready" once it records, and when stopped, when its first sound was and how
/// many cycles it missed.
public final class OutputCapture {
    /// The raw file: float stereo at 48 kHz.
    public let raw: String
    /// After `finish`, for `jack-capture`: the recorded frame at which JACK's transport was
    /// first seen rolling, and the transport's frame then; `nil` if it never rolled.
    public private(set) var transportRolled: (recordedFrame: Int, transportFrame: Int64)?
    /// After `finish`, for `pipewire-capture` freewheeling: the recorded cycles the graph ran on
    /// a real-time driver all the same (each one could have been missed); `nil` otherwise.
    public private(set) var realTimeCycles: Int?
    private let process = Process()
    private let output = Pipe()

    /// `jack-capture` (built from the package at `root` on first use) as a client named
    /// "capture" on `server`, for up to `seconds`, into `folder`. With `freewheel`, the server freewheels (no deadlines, so no cycle can be
    /// missed however busy the machine is) and the recording holds exactly the cycles in which
    /// something was connected to the capture. With `roll`, the capture itself locates the
    /// transport to `frame` and starts it `after` frames into the recording.
    public convenience init(jackOn server: JACKServer, seconds: Int, freewheel: Bool = false, roll: (frame: Int64, after: Int)? = nil,
                            package root: URL, into folder: URL) throws {
        let options = (freewheel ? ["--freewheel"] : []) + (roll.map { ["--roll", "\($0.frame)", "\($0.after)"] } ?? [])
        try self.init(tool: CaptureTools.binary(.jack, root: root), options + ["capture", "\(seconds)"], environment: server.environment, into: folder)
    }

    /// `pipewire-capture` (built from the package at `root` on first use) on the monitor of
    /// `server`'s null sink, for up to `seconds`, into `folder`. With `freewheel`, the graph runs under PipeWire's freewheel driver (no
    /// deadlines, so no cycle can be missed however busy the machine is), and the recording
    /// starts at the first sound.
    public convenience init(pipeWireOn server: PipeWireServer, seconds: Int, freewheel: Bool = false, package root: URL, into folder: URL) throws {
        try self.init(tool: CaptureTools.binary(.pipeWire, root: root), (freewheel ? ["--freewheel"] : []) + [PipeWireServer.sink, "\(seconds)"],
                      environment: server.environment, into: folder)
    }

    /// Starts `tool` with `arguments` (then the raw file's path) in `environment`, and waits until it records.
    private init(tool: URL, _ arguments: [String], environment: [String: String], into folder: URL) throws {
        raw = folder.appendingPathComponent("captured.raw").path
        process.executableURL = tool
        process.arguments = arguments + [raw]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        try process.run()
        // It retries until the server is up, then says "ready RATE".
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")), let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty { line += byte }
        guard String(decoding: line, as: UTF8.self).hasPrefix("ready 48000") else { throw SoundServerError("\(tool.lastPathComponent) did not start") }
    }

    /// Stops recording; returns the samples (float stereo), the CLOCK_MONOTONIC nanoseconds of
    /// the first sound (-1: none), and the cycles the capture missed.
    public func finish() throws -> (samples: [Float], firstSoundNanos: Int64, xruns: Int) {
        if process.isRunning { process.interrupt() }
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        func value(_ key: String) -> Int64 {
            report.split(whereSeparator: { $0 == "\n" || $0 == " " }).first { $0.hasPrefix(key + "=") }.flatMap { Int64($0.dropFirst(key.count + 1)) } ?? -1
        }
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        if value("rolled_at") >= 0 { transportRolled = (Int(value("rolled_at")), value("transport_frame")) }
        if value("realtime_cycles") >= 0 { realTimeCycles = Int(value("realtime_cycles")) }
        return (samples, value("first_sound_ns"), Int(value("xruns")))
    }
}

/// The signal-to-noise ratio of `captured` against `reference` (float stereo), aligned on
/// their first sound (above 1e-4), over the reference's length from there; `nil` if the
/// capture is shorter, that is, has a gap or an end cut off.
public func alignedSNR(captured: [Float], reference: [Float]) -> Double? {
    func firstSound(_ x: [Float]) -> Int? { x.firstIndex { abs($0) > 1e-4 }.map { $0 / 2 * 2 } }
    guard let a = firstSound(captured), let b = firstSound(reference), captured.count - a >= reference.count - b else { return nil }
    var signal = 0.0, noise = 0.0
    for k in 0..<(reference.count - b) {
        signal += Double(reference[b + k]) * Double(reference[b + k])
        noise += pow(Double(captured[a + k]) - Double(reference[b + k]), 2)
    }
    return noise == 0 ? .infinity : 10 * log10(signal / noise)
}
