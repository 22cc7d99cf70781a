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
        let process = Process()
        process.executableURL = prefix.isEmpty ? binary : URL(fileURLWithPath: prefix[0])
        process.arguments = prefix.isEmpty ? arguments : Array(prefix.dropFirst()) + (bare ? [] : [binary.path]) + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIRun(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self), signaled: process.terminationReason == .uncaughtSignal)
    }
}

extension CLIRun {
    /// Runs `pianola` with `arguments` and returns its status, the bytes it wrote to standard
    /// output, and its standard error.
    static func pianolaBytes(_ arguments: String...) throws -> (status: Int32, stdout: Data, stderr: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
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
        while reader.isExecuting || !reader.isFinished { usleep(1_000) }
        return (process.terminationStatus, outData, String(decoding: errData, as: UTF8.self))
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
