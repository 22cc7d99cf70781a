import Foundation
import Glibc
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

extension WildMIDI {
    /// libWildMidi's own reading of a song, for the formats `wildmidi -x` cannot convert (HMP,
    /// HMI): the library loads it (`WildMidi_Open`) and writes what it loaded back as a MIDI
    /// file (`WildMidi_GetMidiOutput`). Loaded with dlopen, so no header is needed; an empty
    /// patch configuration, as no sound is made.
    enum Library {
        private typealias Initialize = @convention(c) (UnsafePointer<CChar>, UInt16, UInt16) -> Int32
        private typealias Open = @convention(c) (UnsafePointer<CChar>) -> OpaquePointer?
        private typealias Output = @convention(c) (OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<Int8>?>, UnsafeMutablePointer<UInt32>) -> Int32
        private typealias Close = @convention(c) (OpaquePointer) -> Int32

        /// The library's entry points, initialized once; `nil` when libWildMidi is missing.
        private static let entries: (open: Open, output: Output, close: Close)? = {
            guard let library = dlopen("libWildMidi.so.2", RTLD_NOW),
                  let initialize = dlsym(library, "WildMidi_Init"), let open = dlsym(library, "WildMidi_Open"),
                  let output = dlsym(library, "WildMidi_GetMidiOutput"), let close = dlsym(library, "WildMidi_Close") else { return nil }
            let configuration = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-wildmidi-\(getpid()).cfg")
            guard FileManager.default.createFile(atPath: configuration.path, contents: Data()),
                  unsafeBitCast(initialize, to: Initialize.self)(configuration.path, 44_100, 0) == 0 else { return nil }
            return (unsafeBitCast(open, to: Open.self), unsafeBitCast(output, to: Output.self), unsafeBitCast(close, to: Close.self))
        }()
        /// One caller at a time: the library keeps global state.
        private static let lock = NSLock()

        /// Whether libWildMidi loads.
        static var available: Bool { entries != nil }

        /// Writes `bytes` as `name` in `folder` and returns Pianola's strict read of it and
        /// libWildMidi's reading, read back; `nil` for libWildMidi's when it refused the file.
        static func convert(_ bytes: [UInt8], named name: String, in folder: URL) throws -> (ours: MIDIFile, theirs: MIDIFile?) {
            let input = folder.appendingPathComponent(name)
            try Data(bytes).write(to: input)
            let ours = try MIDIFile(contentsOf: input.path, mode: .strict)
            guard let entries else { return (ours, nil) }
            lock.lock()
            defer { lock.unlock() }
            guard let song = entries.open(input.path) else { return (ours, nil) }
            defer { _ = entries.close(song) }
            var buffer: UnsafeMutablePointer<Int8>?
            var size: UInt32 = 0
            guard entries.output(song, &buffer, &size) == 0, let buffer else { return (ours, nil) }
            defer { free(buffer) }
            let midi = UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: Int(size))
            return (ours, try MIDIFile(bytes: Array(midi)))
        }
    }
}
