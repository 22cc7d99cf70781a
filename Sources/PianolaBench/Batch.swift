import Foundation

/// The whole corpus rendered with `font` four ways: `pianola render CORPUS -o DIR/` (one
/// shared font, songs at once on every core) on libfluidsynth and on Pianola's synthesizer,
/// a shell loop of `fluidsynth -F` per file, and `fluidsynth -F` per file under `xargs -P2`;
/// `rounds` interleaved runs each, wall and CPU time, medians with min–max, and the wall-time
/// ratios of each of Pianola's over each peer.
func batchBenchmark(corpus: String, font: String, rounds: Int = 1) throws -> [Figure] {
    let pianola = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pianola").path
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-batch-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: out) }
    let songs = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.lowercased().hasSuffix(".mid") }.count
    let fluid = "fluidsynth -ni -q -r 48000 -F \"$1/$(basename \"$0\" .mid).wav\" \"$2\" \"$0\" >/dev/null 2>&1"
    let contenders = [
        Contender(name: "pianola render CORPUS -o DIR/", arguments: [pianola, "render", corpus, "-o", out + "/", "--soundfont", font, "--force"]),
        Contender(name: "the same, --synth fluidsynth", arguments: [pianola, "render", corpus, "-o", out + "/", "--soundfont", font, "--force", "--synth", "fluidsynth"]),
        Contender(name: "fluidsynth -F per file, a loop", arguments: ["/bin/sh", "-c", "for f in \"$0\"/*.mid; do sh -c '\(fluid)' \"$f\" \"$1\" \"$2\"; done", corpus, out, font]),
        Contender(name: "fluidsynth -F per file, xargs -P2", arguments: ["/bin/sh", "-c", "ls \"$0\"/*.mid | xargs -P2 -I{} sh -c '\(fluid); exit 0' {} \"$1\" \"$2\"", corpus, out, font]),
    ]
    print("Batch: \(songs) songs of \(corpus), \(font), 48 kHz; \(rounds) interleaved round\(rounds == 1 ? "" : "s")")
    var walls: [String: [Double]] = [:], cpus: [String: [Double]] = [:]
    for _ in 0..<rounds {
        for contender in contenders {
            try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let run = try measure(contender.arguments)
            let written = (try? FileManager.default.contentsOfDirectory(atPath: out).count) ?? 0
            print(String(format: "  %@ wall %6.1f s, CPU %6.1f s, %d files written", contender.name.padding(toLength: 36, withPad: " ", startingAt: 0), run.wall, run.cpu, written))
            walls[contender.name, default: []].append(run.wall)
            cpus[contender.name, default: []].append(run.cpu)
        }
    }
    var figures = contenders.map { contender in
        Figure(measure: "batch wall (CPU): \(contender.name)",
               value: medianRange(walls[contender.name]!, "%.1f") + " s (" + medianRange(cpus[contender.name]!, "%.1f") + " s)")
    }
    for ours in contenders.prefix(2) {
        for peer in contenders.dropFirst(2) {
            figures.append(Figure(measure: "batch speed-up of \(ours.name) over \(peer.name)",
                                  value: String(format: "%.2f×", median(walls[peer.name]!) / median(walls[ours.name]!))))
        }
    }
    figures.forEach { print("  \($0.measure): \($0.value)") }
    return figures
}
