import ArgumentParser
import Pianola
import CPianola
import FoundationEssentials
import Glibc

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
        // Plugins with a Qt side (drumkv1, synthv1…) make a QApplication as they are made, and
        // abort when there is no display to open: with none, Qt draws off screen instead.
        let unset = { (name: String) in getenv(name).map { $0.pointee == 0 } ?? true }
        if unset("DISPLAY") && unset("WAYLAND_DISPLAY") { setenv("QT_QPA_PLATFORM", "offscreen", 0) }
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, !first.hasPrefix("-"), first != "help" {
            let names = configuration.subcommands.map { $0._commandName }
            if !names.contains(first) {
                let ext = first.split(separator: ".").last.map { $0.lowercased() } ?? ""
                var isFolder = false
                if BatchPlan.songExtensions.contains(ext) || FileManager.default.fileExists(atPath: first, isDirectory: &isFolder) {
                    arguments.insert("play", at: 0)
                } else if let near = nearest(first, among: names) {
                    exit(withError: fail("unknown command '\(first)'; did you mean '\(near)'?"))
                } else {
                    exit(withError: fail("unknown command '\(first)'; the commands are \(names.joined(separator: ", ")), or give MIDI files to play"))
                }
            }
        }
        main(arguments)
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
