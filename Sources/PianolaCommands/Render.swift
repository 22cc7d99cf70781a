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

    @Argument(help: "The MIDI file.")
    var song: String

    @OptionGroup var options: SongOptions

    @Option(name: [.short, .customLong("output")], help: "The audio file to write (.wav, .flac, .ogg, .opus, .mp3, or .raw: headerless samples for a pipe or FIFO).")
    var output: String

    @Option(help: "File format: wav, flac, ogg, opus, mp3 or raw (default: from the output's extension).")
    var format: AudioFileWriter.Container?

    @Option(help: "Sample format: 16, 24 or 32f.")
    var bits: AudioFileWriter.Encoding = .int16

    @Option(help: "Longest time to let notes ring after the music, in seconds.")
    var tail = 5.0

    @Option(help: ArgumentHelp("Also write stems into this folder: each track with notes, and each --with file, alone.", valueName: "folder"))
    var stems: String?

    @Flag(help: "Replace the output file (and stems) if they exist.")
    var force = false

    @Option(help: ArgumentHelp("Also write every note (channel, key, velocity, program, bank) with the frames the synth pressed and released it, as .csv or .json.", valueName: "file"))
    var labels: String?

    @Option(help: ArgumentHelp("Threads the synthesizer renders on: faster for dense songs, but libfluidsynth's worker threads make the output vary slightly from run to run.", valueName: "n"))
    var threads = 1

    func run() throws {
        let container = try checkOutput()
        var (sequence, font, settings) = try options.load(song)
        settings.tailSeconds = tail
        settings.threads = try threadCount()
        let plan = try stems.map { try Stems.plan(folder: $0, sequence: sequence, settings: settings, container: container, force: force) } ?? []
        if let labels { try LabelFile.check(labels, force: force) }
        print("SoundFont: \(font.path) (\(font.source))")
        let started = Date()
        let frames = try write(sequence, font: font.path, settings: settings, to: output, container: container, labels: labels, showProgress: true)
        let seconds = Double(frames) / Double(settings.sampleRate)
        let took = Date().timeIntervalSince(started)
        print("wrote \(output): \(seconds.formatted2) s of audio in \(took.formatted2) s (\(Int(seconds / max(took, 1e-6)))× real time)")
        for stem in plan {
            _ = try write(sequence, font: font.path, settings: stem.settings, to: stem.path, container: container, frames: Int64(frames))
            print("wrote \(stem.path): \(stem.what)")
        }
    }

    /// `--threads`; one line for a count out of range.
    func threadCount() throws -> Int {
        guard (1...256).contains(threads) else { throw fail("--threads \(threads): use 1 to 256") }
        return threads
    }

    /// The output's container, or one line on an unknown one or a bad `--tail`.
    func checkOutput() throws -> AudioFileWriter.Container {
        guard let container = format ?? AudioFileWriter.Container(path: output) else {
            throw fail("\(output): unknown audio file type; name it .wav, .flac, .ogg, .opus, .mp3 or .raw, or give --format")
        }
        guard tail >= 0 && tail <= 60 else { throw fail("--tail \(tail): use 0 to 60 seconds") }
        return container
    }

    /// Renders `sequence` with `settings` into a new file at `path` (exactly `frames` long
    /// when given) and returns the frames written.
    private func write(_ sequence: MusicSequence, font: String, settings: SongGraph.Settings, to path: String,
                       container: AudioFileWriter.Container, frames length: Int64? = nil, labels: String? = nil, showProgress: Bool = false) throws -> Int {
        let renderer: SongRenderer
        do {
            renderer = try SongRenderer(sequence: sequence, soundFontPath: font, settings: settings)
        } catch {
            throw fail("\(error)")   // a SynthesizerError or an AudioFileError, one line
        }
        if labels != nil { renderer.recordLabels() }
        let progress = ProgressBar(enabled: showProgress && isatty(STDOUT_FILENO) == 1)
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

/// The options `render` and `play` share: the SoundFont, synthesis and what of the song to play.
struct SongOptions: ParsableArguments {
    @Option(help: "SoundFont (default: $PIANOLA_SOUNDFONT, the system GM font, then Pianola's own).")
    var soundfont: String?

    @Option(help: "Sample rate in Hz.")
    var sampleRate = 48_000

    @Option(help: "Reverb: on or off.")
    var reverb: Switch = .on

    @Option(help: "Chorus: on or off.")
    var chorus: Switch = .on

    @Option(help: "Most voices sounding at once.")
    var polyphony = 256

    @Option(help: "Synthesizer output gain.")
    var gain = 0.2

    @Option(help: "Play the song (or the --from/--to region) this many times in all.")
    var loop = 1

    @Option(help: "Tempo in percent of the written tempo.")
    var tempo = 100

    @Option(help: "Transpose by semitones (drums on channel 10 stay).")
    var transpose = 0

    @Option(parsing: .upToNextOption, help: "Tracks to silence.")
    var mute: [Int] = []

    @Option(parsing: .upToNextOption, help: "Tracks to hear alone.")
    var solo: [Int] = []

    @Option(help: "Start here: seconds or bar:beat.")
    var from: String?

    @Option(help: "Stop here: seconds or bar:beat.")
    var to: String?

    @Option(name: .customLong("with"), help: ArgumentHelp("An audio file to play with the song (WAV, FLAC, Ogg, Opus, MP3…), from its start or from @POSITION (seconds or bar:beat). Repeatable.", valueName: "file[@position]"))
    var audioFiles: [String] = []

    /// Reads the song (warnings on stderr), checks every option, chooses the SoundFont.
    func load(_ song: String) throws -> (MusicSequence, SoundFontChoice, SongGraph.Settings) {
        try checkRanges()
        let file: MIDIFile
        do { file = try MIDIFile(contentsOf: song) } catch { throw fail(error.description) }
        for warning in file.warnings { printError("\(song): warning: \(warning)") }
        let sequence = MusicSequence(file: file)
        let settings = try settings(for: sequence, song: song)
        guard let font = SoundFontChoice.choose(explicit: soundfont) else {
            throw fail("no SoundFont found: give --soundfont PATH or install fluid-soundfont-gm")
        }
        return (sequence, font, settings)
    }

    /// The graph's settings for `sequence` (read from `song`): every option but the font,
    /// checked against the song. Touches no file.
    func settings(for sequence: MusicSequence, song: String) throws -> SongGraph.Settings {
        for track in mute + solo where !(1...max(1, sequence.tracks.count)).contains(track) || sequence.tracks.isEmpty {
            throw fail("track \(track) does not exist: \(song) has \(sequence.tracks.count) track\(sequence.tracks.count == 1 ? "" : "s")")
        }
        var settings = SongGraph.Settings()
        settings.sampleRate = sampleRate
        settings.reverb = reverb == .on
        settings.chorus = chorus == .on
        settings.polyphony = polyphony
        settings.gain = gain
        settings.plays = loop
        settings.tempoPercent = tempo
        settings.transpose = transpose
        settings.mutedTracks = Set(mute.map { $0 - 1 })
        settings.soloTracks = Set(solo.map { $0 - 1 })
        if let from {
            settings.fromTick = try position(from, "--from", in: sequence)
            guard settings.fromTick < sequence.length else {
                throw fail("--from \(from) is at or after the end of \(song) (\(sequence.durationSeconds.formatted2) s)")
            }
        }
        if let to { settings.toTick = try position(to, "--to", in: sequence) }
        if let end = settings.toTick, end <= settings.fromTick { throw fail("--to \(to!) is not after --from \(from ?? "0")") }
        for text in audioFiles {
            // FILE@POSITION when what follows the last @ is a position; else the whole is the file.
            if let at = text.lastIndex(of: "@"), let tick = quietPosition(String(text[text.index(after: at)...]), in: sequence) {
                settings.audioFiles.append(.init(path: String(text[..<at]), tick: tick))
            } else {
                settings.audioFiles.append(.init(path: text))
            }
        }
        return settings
    }

    /// Fails in one line on a number out of its range, before any file is read.
    func checkRanges() throws {
        guard (8_000...384_000).contains(sampleRate) else { throw fail("--sample-rate \(sampleRate): use 8000 to 384000 Hz") }
        guard (1...65_535).contains(polyphony) else { throw fail("--polyphony \(polyphony): use 1 to 65535 voices") }
        guard gain >= 0 && gain <= 10 else { throw fail("--gain \(gain): use 0 to 10") }
        guard (1...1000).contains(loop) else { throw fail("--loop \(loop): play 1 to 1000 times") }
        guard (10...1000).contains(tempo) else { throw fail("--tempo \(tempo): use 10 to 1000 percent") }
        guard (-48...48).contains(transpose) else { throw fail("--transpose \(transpose): use -48 to 48 semitones") }
    }

    /// A tick from `12.5` or `3:1[:tick]`, `nil` for anything else.
    func quietPosition(_ text: String, in sequence: MusicSequence) -> Int? {
        if let seconds = Double(text), seconds >= 0, seconds.isFinite { return sequence.tempoMap.tick(atSeconds: seconds) }
        guard let position = BarBeatTick(text), let meter = sequence.meterMap else { return nil }
        return meter.tick(at: position)
    }

    /// A tick from `12.5` (seconds) or `3:1[:tick]` (bar:beat from 1).
    func position(_ text: String, _ option: String, in sequence: MusicSequence) throws -> Int {
        if let seconds = Double(text), seconds >= 0, seconds.isFinite {
            return sequence.tempoMap.tick(atSeconds: seconds)
        }
        guard let position = BarBeatTick(text) else {
            throw fail("\(option) \(text): give seconds (12.5) or bar:beat (3:1), counted from 1")
        }
        guard let meter = sequence.meterMap else {
            throw fail("\(option) \(text): this song counts SMPTE time, which has no bars; give seconds")
        }
        return meter.tick(at: position)
    }
}

/// `on` or `off`.
enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
}

extension AudioFileWriter.Container: ExpressibleByArgument {}
extension AudioFileWriter.Encoding: ExpressibleByArgument {}

/// A one-line progress bar on a terminal; nothing when output is not a terminal.
final class ProgressBar {
    private let enabled: Bool
    private var shown = -1

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int(min(1, max(0, fraction)) * 100)
        guard percent != shown else { return }
        shown = percent
        let filled = percent * 30 / 100
        print("\r[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 30 - filled))] \(percent)%", terminator: "")
        fflush(nil)
    }

    func finish() {
        guard enabled, shown >= 0 else { return }
        print("\r\(String(repeating: " ", count: 40))\r", terminator: "")
        fflush(nil)
    }
}
