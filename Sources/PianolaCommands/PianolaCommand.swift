import ArgumentParser

/// The `pianola` command: MIDI files in, music out. Main thread.
public struct PianolaCommand: ParsableCommand {
    /// The subcommands, the version and the help text. Any thread.
    public static let configuration = CommandConfiguration(
        commandName: "pianola",
        abstract: "A MIDI sequencer and SoundFont synthesizer for Linux.",
        version: "0.1.0",
        subcommands: [Devices.self, Info.self, Play.self, Ports.self, Record.self, Render.self]
    )

    /// An empty command: ArgumentParser fills it in. Any thread.
    public init() {}
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
