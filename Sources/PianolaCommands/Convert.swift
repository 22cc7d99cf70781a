import ArgumentParser
import Glibc
import MIDI
import Sequencing

/// `pianola convert`: any song Pianola reads, written as a Standard MIDI File.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write any song Pianola reads (a MIDI file, Doom's MUS, Miles' XMI, HMI's HMP and HMI) as a Standard MIDI File.",
        discussion: "A game song's loop is kept as the reader found it (XMI's FOR/NEXT as controllers 116/117, HMP and HMI loops as loopStart/loopEnd markers) unless --loops asks for one marking.")

    @Argument(help: "The song to read, known by its content (.mid, .kar, .rmi, .mus, .xmi, .hmp, .hmi…).")
    var input: String

    @Argument(help: "The Standard MIDI File to write, or - for standard output.")
    var output: String

    @OptionGroup var choice: SongChoice

    @Option(help: ArgumentHelp("Mark the song's loop (found as 'play' finds it) this way in place of the song's own: markers (loopStart/loopEnd) or cc111 (RPG Maker's controller 111).", valueName: "marking"))
    var loops: SongLoop.Marking?

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    @Flag(help: "Refuse any defect in the song instead of recovering from it.")
    var strict = false

    /// Reads, then writes in one go: a file that exists is refused (unless --force) before
    /// anything is written, and a song that cannot be read leaves no output behind.
    func run() throws {
        var file: MIDIFile
        do { file = try MIDIFile(contentsOf: input, mode: strict ? .strict : .lenient) } catch { throw fail(error.description) }
        for warning in file.warnings { printError("\(input): warning: \(warning)") }
        file = try choice.pick(file, path: input)
        let loopNote = try markLoop(&file)
        let bytes = file.serialized()
        let toStandardOutput = output == "-"
        let fd = toStandardOutput ? dup(STDOUT_FILENO) : open(output, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), 0o644)
        guard fd >= 0 else {
            throw fail("\(output): \(errno == EEXIST ? "already exists (use --force to replace it)" : String(cString: strerror(errno)))")
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                if !toStandardOutput { unlink(output) }
                throw fail("\(output): \(reason)")
            }
            written += n
        }
        close(fd)
        let notes = file.noteCount, tracks = file.tracks.count
        let summary = "wrote \(output): format \(file.format), \(tracks) track\(tracks == 1 ? "" : "s"), \(notes) note\(notes == 1 ? "" : "s")\(loopNote); source: \(file.origin)"
        if toStandardOutput { printError(summary) } else { print(summary) }
    }

    /// Marks the song's loop as --loops asks (when it has one) and says, for the summary,
    /// where the loop is and how the written file marks it (empty without a loop).
    func markLoop(_ file: inout MIDIFile) throws -> String {
        let sequence = MusicSequence(file: file)
        guard let loop = SongLoop.find(in: sequence) else { return "" }
        let map = sequence.tempoMap
        let place = "\(Info.clock(map.seconds(atTick: loop.startTick)))–\(Info.clock(map.seconds(atTick: loop.endTick)))"
        guard let loops else { return "; loop \(place) kept as \(loop.convention.words)" }
        guard file.songCount == 1 else { throw fail("--loops: \(input) holds \(file.songCount) songs, each with its own loop; choose one with --song") }
        if loop.count > 0 { printError("\(input): warning: the loop plays \(loop.count) times; \(loops.rawValue) has no count, so it repeats until stopped") }
        file = loop.marked(in: file, as: loops, songEnd: sequence.length)
        let end = loop.endTick < sequence.length && loops == .cc111 ? " (its end as a loopEnd marker)" : ""
        return "; loop \(place) marked with \(loops == .markers ? "loopStart/loopEnd markers" : "controller 111")\(end)"
    }
}

extension SongLoop.Marking: ExpressibleByArgument {}

extension SongLoop.Convention {
    /// How the convention marks a loop, in words.
    var words: String {
        switch self {
        case .markers: return "loopStart/loopEnd markers"
        case .emidi: return "controllers 116/117 (EMIDI, XMI's FOR/NEXT)"
        case .rpgMaker: return "controller 111 (RPG Maker)"
        case .descent: return "controllers 110/111 (HMI)"
        }
    }
}
