import Foundation
import SoundServers

/// The time from `pianola play`'s process start to the first sample above −80 dB that a
/// capture client receives from the server, on a real jackd (dummy backend, 256-frame periods)
/// and a real headless PipeWire (null sink, Pianola's default 256-frame quantum), each started
/// here; `rounds` runs each, medians with min–max. (Debian 12's fluidsynth has no PipeWire
/// driver, and its JACK driver connects only to physical ports, so it has no run here; the
/// ALSA figures are `first-sound`'s.)
func outputLatencyBenchmark(song: String, font: String, rounds: Int = 5) throws -> [Figure] {
    let pianola = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pianola").path
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    print("Output latency: \(song), \(font); `pianola play` process start to the first sample the server delivers, \(rounds) runs")
    var figures: [Figure] = []
    for driver in ["jack", "pipewire"] {
        let jack = driver == "jack" ? try JACKServer() : nil
        let pipeWire = driver == "pipewire" ? try PipeWireServer() : nil
        let environment = jack?.environment ?? pipeWire?.environment ?? [:]
        for (key, value) in environment { setenv(key, value, 1) }
        defer { for key in environment.keys { unsetenv(key) } }
        var latencies: [Double] = []
        for _ in 0..<rounds {
            let capture = try jack.map { try OutputCapture(jackOn: $0, seconds: 10, package: root, into: folder) }
                ?? OutputCapture(pipeWireOn: pipeWire!, seconds: 10, package: root, into: folder)
            var start = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            let run = try measure([pianola, "play", song, "--soundfont", font, "--driver", driver, "--to", "3", "--quiet"]
                                  + (driver == "jack" ? ["--device", "capture"] : []))
            let (_, firstSound, _) = try capture.finish()
            guard run.status == 0, firstSound > 0 else { throw BenchmarkFailure(message: "pianola play --driver \(driver) exited \(run.status) or was not heard") }
            latencies.append(Double(firstSound - (Int64(start.tv_sec) * 1_000_000_000 + Int64(start.tv_nsec))) / 1e6)
        }
        let value = medianRange(latencies, "%.0f") + " ms"
        print("  \(driver.padding(toLength: 10, withPad: " ", startingAt: 0)) \(value)")
        figures.append(Figure(measure: "play to first sound heard: \(driver)", value: value))
    }
    return figures
}
