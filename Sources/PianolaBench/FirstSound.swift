import Foundation
import Pianola

/// A command the benchmarks run against its peer: what it is called in the table, and its
/// arguments (the first is the program).
struct Contender {
    let name: String
    let arguments: [String]
}

/// What one run of a command measured.
struct RunFigures {
    var wall: Double
    var firstSound: Double?
    var status: Int32
    /// CPU seconds (user + system) of the command and the children it waited for.
    var cpu: Double
}

/// Runs `command` with posix_spawn, draining `fifo` (if given) as raw samples of `sampleBytes`
/// (4: float, 2: 16-bit) and noting when the first one above −80 dB arrives; returns the wall
/// time, the child's CPU (wait4) and that moment, all from the spawn.
func measure(_ command: [String], fifo: String? = nil, sampleBytes: Int = 4) throws -> RunFigures {
    var pid = pid_t()
    var fileActions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&fileActions)
    defer { posix_spawn_file_actions_destroy(&fileActions) }
    posix_spawn_file_actions_addopen(&fileActions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&fileActions, 2, "/dev/null", O_WRONLY, 0)
    let argv = command.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let start = clock.now
    guard posix_spawn(&pid, command[0], &fileActions, nil, argv, environ) == 0 else {
        throw BenchmarkFailure(message: "cannot run \(command[0])")
    }
    var firstSound: Double?
    if let fifo {
        let fd = open(fifo, O_RDONLY)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var carry = 0
        while case let n = buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress! + carry, $0.count - carry) }), n > 0 {
            let available = carry + n, whole = available / sampleBytes * sampleBytes
            if firstSound == nil {
                let loud = buffer.withUnsafeBytes { raw -> Bool in
                    sampleBytes == 4 ? raw.bindMemory(to: Float.self).prefix(whole / 4).contains { abs($0) > 1e-4 }
                                     : raw.bindMemory(to: Int16.self).prefix(whole / 2).contains { abs(Int($0)) > 3 }
                }
                if loud { firstSound = seconds(clock.now - start) }
            }
            carry = available - whole
            if carry > 0 { buffer.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[whole..<available])) } }
        }
        close(fd)
    }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return RunFigures(wall: seconds(clock.now - start), firstSound: firstSound, status: status,
                      cpu: s(usage.ru_utime) + s(usage.ru_stime))
}

/// A benchmark could not run.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// `values`' median (of an even count, the mean of the middle two).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// `values`' median with its range, as "m (lo–hi)" in `format`.
func medianRange(_ values: [Double], _ format: String) -> String {
    String(format: "\(format) (\(format)–\(format))", median(values), values.min() ?? 0, values.max() ?? 0)
}

/// The time from process start to the first audible sample, for `pianola render` and `play`
/// against `fluidsynth -F` and fluidsynth's ALSA output (its default settings, and with
/// dynamic sample loading), all writing raw float samples into a FIFO this process drains;
/// `rounds` interleaved runs each, medians with min–max.
func firstSoundBenchmark(song: String, font: String, rounds: Int = 5) throws -> [Figure] {
    let pianola = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pianola").path
    let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-\(getpid()).raw").path
    guard mkfifo(fifo, 0o600) == 0 else { throw BenchmarkFailure(message: "mkfifo \(fifo) failed") }
    defer { unlink(fifo) }
    let fluid = ["/usr/bin/fluidsynth", "-ni", "-q", "-r", "48000"]
    let dynamic = ["-o", "synth.dynamic-sample-loading=1"]
    let alsaFile = "file:'\(fifo)',raw"
    let contenders = [
        Contender(name: "pianola render", arguments: [pianola, "render", song, "-o", fifo, "--force", "--bits", "32f", "--soundfont", font, "--tail", "0"]),
        Contender(name: "pianola render --synth fluidsynth", arguments: [pianola, "render", song, "-o", fifo, "--force", "--bits", "32f", "--soundfont", font,
                                                                         "--tail", "0", "--synth", "fluidsynth"]),
        Contender(name: "fluidsynth -F", arguments: fluid + ["-F", fifo, "-T", "raw", "-O", "float", font, song]),
        Contender(name: "fluidsynth -F, dynamic loading", arguments: fluid + dynamic + ["-F", fifo, "-T", "raw", "-O", "float", font, song]),
        Contender(name: "pianola play", arguments: [pianola, "play", song, "--soundfont", font, "--device", alsaFile, "--to", "3", "--quiet"]),
        Contender(name: "pianola play --synth fluidsynth", arguments: [pianola, "play", song, "--soundfont", font, "--device", alsaFile, "--to", "3", "--quiet",
                                                                       "--synth", "fluidsynth"]),
        Contender(name: "fluidsynth (ALSA)", arguments: fluid + ["-a", "alsa", "-o", "audio.alsa.device=\(alsaFile)", "-o", "audio.sample-format=float",
                                                                  "-o", "player.timing-source=sample", font, song]),
        Contender(name: "fluidsynth (ALSA), dynamic loading", arguments: fluid + dynamic + ["-a", "alsa", "-o", "audio.alsa.device=\(alsaFile)",
                                                                  "-o", "audio.sample-format=float", "-o", "player.timing-source=sample", font, song]),
    ]
    print("First sound: \(song), \(font); process start to the first sample above −80 dB, \(rounds) interleaved rounds")
    var times: [String: [Double]] = [:]
    for _ in 0..<rounds {
        for contender in contenders {
            let figures = try measure(contender.arguments, fifo: fifo)
            if let first = figures.firstSound { times[contender.name, default: []].append(first) }
        }
    }
    var figures: [Figure] = []
    for contender in contenders {
        guard let measured = times[contender.name], !measured.isEmpty else {
            print("  \(contender.name): no sound")
            continue
        }
        let value = medianRange(measured.map { $0 * 1000 }, "%.0f") + " ms"
        print("  \(contender.name.padding(toLength: 48, withPad: " ", startingAt: 0)) \(value)")
        figures.append(Figure(measure: "first sound: \(contender.name)", value: value))
    }
    return figures
}

/// Peak resident memory rendering `song` with `font`: `pianola render` against `fluidsynth -F`
/// with its defaults and with dynamic sample loading, and `pianola render` with the project's
/// own 400 KB font, each font on libfluidsynth and on Pianola's own synthesizer; `rounds`
/// interleaved runs each, medians with min–max.
func memoryBenchmark(song: String, font: String, rounds: Int = 3) throws -> [Figure] {
    let pianola = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pianola").path
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-\(getpid()).wav").path
    defer { unlink(output) }
    let ownFont = URL(fileURLWithPath: pianola).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("soundfonts/pianola-gm.sf2").path
    let fluid = ["/usr/bin/fluidsynth", "-ni", "-q", "-r", "48000", "-F", output]
    let contenders = [
        Contender(name: "pianola render", arguments: [pianola, "render", song, "-o", output, "--force", "--soundfont", font]),
        Contender(name: "fluidsynth -F", arguments: fluid + [font, song]),
        Contender(name: "fluidsynth -F, dynamic loading", arguments: fluid + ["-o", "synth.dynamic-sample-loading=1", font, song]),
        Contender(name: "pianola render, pianola-gm.sf2", arguments: [pianola, "render", song, "-o", output, "--force", "--soundfont", ownFont]),
        Contender(name: "pianola render --synth fluidsynth", arguments: [pianola, "render", song, "-o", output, "--force", "--soundfont", font, "--synth", "fluidsynth"]),
        Contender(name: "pianola render --synth fluidsynth, pianola-gm.sf2",
                  arguments: [pianola, "render", song, "-o", output, "--force", "--soundfont", ownFont, "--synth", "fluidsynth"]),
    ]
    // A child this process spawns starts with this process's own peak (Linux carries the
    // parent's high-water mark into a vfork child's at exec): GNU time, a small process,
    // runs each command instead and writes its peak in KB.
    let time = "/usr/bin/time", peakFile = output + ".peak"
    guard access(time, X_OK) == 0 else { throw BenchmarkFailure(message: "memory: \(time) is missing (Debian's time package)") }
    defer { unlink(peakFile) }
    print("Peak RSS: \(song), \(font); \(rounds) interleaved rounds")
    var peaks: [String: [Double]] = [:]
    for _ in 0..<rounds {
        for contender in contenders {
            unlink(output)
            _ = try measure([time, "-f", "%M", "-o", peakFile] + contender.arguments)
            guard let kilobytes = (try? String(contentsOfFile: peakFile, encoding: .utf8)).flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
                throw BenchmarkFailure(message: "memory: \(time) wrote no peak for \(contender.name)")
            }
            peaks[contender.name, default: []].append(kilobytes / 1024)
        }
    }
    return contenders.map { contender in
        let value = medianRange(peaks[contender.name]!, "%.1f") + " MB"
        print("  \(contender.name.padding(toLength: 48, withPad: " ", startingAt: 0)) \(value)")
        return Figure(measure: "peak RSS: \(contender.name)", value: value)
    }
}
