import ALSA
import ArgumentParser
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc
import MIDI
import Pianola

/// The audio device options of `play` and `record --play`.
struct AudioDeviceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("\(AudioDriver.choices) (default: \(AudioDriver.defaultChoice)).", valueName: "driver"))
    var driver: AudioDriver?

    @Option(help: "ALSA: a PCM (default, hw:1,0, plughw:…). JACK: a client, or ports separated by commas. See `pianola devices`.")
    var device: String?

    @Option(help: "Frames per period asked of the device (JACK uses the server's).")
    var period = 256

    @Option(help: "Periods in the device buffer (ALSA).")
    var periods = 3

    @Flag(help: "JACK: connect to nothing (patch the ports yourself).")
    var noConnect = false

    /// Exits with one line when a value is out of range.
    func check() throws {
        guard (16...65_536).contains(period) else { throw fail("--period \(period): use 16 to 65536 frames") }
        guard (2...64).contains(periods) else { throw fail("--periods \(periods): use 2 to 64") }
    }

    /// Opens the output asked for at `sampleRate` (or the rate the server runs at); exits with one line when it cannot.
    func open(sampleRate: Int) throws -> any AudioOutput {
        var configuration = AudioOutputConfiguration()
        configuration.device = device
        configuration.sampleRate = sampleRate
        configuration.periodFrames = period
        configuration.periods = periods
        configuration.connect = !noConnect
        do { return try AudioDriver.open(driver, configuration: configuration) } catch { throw fail(error.description) }
    }
}

extension AudioDriver: ExpressibleByArgument {
    /// The drivers by the names --driver takes: "alsa, pipewire or jack". Any thread.
    static var choices: String {
        let names = allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
