import ArgumentParser
import AudioFile
import FoundationEssentials
import Glibc
import MIDI
import Pianola

/// `pianola render`: a song to an audio file, offline, through the same graph as playback.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a MIDI file to WAV, FLAC, Ogg, Opus or MP3, faster than real time.",
        discussion: """
            Positions for --from and --to are seconds (12.5) or bar:beat[:tick] counted from 1 \
            as musicians count (3:1 is the first beat of the third bar). Tracks are numbered \
            from 1 as 'pianola info' lists them. --stems DIR also writes each track with notes \
            and each --with file alone, as long as the mix, so the stems sum to it.
            """)

    @Argument(help: "MIDI files, or folders of them (searched at any depth).")
    var songs: [String]

    @OptionGroup var options: SongOptions

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The audio file to write (.wav, .flac, .ogg, .opus, .mp3, or .raw: headerless samples for a pipe or FIFO), - for standard output (WAV unless --format); for many songs a folder (out/, a folder's songs keep their layout) or a pattern (out/{name}.flac).", valueName: "output"))
    var output: String

    @Option(help: "File format: wav, flac, ogg, opus, mp3 or raw (default: from the output's extension; wav into a folder).")
    var format: AudioFileWriter.Container?

    @Option(help: "Sample format: 16, 24 or 32f.")
    var bits: AudioFileWriter.Encoding = .int16

    @Option(parsing: .unconditional, help: "Longest time to let notes ring after the music, in seconds.")
    var tail = 5.0

    @Option(help: ArgumentHelp("Also write stems into this folder: each track with notes, and each --with file, alone.", valueName: "folder"))
    var stems: String?

    @Flag(help: "Replace the output file (and stems, labels) if they exist.")
    var force = false

    @Option(help: ArgumentHelp("Also write every note (channel, key, velocity, program, bank) with the frames the synth pressed and released it, as .csv or .json; for many songs a folder or a pattern with {name}.", valueName: "file"))
    var labels: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Threads to use. Many songs: songs rendered at once (default: every core). One song: synthesizers its channels are shared among, rendered at once, or with --synth pianola the threads its voices render on, up to 8 (default 1; the same file on every run, and with --synth pianola for any count).", valueName: "n"))
    var threads: Int?

    @Flag(help: "Many songs: leave out a song whose output (and labels) exist, to resume a batch.")
    var skipExisting = false

    @Option(help: ArgumentHelp("Many songs: render only the K-th of N equal shares of them (every N-th song from the K-th), so N machines share a batch.", valueName: "K/N"))
    var shard: String?

    @Flag(help: "Load every sample of the SoundFont at once, as a batch does, instead of only the presets the song uses: slower to start, and the render then matches a batch's bit for bit.")
    var wholeFont = false

    func run() throws {
        let naming = OutputNaming(output)
        var isFolder = false
        if songs.count == 1, naming == nil, !(FileManager.default.fileExists(atPath: songs[0], isDirectory: &isFolder) && isFolder) {
            try renderOne(songs[0])
        } else {
            guard let naming else {
                throw fail("-o \(output) names one file for many songs: give a folder (out/) or a pattern (out/{name}.wav)")
            }
            try renderMany(into: naming)
        }
    }

    /// `render SONG -o FILE`: one song, with its stems and labels.
    func renderOne(_ song: String) throws {
        for (used, option) in [(skipExisting, "--skip-existing"), (shard != nil, "--shard")] where used {
            throw fail("\(option) is for many songs; -o \(output) names one file")
        }
        let container = try checkOutput()
        if output == "-" && isatty(STDOUT_FILENO) == 1 {
            throw fail("-o -: standard output is a terminal; pipe it (| aplay) or name a file")
        }
        var (sequence, font, settings) = try options.load(song)
        settings.tailSeconds = tail
        settings.threads = try threadCount(default: 1)
        settings.loadWholeFont = wholeFont
        let plan = try stems.map { try Stems.plan(folder: $0, sequence: sequence, settings: settings, container: container, force: force) } ?? []
        if let labels { try LabelFile.check(labels, force: force) }
        // With the audio on standard output (`-o -`), what Pianola says goes to standard error.
        let say: (String) -> Void = output == "-" ? { Console.shared.error($0) } : { print($0) }
        let source = " (\(font.source))"
        let started = Date()
        let frames = try write(sequence, font: font.path, settings: settings, to: output, container: container, labels: labels, showProgress: true) {
            say("SoundFont: \(font.path.shortened(to: 100 - "SoundFont: ".count - source.count))\(source)")   // once it has loaded
        }
        let seconds = Double(frames) / Double(settings.sampleRate)
        let took = Date().timeIntervalSince(started)
        let result = ": \(seconds.formatted2) s of audio in \(took.formatted2) s (\(Int(seconds / max(took, 1e-6)))× real time)"
        say("wrote \((output == "-" ? "standard output" : output).shortened(to: 100 - "wrote ".count - result.count))\(result)")
        for stem in plan {
            _ = try write(sequence, font: font.path, settings: stem.settings, to: stem.path, container: container, frames: Int64(frames))
            say("wrote \(stem.path): \(stem.what)")
        }
    }

    /// `render SONGS… -o FOLDER/`: every song, at once on every core, with one shared font.
    func renderMany(into naming: OutputNaming) throws {
        if stems != nil { throw fail("--stems works with one song at a time") }
        try options.checkRanges()
        guard tail >= 0 && tail <= 60 else { throw fail("--tail \(tail): use 0 to 60 seconds") }
        if try options.plays() == 0 { throw fail("--loop \(options.loop): a render must end; give a number of plays") }
        let container = try format ?? batchContainer(naming)
        let labelNaming = try labels.map { text in
            guard let naming = OutputNaming(text) else { throw fail("--labels \(text) names one file for many songs: give a folder (labels/) or a pattern (labels/{name}.json)") }
            if case .pattern(let pattern) = naming, LabelFile.isJSON(pattern) == nil { throw fail("--labels \(text): end the pattern in .csv or .json") }
            return naming
        }
        let workers = try threadCount(default: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let plan = try BatchPlan(arguments: songs, output: naming, extension: container.rawValue, labels: labelNaming,
                                 shard: try shard.map(Shard.init), force: force, skipExisting: skipExisting)
        guard let font = SoundFontChoice.choose(explicit: options.soundfont) else {
            throw fail(SoundFontChoice.notFound())
        }
        print("SoundFont: \(font.path) (\(font.source))")
        let shared: LoadedSoundFont
        do { shared = try LoadedSoundFont(path: font.path, engine: options.synth) } catch { throw fail("\(error)") }
        if let note = shared.engineNote { printError("note: \(note)") }
        let skipped = plan.skipped > 0 ? "; \(plan.skipped) already there, skipped" : ""
        print("rendering \(plan.jobs.count) song\(plan.jobs.count == 1 ? "" : "s") on \(min(workers, max(1, plan.jobs.count))) thread\(min(workers, max(1, plan.jobs.count)) == 1 ? "" : "s")\(skipped)")
        let interruption = Interruption()
        let started = ContinuousClock.now
        let summary = BatchRender(jobs: plan.jobs, interruption: interruption) { job, progress, stop in
            try renderJob(job, font: shared, container: container, progress: progress, stop: stop)
        }.run(workers: workers)
        let took = BatchRender.seconds(since: started)
        print("rendered \(summary.rendered) song\(summary.rendered == 1 ? "" : "s"), \(Info.clock(summary.audioSeconds).dropLast(3)) of audio, "
              + "in \(took.formatted2) s (\(Int(summary.audioSeconds / max(took, 1e-6)))× real time)")
        if let signal = interruption.signal {
            printError("interrupted: \(plan.jobs.count - summary.rendered - summary.failed) song(s) not rendered; --skip-existing resumes")
            throw ExitCode(128 + signal)
        }
        let failed = summary.failed + plan.missing
        if failed > 0 { throw fail("\(failed) of \(plan.jobs.count + plan.missing) songs failed (each said above)") }
    }

    /// The container a batch writes when no --format is given: the pattern's, or WAV in a folder.
    func batchContainer(_ naming: OutputNaming) throws -> AudioFileWriter.Container {
        guard case .pattern(let pattern) = naming else { return .wav }
        guard let container = AudioFileWriter.Container(path: pattern) else {
            throw fail("-o \(pattern): unknown audio file type; end the pattern in .wav, .flac, .ogg, .opus, .mp3 or .raw, or give --format")
        }
        return container
    }

    /// Renders one song of a batch with the shared `font`, to a hidden partial file renamed
    /// into place when whole, and returns the seconds of audio written. Throws after saying
    /// what failed in one line.
    func renderJob(_ job: BatchPlan.Job, font: LoadedSoundFont, container: AudioFileWriter.Container,
                   progress: (Double) -> Void, stop: () -> Bool) throws -> Double {
        let sequence = MusicSequence(file: try options.read(job.song))
        var settings = try options.settings(for: sequence, song: job.song)
        settings.tailSeconds = tail
        let renderer: SongRenderer
        do { renderer = try SongRenderer(sequence: sequence, soundFont: font, settings: settings) } catch { throw fail("\(job.song): \(error)") }
        if job.labels != nil { renderer.recordLabels() }
        for path in [job.output] + (job.labels.map { [$0] } ?? []) { try makeParentFolder(of: path) }
        let slash = job.output.lastIndex(of: "/").map { job.output.index(after: $0) } ?? job.output.startIndex
        let partial = "\(job.output[..<slash]).\(job.output[slash...]).partial"
        do {
            let frames = try renderer.write(to: partial, container: container, encoding: bits, overwrite: true, progress: progress, stop: stop)
            if let labels = job.labels { try LabelFile.write(renderer.labels, sampleRate: settings.sampleRate, to: labels) }
            if !force && FileManager.default.fileExists(atPath: job.output) { throw fail("\(job.output): appeared while rendering; kept, the render is not written") }
            guard rename(partial, job.output) == 0 else { throw fail("\(job.output): cannot write: \(String(cString: strerror(errno)))") }
            return Double(frames) / Double(settings.sampleRate)
        } catch let error as AudioFileError {
            unlink(partial)
            throw fail("\(job.song): \(error.description.split(separator: partial).joined(separator: job.output))")
        } catch {
            unlink(partial)
            throw error
        }
    }

    /// Makes the folder `path` goes in, and its parents; one line if that cannot be done.
    func makeParentFolder(of path: String) throws {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let folder = String(path[..<slash])
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
            throw fail("\(folder): cannot make this folder for \(path)")
        }
    }

    /// `--threads`, or `fallback` when not given; one line for a count out of range.
    func threadCount(default fallback: Int) throws -> Int {
        let count = threads ?? fallback
        guard (1...256).contains(count) else { throw fail("--threads \(count): use 1 to 256") }
        return count
    }

    /// The output's container, or one line on an unknown one or a bad `--tail`.
    func checkOutput() throws -> AudioFileWriter.Container {
        guard let container = format ?? (output == "-" ? .wav : AudioFileWriter.Container(path: output)) else {
            throw fail("\(output): unknown audio file type; name it .wav, .flac, .ogg, .opus, .mp3 or .raw, or give --format")
        }
        guard tail >= 0 && tail <= 60 else { throw fail("--tail \(tail): use 0 to 60 seconds") }
        if try options.plays() == 0 { throw fail("--loop \(options.loop): a render must end; give a number of plays") }
        return container
    }

    /// Renders `sequence` with `settings` into a new file at `path` (exactly `frames` long
    /// when given), calling `loaded` once the font has loaded, and returns the frames written.
    private func write(_ sequence: MusicSequence, font: String, settings: SongGraph.Settings, to path: String,
                       container: AudioFileWriter.Container, frames length: Int64? = nil, labels: String? = nil, showProgress: Bool = false,
                       loaded: () -> Void = {}) throws -> Int {
        let renderer: SongRenderer
        do {
            renderer = try SongRenderer(sequence: sequence, soundFontPath: font, settings: settings)
        } catch {
            throw fail("\(error)")   // a SynthesizerError, SoundFontError or AudioFileError, one line
        }
        if let note = renderer.songGraph.engineNote { printError("note: \(note)") }
        loaded()
        if labels != nil { renderer.recordLabels() }
        let progress = ProgressBar(enabled: showProgress && Console.shared.barShown)
        defer { progress.finish() }
        let frames: Int
        do {
            frames = try renderer.write(to: path, container: container, encoding: bits, overwrite: force, frames: length) { progress.update($0) }
        } catch {
            throw fail(error.alreadyExists ? "\(error) (use --force to replace it)" : error.description)
        }
        if let labels { try LabelFile.write(renderer.labels, sampleRate: settings.sampleRate, to: labels) }
        return frames
    }
}

extension AudioFileWriter.Container: ExpressibleByArgument {}
extension AudioFileWriter.Encoding: ExpressibleByArgument {}
