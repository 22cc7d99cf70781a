import ArgumentParser
import Pianola

extension PianolaCommand {
    /// Parses `arguments` (without the program's name) and checks every option that needs no
    /// file, port or device, taking `sequence` as the song where an option names a place in
    /// it; runs nothing. Throws what the command line would report. Any thread.
    public static func checkOptions(_ arguments: [String], against sequence: MusicSequence) throws {
        let command = try parseAsRoot(arguments)
        let song = "the song"
        switch command {
        case let play as Play:
            try play.options.checkRanges()
            _ = try play.options.settings(for: sequence, song: song)
            try play.audio.check()
            _ = try MIDIOptions.parse(routes: play.midiOptions.route, trackCount: sequence.tracks.count)
        case let render as Render:
            _ = try render.checkOutput()
            _ = try render.threadCount(default: 1)
            _ = try render.shard.map(Shard.init)
            if let labels = render.labels, LabelFile.isJSON(labels) == nil { throw fail("--labels \(labels): name it .csv or .json") }
            try render.options.checkRanges()
            _ = try render.options.settings(for: sequence, song: song)
        case let record as Record:
            try record.checkNumbers()
            _ = try MIDIOptions.parse(routes: record.route, trackCount: sequence.tracks.count)
        default:
            break
        }
    }
}
