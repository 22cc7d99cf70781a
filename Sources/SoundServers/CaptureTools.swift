import Foundation

/// The capture clients, test helpers in C (Tests/Support/JackCapture, Tests/Support/PipeWireCapture):
/// compiled when first asked for, by the toolchain's clang with pkg-config's flags, into the
/// package's `.build/capture-tools`, so that `swift build` does not build them. Any thread.
enum CaptureTools {
    /// A capture client: its source folder under Tests/Support and its library's pkg-config name.
    enum Tool: String {
        case jack = "jack-capture"
        case pipeWire = "pipewire-capture"

        var source: String { self == .jack ? "Tests/Support/JackCapture/main.c" : "Tests/Support/PipeWireCapture/main.c" }
        var library: String { self == .jack ? "jack" : "libpipewire-0.3" }
    }

    private static let lock = NSLock()

    /// `tool`, built from the package at `root` unless a build newer than its source is there.
    static func binary(_ tool: Tool, root: URL) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        let source = root.appendingPathComponent(tool.source)
        let folder = root.appendingPathComponent(".build/capture-tools")
        let binary = folder.appendingPathComponent(tool.rawValue)
        if let built = modified(binary), let written = modified(source), built > written { return binary }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let flags = try run("pkg-config", ["--cflags", "--libs", tool.library]).split(separator: " ").map(String.init)
        let partial = folder.appendingPathComponent("\(tool.rawValue).\(getpid())")
        _ = try run("clang", ["-O2", "-Wall", "-Werror", "-o", partial.path, source.path] + flags)
        guard rename(partial.path, binary.path) == 0 else { throw SoundServerError("\(binary.path): cannot move the build there: \(String(cString: strerror(errno)))") }
        return binary
    }

    private static func modified(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    /// Runs `command` (from the PATH) and returns its output, trimmed; throws with its errors if it fails.
    private static func run(_ command: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SoundServerError("\(command) \(arguments.joined(separator: " ")) failed: \(problems.split(separator: "\n").first ?? "exit \(process.terminationStatus)")")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
