import Foundation

/// Runs the built `pianola` binary (next to the test bundle) and captures what it prints.
struct CLIRun {
    let status: Int32
    let stdout: String
    let stderr: String
    /// True when a signal ended it (a crash), not an exit.
    var signaled = false

    static let binary: URL = {
        let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return me.deletingLastPathComponent().appendingPathComponent("pianola")
    }()

    static func pianola(_ arguments: String...) throws -> CLIRun { try pianola(arguments) }

    /// Runs `pianola` with `arguments`, or `prefix` (a program and its arguments) running it;
    /// `bare`: `prefix` with `arguments` alone (which then name the binary themselves).
    static func pianola(_ arguments: [String], environment: [String: String] = [:], prefix: [String] = [], bare: Bool = false) throws -> CLIRun {
        let program = prefix.isEmpty ? binary : URL(fileURLWithPath: prefix[0])
        let all = prefix.isEmpty ? arguments : Array(prefix.dropFirst()) + (bare ? [] : [binary.path]) + arguments
        let run = try capture(program, all, environment: environment)
        return CLIRun(status: run.status, stdout: String(decoding: run.stdout, as: UTF8.self),
                      stderr: String(decoding: run.stderr, as: UTF8.self), signaled: run.signaled)
    }

    /// Runs `pianola` with `arguments` and returns its status, the bytes it wrote to standard
    /// output, and its standard error.
    static func pianolaBytes(_ arguments: String...) throws -> (status: Int32, stdout: Data, stderr: String) {
        let run = try capture(binary, arguments)
        return (run.status, run.stdout, String(decoding: run.stderr, as: UTF8.self))
    }

    /// Runs the shell command `command` on a pseudo-terminal (`script`), as a user at a
    /// terminal runs it, and returns its status and what the terminal showed.
    static func inTerminal(_ command: String) throws -> (status: Int32, shown: String) {
        let run = try capture(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"])
        return (run.status, String(decoding: run.stdout, as: UTF8.self))
    }

    /// Runs `program`, reading its standard output and standard error at once (so neither
    /// pipe fills and stalls it), with no standard input.
    private static func capture(_ program: URL, _ arguments: [String], environment: [String: String] = [:])
        throws -> (status: Int32, stdout: Data, stderr: Data, signaled: Bool) {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        nonisolated(unsafe) var errData = Data()
        let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1_000) }
        return (process.terminationStatus, outData, errData, process.terminationReason == .uncaughtSignal)
    }
}

/// A scratch directory removed when the test ends.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
