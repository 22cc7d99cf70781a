import ArgumentParser
import MIDI

/// `--song N`: one song of a file that holds several (an XMI file's sequences, a format 2
/// MIDI file's), as `info` lists them. Main thread.
struct SongChoice: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Of a file holding several songs (Miles' XMI, a format 2 MIDI file), only song n, as 'info' lists them; all in turn without it.", valueName: "n"))
    var song: Int?

    /// `file` (read from `path`), or its song `--song` names; one line when it has no such song.
    func pick(_ file: MIDIFile, path: String) throws -> MIDIFile {
        guard let song else { return file }
        guard let chosen = file.song(song) else {
            let count = file.songCount
            throw fail("--song \(song): \(path) holds \(count) song\(count == 1 ? "" : "s"); give 1\(count == 1 ? "" : " to \(count)")")
        }
        return chosen
    }
}
