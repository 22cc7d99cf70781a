import Foundation
import MIDI
import Pianola

/// An SF3 against the SF2 it was compressed from (e.g. `sf3convert -z FluidR3_GM.sf2
/// FluidR3_GM.sf3`): load time, time to the first block and RSS, eager and lazy, each in a
/// fresh process; then the song rendered with each, three rounds interleaved, Pianola's CPU
/// beside `fluidsynth -F`'s on the same font.
func compressedFontBenchmark(sf2: String, sf3: String, song: String) throws -> [Figure] {
    var figures = try fontBenchmark(font: sf2) + fontBenchmark(font: sf3)
    let sequence = MusicSequence(file: try MIDIFile(contentsOf: song))
    print("Render: \(song) (\(String(format: "%.1f", sequence.durationSeconds)) s) with each font")
    let ours = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-\(getpid()).wav").path
    let theirs = FileManager.default.temporaryDirectory.appendingPathComponent("fluidsynth-bench-\(getpid()).wav").path
    defer { try? FileManager.default.removeItem(atPath: ours); try? FileManager.default.removeItem(atPath: theirs) }
    var cpu: [String: (pianola: [Double], fluidsynth: [Double])] = [:]
    for round in 1...3 {
        for font in [sf2, sf3] {
            let (ourCPU, ourWall, _) = try renderWithPianola(sequence: sequence, font: font, to: ours)
            let (theirCPU, theirWall, status) = try renderWithFluidSynth(song: song, font: font, to: theirs)
            print(String(format: "  round %d, %@: pianola CPU %6.2f s (wall %6.2f s) | fluidsynth -F CPU %6.2f s (wall %6.2f s, exit %d)",
                         round, (font as NSString).lastPathComponent, ourCPU, ourWall, theirCPU, theirWall, status))
            cpu[font, default: ([], [])].pianola.append(ourCPU)
            cpu[font, default: ([], [])].fluidsynth.append(theirCPU)
        }
    }
    for font in [sf2, sf3] {
        let (pianola, fluidsynth) = cpu[font]!
        figures.append(Figure(measure: "render CPU with \((font as NSString).lastPathComponent), load included (pianola / fluidsynth -F, medians of 3)",
                              value: String(format: "%.2f s / %.2f s", pianola.sorted()[1], fluidsynth.sorted()[1])))
    }
    return figures
}
