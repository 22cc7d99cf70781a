import ArgumentParser
import CPianola
import FoundationEssentials

/// The `pianola` command: MIDI files in, music out. Main thread.
public struct PianolaCommand: ParsableCommand {
    /// The subcommands, the version and the help text. Any thread.
    public static let configuration = CommandConfiguration(
        commandName: "pianola",
        abstract: "A MIDI sequencer and SoundFont synthesizer for Linux.",
        version: PIANOLA_VERSION_STRING,   // the project's one version number (Tools/version.sh)
        subcommands: [Convert.self, Devices.self, Effects.self, Info.self, Play.self, Plugins.self, Ports.self, Receive.self, Record.self, Render.self, Roll.self, Send.self]
    )

    /// An empty command: ArgumentParser fills it in. Any thread.
    public init() {}

    /// Runs the command line as the user meant it: `pianola SONG.mid…` plays the songs, as
    /// `timidity song.mid` does, and an unknown command gets one line naming the closest
    /// (`paly` → play) or listing them. Main thread.
    public static func mainWithShortcuts() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, !first.hasPrefix("-"), first != "help" {
            let names = configuration.subcommands.map { $0._commandName }
            if !names.contains(first) {
                let ext = first.split(separator: ".").last.map { $0.lowercased() } ?? ""
                var isFolder = false
                if BatchPlan.songExtensions.contains(ext) || FileManager.default.fileExists(atPath: first, isDirectory: &isFolder) {
                    arguments.insert("play", at: 0)
                } else if let near = names.min(by: { editDistance(first, $0) < editDistance(first, $1) }), editDistance(first, near) <= 2 {
                    exit(withError: fail("unknown command '\(first)'; did you mean '\(near)'?"))
                } else {
                    exit(withError: fail("unknown command '\(first)'; the commands are \(names.joined(separator: ", ")), or give MIDI files to play"))
                }
            }
        }
        main(arguments)
    }

    /// Letters to insert, delete or change to turn `a` into `b` (Levenshtein).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let diagonal = previous
                previous = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
        }
        return row[b.count]
    }
}

/// Prints `pianola: message` on standard error and exits with status 1: how every bad input ends.
func fail(_ message: String) -> ExitCode {
    printError(message)
    return ExitCode(1)
}

/// Prints `pianola: message` on standard error.
func printError(_ message: String) {
    Console.shared.error("pianola: \(message)")
}
