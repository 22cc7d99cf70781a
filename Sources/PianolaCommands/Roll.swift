import ArgumentParser
import FoundationEssentials
import MIDI
import PianoRoll
import Sequencing

/// `pianola roll`: a song as a piano-roll picture.
struct Roll: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a MIDI file as a piano roll: PNG, SVG or PDF.",
        discussion: "Each track's notes in its colour with a legend (track and programs), bar lines and numbers, the tempo curve, markers and lyrics.")

    @Argument(help: "The MIDI file.")
    var song: String

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The picture to write: .png, .svg or .pdf.", valueName: "picture"))
    var output: String

    @Option(help: "Width in pixels (points for SVG and PDF).")
    var width = 1600

    @Option(help: "Height in pixels (points for SVG and PDF).")
    var height = 900

    @Option(parsing: .unconditional, help: "Start here: seconds or bar:beat.")
    var from: String?

    @Option(parsing: .unconditional, help: "Stop here: seconds or bar:beat.")
    var to: String?

    @OptionGroup var choice: SongChoice

    @Flag(help: "Replace the picture if it exists.")
    var force = false

    func run() throws {
        guard let format = PianoRoll.Format(path: output) else { throw fail("\(output): name the picture .png, .svg or .pdf") }
        guard (200...20_000).contains(width), (200...20_000).contains(height) else { throw fail("--width and --height: use 200 to 20000") }
        if !force && FileManager.default.fileExists(atPath: output) { throw fail("\(output): already exists (use --force to replace it)") }
        let file: MIDIFile
        do { file = try choice.pick(MIDIFile(contentsOf: song), path: song) } catch let error as MIDIFileError { throw fail(error.description) }
        let sequence = MusicSequence(file: file)
        let region = try SongOptions.parse((from.map { ["--from", $0] } ?? []) + (to.map { ["--to", $0] } ?? []))
        let settings = try region.settings(for: sequence, song: song)
        let map = sequence.tempoMap
        let start = map.seconds(atTick: settings.fromTick)
        let end = settings.toTick.map { map.seconds(atTick: $0) } ?? sequence.durationSeconds
        let layout = PianoRoll.layout(of: sequence, width: width, height: height, start: start, end: end)
        let title = StatusLine.title(of: sequence, file: song)
        if let problem = PianoRoll.draw(sequence, summary: SongSummary(file: file), title: title, layout: layout, format: format, to: output) {
            throw fail("\(output): cannot draw the picture: \(problem)")
        }
        print("wrote \(output.shortened(to: 60)): \(width) × \(height), \(Info.clock(start))–\(Info.clock(end))")
    }
}
