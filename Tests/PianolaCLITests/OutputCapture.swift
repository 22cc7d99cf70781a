import Foundation
import Testing

/// A capture tool of the tests (`jack-capture`, `pipewire-capture`) recording what reaches
/// it into a raw file; it says "ready" once it records, and when stopped, when its first
/// sound was and how many xruns it saw.
final class OutputCapture {
    let raw: String
    private let process = Process()
    private let output = Pipe()

    /// Starts `tool` with `arguments` (then the raw file's path) in `environment`, and waits until it records.
    init(_ tool: String, _ arguments: [String], environment: [String: String], into scratch: Scratch) throws {
        raw = scratch.url.appendingPathComponent("captured.raw").path
        process.executableURL = CLIRun.binary.deletingLastPathComponent().appendingPathComponent(tool)
        process.arguments = arguments + [raw]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        try process.run()
        // It retries until the server is up, then says "ready RATE".
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")), let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty { line += byte }
        #expect(String(decoding: line, as: UTF8.self).hasPrefix("ready 48000"), "\(tool) did not start")
    }

    /// Stops recording; returns the samples (float stereo), the CLOCK_MONOTONIC nanoseconds of
    /// the first sound, and the xruns it saw.
    func finish() throws -> (samples: [Float], firstSoundNanos: Int64, xruns: Int) {
        if process.isRunning { process.interrupt() }
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        func value(_ key: String) -> Int64 {
            report.split(whereSeparator: { $0 == "\n" || $0 == " " }).first { $0.hasPrefix(key + "=") }.flatMap { Int64($0.dropFirst(key.count + 1)) } ?? -1
        }
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (samples, value("first_sound_ns"), Int(value("xruns")))
    }
}

/// The signal-to-noise ratio of `captured` against `reference` (float stereo), aligned on
/// their first sound (above 1e-4), over the reference's length from there; `nil` if the
/// capture is shorter, that is, has a gap or an end cut off.
func alignedSNR(captured: [Float], reference: [Float]) -> Double? {
    func firstSound(_ x: [Float]) -> Int? { x.firstIndex { abs($0) > 1e-4 }.map { $0 / 2 * 2 } }
    guard let a = firstSound(captured), let b = firstSound(reference), captured.count - a >= reference.count - b else { return nil }
    var signal = 0.0, noise = 0.0
    for k in 0..<(reference.count - b) {
        signal += Double(reference[b + k]) * Double(reference[b + k])
        noise += pow(Double(captured[a + k]) - Double(reference[b + k]), 2)
    }
    return noise == 0 ? .infinity : 10 * log10(signal / noise)
}
