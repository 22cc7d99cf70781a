// Writes every SongBook song as a Standard MIDI File: `swift run make-songs [DIRECTORY]`
// (default: songs). The files are reproducible: the same source gives the same bytes.
import Foundation
import SongBook

let directory = CommandLine.arguments.dropFirst().first ?? "songs"
do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for song in SongBook.all {
        let path = (directory as NSString).appendingPathComponent(song.fileName)
        try Data(song.midiFile().serialized()).write(to: URL(fileURLWithPath: path))
        print("wrote \(path)")
    }
} catch {
    FileHandle.standardError.write(Data("make-songs: \(error)\n".utf8))
    exit(1)
}
