import ArgumentParser
import Glibc
import MIDI

/// `pianola convert`: any song Pianola reads, written as a Standard MIDI File.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write any song Pianola reads (a MIDI file, Doom's MUS, Miles' XMI) as a Standard MIDI File.")

    @Argument(help: "The song to read, known by its content (.mid, .kar, .rmi, .mus, .xmi…).")
    var input: String

    @Argument(help: "The Standard MIDI File to write, or - for standard output.")
    var output: String

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    @Flag(help: "Refuse any defect in the song instead of recovering from it.")
    var strict = false

    /// Reads, then writes in one go: a file that exists is refused (unless --force) before
    /// anything is written, and a song that cannot be read leaves no output behind.
    func run() throws {
        let file: MIDIFile
        do { file = try MIDIFile(contentsOf: input, mode: strict ? .strict : .lenient) } catch { throw fail(error.description) }
        for warning in file.warnings { printError("\(input): warning: \(warning)") }
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
        let summary = "wrote \(output): format \(file.format), \(tracks) track\(tracks == 1 ? "" : "s"), \(notes) note\(notes == 1 ? "" : "s"); source: \(file.origin)"
        if toStandardOutput { printError(summary) } else { print(summary) }
    }
}
