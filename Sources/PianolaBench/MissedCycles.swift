import Foundation
import Synchronization
import SoundServers

/// The cycles Pianola and `fluidsynth -a jack` each miss playing `seconds` of `song` with `font`
/// into the same real jackd (dummy backend) at 256- and 1024-frame periods, on an idle machine
/// and beside two CPU hogs (`yes > /dev/null`). A client missed a cycle when the server says so
/// ("JackEngine::XRun: client = NAME was not finished"); a cycle the server itself woke too late
/// for ("JackTimedDriver::Process XRun") is the machine's, counted apart. Pianola's misses are
/// also split by when they came: in its first 2 s (start-up: page faults, presets loading) or after.
func missedCyclesBenchmark(song: String, font: String, seconds: Int = 60) throws -> [Figure] {
    let pianola = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pianola").path
    print("Missed cycles: \(seconds) s of \(song), \(font), into jackd -d dummy at 48 kHz")
    var figures: [Figure] = []
    for hogs in [0, 2] {
        let load = hogs == 0 ? "idle" : "2 CPU hogs"
        let busy = (0..<hogs).map { _ in spawnHog() }
        defer { busy.forEach { kill($0, SIGKILL); waitpid($0, nil, 0) } }
        for period in [256, 1024] {
            let log = ServerLog()
            let server = try JACKServer(periodFrames: period, message: log.append)
            defer { server.kill() }
            for (key, value) in server.environment { setenv(key, value, 1) }
            defer { for key in server.environment.keys { unsetenv(key) } }
            usleep(500_000)   // the server comes up
            // Pianola plays to the server's physical ports, as fluidsynth's JACK driver does.
            let ours = try log.misses(of: "pianola") {
                try run([pianola, "play", song, "--soundfont", font, "--driver", "jack", "--to", "\(seconds)", "--quiet"])
            }
            let theirs = try log.misses(of: "fluidsynth") {
                // -i: no shell; it plays until stopped: the song's `seconds` and, as Pianola has,
                // 2 s for loading the font and the tail.
                try run(["/usr/bin/fluidsynth", "-a", "jack", "-i", "-q", "-r", "48000", "-z", "\(period)", "-o", "audio.jack.autoconnect=1",
                         "-o", "audio.jack.id=fluidsynth", font, song], stopAfter: seconds + 2)
            }
            let row = "\(load), \(period) frames"
            let value = "Pianola \(ours.count) (\(ours.early) in its first 2 s), fluidsynth \(theirs.count); server late \(ours.serverLate + theirs.serverLate)"
            print("  \(row.padding(toLength: 24, withPad: " ", startingAt: 0)) \(value)")
            figures.append(Figure(measure: "cycles missed in \(seconds) s, \(row)", value: value))
        }
    }
    return figures
}

/// A busy loop in a process of its own: `yes > /dev/null`.
private func spawnHog() -> pid_t {
    var pid = pid_t()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = [strdup("/usr/bin/yes"), nil]
    defer { free(argv[0]) }
    posix_spawn(&pid, "/usr/bin/yes", &actions, nil, argv, environ)
    return pid
}

/// Runs `command` to its end, or, with `stopAfter`, stops it that many seconds in.
private func run(_ command: [String], stopAfter: Int? = nil) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    if let stopAfter {
        for _ in 0..<(stopAfter * 100) where process.isRunning { usleep(10_000) }
        // SIGKILL: a child started here may inherit a mask that blocks SIGINT and SIGTERM,
        // and fluidsynth then plays on.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    process.waitUntilExit()
}

/// What a JACK server printed, with when each line came; any thread.
private final class ServerLog: Sendable {
    private let lines = Mutex<[(text: String, at: ContinuousClock.Instant)]>([])

    func append(_ line: String) { lines.withLock { $0.append((line, ContinuousClock.now)) } }

    /// The cycles `client` missed while `body` ran (the server's lines naming it), those in the
    /// first 2 s, and the cycles the server woke too late for meanwhile.
    func misses(of client: String, _ body: () throws -> Void) throws -> (count: Int, early: Int, serverLate: Int) {
        let first = lines.withLock { $0.count }
        let start = ContinuousClock.now
        try body()
        usleep(200_000)   // the server's last lines
        let during = lines.withLock { Array($0[first...]) }
        let ours = during.filter { $0.text.contains("client = \(client) was not finished") }
        let early = ours.filter { $0.at - start < .seconds(2) }.count
        return (ours.count, early, during.filter { $0.text.contains("JackTimedDriver::Process XRun") }.count)
    }
}
