import Foundation
import MIDI
import Pianola

/// An SF3 against the SF2 it was compressed from (e.g. `sf3convert -z FluidR3_GM.sf2
/// FluidR3_GM.sf3`): load time, time to the first block and RSS, eager and lazy, each in a
/// fresh process: the SF2, the SF3 read by libfluidsynth itself, the SF3's first load (which
/// decodes it into an empty cache) and a later one (from the cache); then the song rendered
/// with each font, three rounds interleaved, Pianola's CPU (from the cache) beside
/// `fluidsynth -F`'s on the same font.
func compressedFontBenchmark(sf2: String, sf3: String, song: String) throws -> [Figure] {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-cache-\(getpid())").path
    let cache = "\(root)/soundfonts"   // where PIANOLA_CACHE=root puts decoded fonts
    defer { try? FileManager.default.removeItem(atPath: root) }
    var figures = try fontBenchmark(font: sf2, cache: nil) + fontBenchmark(font: sf3, cache: nil)
    let decodeStart = clock.now
    guard DecodedSoundFonts.copy(of: sf3, in: cache) != nil else { throw BenchError("\(sf3): no decoded copy could be made") }
    let decoding = seconds(clock.now - decodeStart)
    print(String(format: "  first load decodes it into the cache: %.2f s", decoding))
    figures.append(Figure(measure: "SF3 decoded into the cache at its first load (\((sf3 as NSString).lastPathComponent))", value: String(format: "%.2f s", decoding)))
    figures += try fontBenchmark(font: sf3, cache: cache)
    setenv("PIANOLA_CACHE", root, 1)   // the renders below read the copy made above
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
        figures.append(Figure(measure: "render CPU with \((font as NSString).lastPathComponent), load included (pianola from the cache / fluidsynth -F, medians of 3)",
                              value: String(format: "%.2f s / %.2f s", pianola.sorted()[1], fluidsynth.sorted()[1])))
    }
    return figures
}

/// A benchmark that cannot run, as one line.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
