// Benchmarks that print figures (never pass/fail):
//   swift run -c release pianola-bench smf [CORPUS_DIR]      SMF read MB/s over the corpus
//   swift run -c release pianola-bench render [SONG] [FONT]  render CPU time vs `fluidsynth -F`
//   swift run -c release pianola-bench synth [SONG] [FONT]   Pianola's own synthesizer vs `fluidsynth -F -z 4096`, effects off: CPU on one thread, wall time on two
//   swift run -c release pianola-bench font [FONT]           RSS and time to first block, lazy vs eager
//   swift run -c release pianola-bench play [SONG] [FONT]    CPU of `pianola play` in real time, time to first period
//   swift run -c release pianola-bench stream [MINUTES]      RSS while a long FLAC streams (60 minutes by default)
//   swift run -c release pianola-bench soak [MINUTES]        looped playback with tempo changes: wraps exact, RSS, voices
//   swift run -c release pianola-bench allocations [SONG] [FONT]  heap allocations per render cycle, steady state
//   swift run -c release pianola-bench c-render [SONG] [FONT]     the C library's render call against the Swift one
//   swift run -c release pianola-bench first-sound [SONG] [FONT]  process start to first sound: render, play, fluidsynth
//   swift run -c release pianola-bench outputs [SONG] [FONT]     process start to first sound heard through a real jackd and PipeWire, then missed-cycles
//   swift run -c release pianola-bench missed-cycles [SONG] [FONT] [SECONDS]  cycles missed in jackd by Pianola and fluidsynth, idle and loaded
//   swift run -c release pianola-bench memory [SONG] [FONT]       peak RSS rendering the corpus's largest song, and fluidsynth's
//   swift run -c release pianola-bench batch [DIR] [FONT] [ROUNDS]  a folder rendered by `pianola render DIR -o OUT/` against fluidsynth per file
//   swift run -c release pianola-bench effects [SONG] [FONT]  each built-in effect's speed; the reverb and chorus of both synthesizers side by side
//   swift run -c release pianola-bench sf3 SF2 SF3 [SONG]    an SF3 against the SF2 it was made from: load (direct, decoding into the cache, from it), RSS, render CPU
//   swift run -c release pianola-bench voices                voices per core at 48 kHz and 90 % busy, Pianola's and libfluidsynth's; instructions a voice-frame
//   swift run -c release pianola-bench preset-renders FONT DIR [BANK-PROGRAM…]  every preset's notes by both synthesizers, for Tools/preset-conformance.sh
// With no argument: smf, render, font, allocations, c-render and play on ../shared/corpus and its densest
// song with FluidR3_GM if installed, then one table of every figure.
import AllocationCounter
import Foundation
import AudioFile
import MIDI
import Pianola
import SongBook
import SoundFontModel

let corpus = "../shared/corpus/midi"
let arguments = Array(CommandLine.arguments.dropFirst())
let clock = ContinuousClock()

/// One row of the closing table: what was measured, and the figure.
struct Figure {
    let measure: String
    let value: String
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }

/// CPU seconds (user + system) used by this process, or by its finished children.
func cpuSeconds(children: Bool = false) -> Double {
    var usage = rusage()
    getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

func smfBenchmark(_ directory: String) -> [Figure] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory).sorted(), !names.isEmpty else {
        print("smf: no MIDI files in \(directory)")
        return []
    }
    var figures: [Figure] = []
    let files = names.compactMap { name -> (String, [UInt8])? in
        FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(name)).map { (name, Array($0)) }
    }
    let totalBytes = files.reduce(0) { $0 + $1.1.count }
    print("SMF read: \(files.count) files, \(String(format: "%.2f", Double(totalBytes) / 1e6)) MB, \(directory)")
    for mode in [MIDIFile.ReadMode.lenient, .strict] {
        var passes = 0, tracks = 0
        let start = clock.now
        repeat {
            for (_, bytes) in files {
                if let file = try? MIDIFile(bytes: bytes, mode: mode) { tracks &+= file.tracks.count }
            }
            passes += 1
        } while clock.now - start < .seconds(3)
        let elapsed = seconds(clock.now - start)
        let rate = String(format: "%.1f MB/s", Double(totalBytes * passes) / elapsed / 1e6)
        print("  \(mode == .lenient ? "lenient" : "strict ") \(rate)  (\(passes) passes in \(String(format: "%.2f", elapsed)) s)")
        figures.append(Figure(measure: "SMF read, \(mode == .lenient ? "lenient" : "strict") (\(files.count) corpus files)", value: rate))
        precondition(tracks != 0)
    }
    var slowest = ("", 0.0)
    for (name, bytes) in files {
        let start = clock.now
        _ = try? MIDIFile(bytes: bytes)
        let t = seconds(clock.now - start)
        if t > slowest.1 { slowest = (name, t) }
    }
    print("  slowest file: \(slowest.0) \(String(format: "%.2f", slowest.1 * 1000)) ms")
    return figures
}

func renderBenchmark(song: String, font: String) throws -> [Figure] {
    let (ratios, _, speeds) = try interleavedRenders(song: song, font: font, engine: .fluidsynth, effects: true, bufferFrames: nil)
    print(String(format: "  median ratio (fluidsynth CPU / pianola CPU): %.2f×", ratios[1]))
    let name = (song as NSString).lastPathComponent
    return [Figure(measure: "render CPU: fluidsynth -F ÷ pianola render (\(name), median of 3)", value: String(format: "%.2f×", ratios[1])),
            Figure(measure: "pianola render speed (CPU)", value: String(format: "%.0f× real time", speeds[1]))]
}

/// Pianola's own synthesizer against `fluidsynth -F -z 4096` (its fastest) on the same song
/// and font, reverb and chorus off on both: CPU on one thread, wall time on two.
func synthBenchmark(song: String, font: String) throws -> [Figure] {
    let (cpu, _, _) = try interleavedRenders(song: song, font: font, engine: .pianola, effects: false, bufferFrames: 4096)
    let (_, wall, _) = try interleavedRenders(song: song, font: font, engine: .pianola, threads: 2, effects: false, bufferFrames: 4096)
    let name = (song as NSString).lastPathComponent
    return [Figure(measure: "render CPU, effects off: fluidsynth -F -z 4096 ÷ Pianola's synthesizer (\(name), median of 3)", value: String(format: "%.2f×", cpu[1])),
            Figure(measure: "render wall time, effects off: fluidsynth -F -z 4096 ÷ Pianola's synthesizer --threads 2 (\(name), median of 3)",
                   value: String(format: "%.2f×", wall[1]))]
}

/// Renders `song` with `font` through Pianola on `engine` with `threads` and through
/// `fluidsynth -F` (with `-z bufferFrames` when given), reverb and chorus `effects` on both,
/// three rounds alternating so that the machine's load falls on both alike; prints each round
/// and returns the CPU and wall-time ratios (fluidsynth ÷ Pianola) and Pianola's speeds (×
/// real time, CPU), each sorted.
func interleavedRenders(song: String, font: String, engine: SynthesisEngine, threads: Int = 1, effects: Bool,
                        bufferFrames: Int?) throws -> (cpu: [Double], wall: [Double], speeds: [Double]) {
    let sequence = MusicSequence(file: try MIDIFile(contentsOf: song))
    let ourName = (engine == .pianola ? "Pianola's synthesizer" : "pianola") + (threads > 1 ? " --threads \(threads)" : "")
    let theirName = "fluidsynth -F" + (bufferFrames.map { " -z \($0)" } ?? "")
    fflush(nil)
    print("\(engine == .pianola ? "Synth" : "Render"): \(song) (\(String(format: "%.1f", sequence.durationSeconds)) s), \(font), 48 kHz, reverb and chorus \(effects ? "on" : "off"), polyphony 256")
    let ours = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-\(getpid()).wav").path
    let theirs = FileManager.default.temporaryDirectory.appendingPathComponent("fluidsynth-bench-\(getpid()).wav").path
    defer { try? FileManager.default.removeItem(atPath: ours); try? FileManager.default.removeItem(atPath: theirs) }
    var ratios: [Double] = [], walls: [Double] = [], speeds: [Double] = []
    for round in 1...3 {
        let (ourCPU, ourWall, frames) = try renderWithPianola(sequence: sequence, font: font, to: ours, engine: engine, threads: threads, effects: effects)
        let (theirCPU, theirWall, status) = try renderWithFluidSynth(song: song, font: font, to: theirs, effects: effects, bufferFrames: bufferFrames)
        let audio = Double(frames) / 48_000
        print(String(format: "  round %d: %@ CPU %6.2f s (%4.0f× real time, wall %6.2f s) | %@ CPU %6.2f s (%4.0f×, wall %6.2f s, exit %d) | ratio %.2f×",
                     round, ourName, ourCPU, audio / ourCPU, ourWall, theirName, theirCPU, audio / theirCPU, theirWall, status, theirCPU / ourCPU))
        ratios.append(theirCPU / ourCPU)
        walls.append(theirWall / ourWall)
        speeds.append(audio / ourCPU)
    }
    return (ratios.sorted(), walls.sorted(), speeds.sorted())
}

/// Pianola: the same graph and player as `pianola render`, writing a 16-bit WAV, on `engine`
/// with `threads`, reverb and chorus `effects` (or each as `reverb` and `chorus` say). CPU and wall seconds, and frames written.
func renderWithPianola(sequence: MusicSequence, font: String, to path: String, engine: SynthesisEngine = .fluidsynth, threads: Int = 1,
                       effects: Bool = true, reverb: Bool? = nil, chorus: Bool? = nil) throws -> (Double, Double, Int) {
    var settings = SongGraph.Settings()
    settings.tailSeconds = 0
    settings.engine = engine
    settings.threads = threads
    (settings.reverb, settings.chorus) = (reverb ?? effects, chorus ?? effects)
    let cpuBefore = cpuSeconds()
    let wallBefore = clock.now
    let renderer = try SongRenderer(sequence: sequence, soundFontPath: font, settings: settings)
    let writer = try AudioFileWriter(path: path, container: .wav, encoding: .int16, sampleRate: 48_000, overwrite: true)
    var frames = 0
    try renderer.render { (slice, _) throws(AudioFileError) in
        try writer.write(left: slice.left, right: slice.right, frames: slice.frames)
        frames += slice.frames
    }
    try writer.close()
    return (cpuSeconds() - cpuBefore, seconds(clock.now - wallBefore), frames)
}

/// fluidsynth's fast render, same font, rate and synthesis settings (reverb and chorus
/// `effects`, or each as `reverb` and `chorus` say; `-z` when `bufferFrames` is given): CPU and
/// wall seconds, exit status.
func renderWithFluidSynth(song: String, font: String, to path: String, effects: Bool = true, reverb: Bool? = nil, chorus: Bool? = nil,
                          bufferFrames: Int? = nil) throws -> (Double, Double, Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/fluidsynth")
    process.arguments = ["-ni", "-q", "-F", path, "-r", "48000", "-o", "synth.polyphony=256", "-o", "synth.reverb.active=\((reverb ?? effects) ? 1 : 0)",
                         "-o", "synth.chorus.active=\((chorus ?? effects) ? 1 : 0)"] + (bufferFrames.map { ["-z", String($0)] } ?? []) + [font, song]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let childBefore = cpuSeconds(children: true)
    let wallBefore = clock.now
    try process.run()
    process.waitUntilExit()
    return (cpuSeconds(children: true) - childBefore, seconds(clock.now - wallBefore), process.terminationStatus)
}

/// Resident memory of this process in MB, from /proc/self/statm.
func residentMB() -> Double {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = Double(statm.split(separator: " ")[1]) ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// In a child process: load `font` eagerly or lazily, play one note on each of programs 0,
/// 24, 48 and the drums, and report load time, time to the first rendered block and RSS.
/// SF3 fonts are decoded into `cache` (`nil`: libfluidsynth decodes them itself).
func fontChild(font: String, lazy: Bool, cache: String?) throws {
    let start = clock.now
    var configuration = FluidSynthesizer.Configuration()
    configuration.lazySampleLoading = lazy
    configuration.decodedFontFolder = cache
    let synth = try FluidSynthesizer(configuration: configuration)
    _ = try synth.loadSoundFont(path: font)
    let loaded = seconds(clock.now - start)
    let left = UnsafeMutablePointer<Float>.allocate(capacity: 64), right = UnsafeMutablePointer<Float>.allocate(capacity: 64)
    for (channel, program) in [(0, 0), (1, 24), (2, 48)] { synth.programChange(channel: channel, program: program) }
    for channel in [0, 1, 2, 9] { synth.noteOn(channel: channel, key: channel == 9 ? 38 : 60, velocity: 100) }
    synth.render(left: left, right: right, frames: 64)
    let firstBlock = seconds(clock.now - start)
    print(String(format: "%@ %.3f %.3f %.1f", lazy ? "lazy" : "eager", loaded, firstBlock, residentMB()))
}

/// The same in Pianola's own SoundFont model: the font mapped and its tables read, then the
/// regions of the same four notes found and their samples' pages touched (what a first block
/// needs). Prints "model LOAD FIRST RSS_MB RSS_BEFORE_MB SUM".
func modelFontChild(font: String) throws {
    let before = residentMB()
    let start = clock.now
    let model = try SoundFont(path: font)
    let loaded = seconds(clock.now - start)
    var touched: Int64 = 0
    for (bank, program, key) in [(0, 0, 60), (0, 24, 60), (0, 48, 60), (128, 0, 38)] {
        guard let preset = model.preset(bank: bank, program: program) else { continue }
        for region in model.regions(of: preset, key: UInt8(key), velocity: 100) {
            for sample in model.data(of: model.samples[region.sample]) { touched &+= Int64(sample) }
        }
    }
    let firstBlock = seconds(clock.now - start)
    // The samples' sum is printed last so that reading them cannot be optimised away.
    print(String(format: "model %.3f %.3f %.1f %.1f %lld", loaded, firstBlock, residentMB(), before, touched))
}

/// Loads `font` eagerly and lazily, each in a fresh process: load time, time to the first
/// block with four programs sounding, and resident memory. An SF3 is read through the decoded
/// copy in `cache`, or with `nil` by libfluidsynth itself.
func fontBenchmark(font: String, cache: String? = DecodedSoundFonts.folder) throws -> [Figure] {
    print("SoundFont: \(font), 4 programs sounding\(cache == nil ? "" : ", SF3 decoded into \(cache!)")")
    var measured: [String: [Double]] = [:]
    for mode in ["eager", "lazy"] + (font.hasSuffix(".sf2") ? ["model"] : []) {
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = mode == "model" ? ["model-font-child", font] : ["font-child", mode, font] + (cache.map { [$0] } ?? [])
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let numbers = line.split(separator: " ").dropFirst().compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard numbers.count >= 3 else { print("  \(mode): the child failed: \(line)"); continue }
        measured[mode] = numbers
        print(String(format: "  %@ load %6.3f s, first block %6.3f s after start, RSS %6.1f MB", mode.padding(toLength: 5, withPad: " ", startingAt: 0), numbers[0], numbers[1], numbers[2]))
    }
    guard let eager = measured["eager"], let lazy = measured["lazy"] else { return [] }
    let name = (font as NSString).lastPathComponent + (cache != nil && font.hasSuffix(".sf3") ? " from its decoded copy" : "")
    let model = measured["model"].map { [Figure(measure: "Pianola's own SoundFont model, \(name): load, first notes' samples touched, RSS",
                                                value: String(format: "%.3f s, %.3f s, %.1f MB (%.1f MB before the font)", $0[0], $0[1], $0[2], $0[3]))] } ?? []
    return model + [Figure(measure: "SoundFont load time, \(name) (eager / lazy)", value: String(format: "%.3f s / %.3f s", eager[0], lazy[0])),
            Figure(measure: "RSS with \(name) loaded, 4 programs sounding (eager / lazy)", value: String(format: "%.1f MB / %.1f MB", eager[2], lazy[2])),
            Figure(measure: "time to the first rendered block, \(name) (eager / lazy)", value: String(format: "%.3f s / %.3f s", eager[1], lazy[1]))]
}

/// Heap allocations on the render thread per render cycle of the song's graph (512 frames),
/// counted over 2,000 cycles after 200 of warm-up; libgomp's (Debian's libfluidsynth renders
/// inside OpenMP) are counted apart. With one synthesizer, and with the song split over two
/// (`FluidSynthSplitNode`, whose render thread hands the second part to a thread of its own).
func allocationsBenchmark(song: String, font: String) throws -> [Figure] {
    let sequence = MusicSequence(file: try MIDIFile(contentsOf: song))
    var figures: [Figure] = []
    for threads in [1, 2] {
        var settings = SongGraph.Settings()
        settings.threads = threads
        let renderer = try SongRenderer(sequence: sequence, soundFontPath: font, settings: settings)
        let buffer = AudioBuffer(capacity: 512)
        for _ in 0..<200 { renderer.songGraph.graph.render(into: buffer.slice(frames: 512)) }
        pianola_allocations_start()
        for _ in 0..<2_000 { renderer.songGraph.graph.render(into: buffer.slice(frames: 512)) }
        let ours = pianola_allocations_stop()
        let openMP = pianola_allocations_by_openmp()
        let label = threads == 1 ? "one synthesizer" : "split over \(threads) synthesizers"
        print("Allocations: \(song), \(font), \(label): \(ours) in 2,000 render cycles of 512 frames (libgomp: \(openMP))")
        figures.append(Figure(measure: "heap allocations per render cycle (render thread, steady state, \(label))",
                              value: String(format: "%.3f (libgomp %.3f)", Double(ours) / 2_000, Double(openMP) / 2_000)))
    }
    return figures
}

/// Plays 60 s of `song` with the release `pianola` through ALSA's `file` plugin into a FIFO
/// that this process drains at exactly real-time speed (48 kHz, stereo float), so the device
/// paces playback as a sound card would. Reports the player's CPU as a share of one core, and
/// the time from its start to the first audio reaching the FIFO.
func playBenchmark(song: String, font: String) throws -> [Figure] {
    let pianola = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pianola").path
    guard FileManager.default.isExecutableFile(atPath: pianola) else {
        print("play: build it first: swift build -c release --product pianola")
        return []
    }
    let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-\(getpid()).fifo").path
    guard mkfifo(fifo, 0o600) == 0 else { print("play: mkfifo failed"); return [] }
    defer { unlink(fifo) }
    let duration = 60.0
    print("Play: \(song), \(font), 256 × 3 periods, \(Int(duration)) s paced at 48 kHz through a FIFO")
    fflush(nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: pianola)
    process.arguments = ["play", song, "--soundfont", font, "--device", "file:'\(fifo)',raw", "--period", "256", "--periods", "3",
                         "--to", String(Int(duration)), "--quiet"]
    let childBefore = cpuSeconds(children: true)
    let start = clock.now
    try process.run()
    // Drain the FIFO at 48000 frames × 8 bytes a second, in 10 ms steps.
    let fd = open(fifo, O_RDONLY)
    var firstAudio: Double?
    var buffer = [UInt8](repeating: 0, count: 3_840)
    var received = 0
    while true {
        let step = clock.now
        var got = 0
        while got < buffer.count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            if n <= 0 { break }
            got += n
        }
        if got == 0 { break }
        if firstAudio == nil { firstAudio = seconds(clock.now - start) }
        received += got
        let elapsed = clock.now - step
        if elapsed < .milliseconds(10) { sleepFor(.milliseconds(10) - elapsed) }
    }
    close(fd)
    process.waitUntilExit()
    let wall = seconds(clock.now - start)
    let cpu = cpuSeconds(children: true) - childBefore
    print(String(format: "  pianola play: CPU %.2f s over %.1f s of wall time = %.1f %% of one core; first audio %.3f s after start; %.1f s of audio; exit %d",
                 cpu, wall, 100 * cpu / wall, firstAudio ?? -1, Double(received) / 384_000, process.terminationStatus))
    return [Figure(measure: "pianola play CPU, paced at 48 kHz", value: String(format: "%.1f %% of one core", 100 * cpu / wall)),
            Figure(measure: "time to first audio (pianola play, process start to first period)", value: String(format: "%.3f s", firstAudio ?? -1))]
}

func densestCorpusSong() -> String {
    let dense = (corpus as NSString).appendingPathComponent("tonejs__concerto_for_orchestra_1.mid")
    return FileManager.default.fileExists(atPath: dense) ? dense : "songs/ode-to-joy.mid"
}

/// The corpus's largest song, by notes: the memory benchmark's.
func largestCorpusSong() -> String {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []
    let notes = names.map { name -> (String, Int) in
        let path = (corpus as NSString).appendingPathComponent(name)
        let file = try? MIDIFile(contentsOf: path)
        return (path, file?.tracks.reduce(0) { $0 + $1.events.filter { $0.message.isSoundingNoteOn }.count } ?? 0)
    }
    return notes.max { $0.1 < $1.1 }?.0 ?? "songs/ode-to-joy.mid"
}

func defaultFont() -> String {
    let fluid = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
    return FileManager.default.fileExists(atPath: fluid) ? fluid : "soundfonts/pianola-gm.sf2"
}

/// Prints the figures as one table.
func printTable(_ figures: [Figure]) {
    guard !figures.isEmpty else { return }
    let width = figures.map(\.measure.count).max()!
    print("\n| \("Measure".padding(toLength: width, withPad: " ", startingAt: 0)) | Figure |")
    print("| \(String(repeating: "-", count: width)) | ------ |")
    for figure in figures { print("| \(figure.measure.padding(toLength: width, withPad: " ", startingAt: 0)) | \(figure.value) |") }
}

do {
    let song = arguments.count > 1 ? arguments[1] : densestCorpusSong()
    let font = arguments.count > 2 ? arguments[2] : defaultFont()
    switch arguments.first {
    case "smf": printTable(smfBenchmark(arguments.count > 1 ? arguments[1] : corpus))
    case "render": printTable(try renderBenchmark(song: song, font: font))
    case "synth": printTable(try synthBenchmark(song: song, font: font))
    case "effects": printTable(try effectsBenchmark(song: song, font: font))
    case "font": printTable(try fontBenchmark(font: arguments.count > 1 ? arguments[1] : defaultFont()))
    case "play": printTable(try playBenchmark(song: song, font: font))
    case "allocations": printTable(try allocationsBenchmark(song: song, font: font))
    case "c-render": printTable(try cRenderBenchmark(song: song, font: font))
    case "first-sound": printTable(try firstSoundBenchmark(song: arguments.count > 1 ? song : "songs/ode-to-joy.mid", font: font))
    case "outputs": printTable(try outputLatencyBenchmark(song: arguments.count > 1 ? song : "songs/ode-to-joy.mid", font: font)
                               + missedCyclesBenchmark(song: song, font: font))
    case "missed-cycles": printTable(try missedCyclesBenchmark(song: song, font: font, seconds: arguments.count > 3 ? Int(arguments[3]) ?? 60 : 60))
    case "memory": printTable(try memoryBenchmark(song: arguments.count > 1 ? song : largestCorpusSong(), font: font))
    case "batch": printTable(try batchBenchmark(corpus: arguments.count > 1 ? arguments[1] : corpus,
                                                font: arguments.count > 2 ? arguments[2] : "/usr/share/sounds/sf2/TimGM6mb.sf2",
                                                rounds: arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1))
    case "stream": try streamBenchmark(minutes: arguments.count > 1 ? Int(arguments[1]) ?? 60 : 60)
    case "soak": try soakBenchmark(minutes: arguments.count > 1 ? Int(arguments[1]) ?? 60 : 60, font: defaultFont())
    case "sf3" where arguments.count >= 3:
        printTable(try compressedFontBenchmark(sf2: arguments[1], sf3: arguments[2], song: arguments.count > 3 ? arguments[3] : "songs/ode-to-joy.mid"))
    case "preset-renders" where arguments.count >= 3:
        try presetRenders(font: arguments[1], into: arguments[2], only: Set(arguments.dropFirst(3)))
    case "voices": printTable(try voicesBenchmark())
    case "voices-child": try VoiceLoad.child(Array(arguments.dropFirst()))
    case "model-font-child": try modelFontChild(font: arguments[1])
    case "font-child": try fontChild(font: arguments[2], lazy: arguments[1] == "lazy", cache: arguments.count > 3 ? arguments[3] : nil)
    case nil:
        var figures = smfBenchmark(corpus)
        figures += try renderBenchmark(song: song, font: font)
        figures += try fontBenchmark(font: font)
        figures += try allocationsBenchmark(song: song, font: font)
        figures += try cRenderBenchmark(song: song, font: font)
        figures += try playBenchmark(song: song, font: font)
        printTable(figures)
    default:
        print("usage: pianola-bench [smf [DIR] | render [SONG] [FONT] | font [FONT] | allocations [SONG] [FONT] | c-render [SONG] [FONT] | first-sound [SONG] [FONT] | outputs [SONG] [FONT] | missed-cycles [SONG] [FONT] [SECONDS] | memory [SONG] [FONT] | batch [DIR] [FONT] [ROUNDS] | sf3 SF2 SF3 [SONG] | play [SONG] [FONT] | stream [MINUTES] | soak [MINUTES] | voices]")
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("pianola-bench: \(error)\n".utf8))
    exit(1)
}
