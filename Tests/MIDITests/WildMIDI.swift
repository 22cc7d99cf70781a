import Foundation
import MIDI

/// WildMIDI's converter (`wildmidi -x OUT.mid IN`), the independent reader the game-format
/// readers are checked against; the README's setup installs it.
enum WildMIDI {
    static let path = "/usr/bin/wildmidi"

    /// Whether it is installed.
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Writes `bytes` as `name` in `folder`, converts it, and returns Pianola's strict read of
    /// it and WildMIDI's file as read back; `nil` for WildMIDI's when it failed.
    static func convert(_ bytes: [UInt8], named name: String, in folder: URL) throws -> (ours: MIDIFile, theirs: MIDIFile?) {
        let input = folder.appendingPathComponent(name), output = folder.appendingPathComponent(name + ".mid")
        try Data(bytes).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-x", output.path, input.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let ours = try MIDIFile(contentsOf: input.path, mode: .strict)
        return (ours, process.terminationStatus == 0 ? try MIDIFile(contentsOf: output.path) : nil)
    }

    /// A scratch folder of the caller's own, removed by the caller.
    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-wildmidi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
