// Writes the project's SoundFonts: `swift run make-soundfonts [DIRECTORY]` (default: soundfonts).
// The files are reproducible: the same source gives the same bytes.
import Foundation
import SoundFontBook

let directory = CommandLine.arguments.dropFirst().first ?? "soundfonts"
do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (name, font) in [("pianola-test.sf2", SoundFontBook.testFont()), ("pianola-gm.sf2", SoundFontBook.generalMIDIFont())] {
        let path = (directory as NSString).appendingPathComponent(name)
        let bytes = font.serialized()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        print("wrote \(path) (\(bytes.count / 1024) KiB)")
    }
} catch {
    FileHandle.standardError.write(Data("make-soundfonts: \(error)\n".utf8))
    exit(1)
}
