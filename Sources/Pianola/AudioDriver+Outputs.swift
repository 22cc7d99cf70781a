import Faults
import ALSA
import Engine
import JACK
import PipeWire
#if canImport(Glibc)
import Glibc
#endif

/// Opening an output on any driver, and choosing the driver when the user did not. Any thread.
extension AudioDriver {
    /// How `defaultDriver` chooses, one line for help texts. Any thread.
    public static let defaultChoice = "PIANOLA_DRIVER if set, else PipeWire when its daemon has a sink, else JACK when a server runs, else ALSA"

    /// The driver to use when none is named, and why: `PIANOLA_DRIVER` if set; else PipeWire
    /// when its daemon answers with a sink (what desktops run: a native stream gets the
    /// latency asked for, where ALSA's PipeWire plugin adds its own buffering); else JACK when
    /// a JACK server runs (it owns the sound card, so ALSA would find it busy); else ALSA.
    /// Throws for a `PIANOLA_DRIVER` that names no driver. Control thread.
    public static func defaultDriver() throws(AudioOutputError) -> (driver: AudioDriver, reason: String) {
        if let value = environment("PIANOLA_DRIVER") {
            guard let driver = AudioDriver(rawValue: value.lowercased()) else {
                throw AudioOutputError("PIANOLA_DRIVER=\(value): use \(AudioDriver.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return (driver, "PIANOLA_DRIVER")
        }
        // Each server's socket is looked for first: its client library is loaded only to ask one that may run.
        if PipeWireOutput.daemonMightRun, !PipeWireOutput.playbackDevices().isEmpty { return (.pipewire, "a PipeWire daemon is running") }
        if JACKOutput.serverMightRun, !JACKOutput.playbackDevices().isEmpty { return (.jack, "a JACK server is running") }
        return (.alsa, "no PipeWire daemon, no JACK server")
    }

    /// Opens an output on `driver`, or on the default driver when `nil`. Throws one line that
    /// says why; with no driver and no device named, also what was tried and what to do
    /// instead. Control thread.
    public static func open(_ driver: AudioDriver?, configuration: AudioOutputConfiguration) throws(AudioOutputError) -> any AudioOutput {
        let chosen: (driver: AudioDriver, reason: String)
        if let driver { chosen = (driver, "asked for") } else { chosen = try defaultDriver() }
        do throws(any Error) {
            switch chosen.driver {
            case .alsa: return try PCMOutput(configuration: configuration)
            case .jack: return try JACKOutput(configuration: configuration)
            case .pipewire: return try PipeWireOutput(configuration: configuration)
            }
        } catch {
            guard driver == nil, configuration.device == nil else { throw AudioOutputError("\(error)") }
            throw AudioOutputError("no audio output: tried \(chosen.driver.displayName) (\(chosen.reason)): \(error); `pianola render SONG -o song.wav` writes a file instead")
        }
    }
}

extension AudioDriver {
    /// What the driver can play to now: ALSA's PCMs, the running JACK server's clients,
    /// PipeWire's sinks. Control thread.
    public func playbackDevices() -> [AudioDevice] {
        switch self {
        case .alsa: PCMOutput.playbackDevices()
        case .jack: JACKOutput.playbackDevices()
        case .pipewire: PipeWireOutput.playbackDevices()
        }
    }
}

/// An audio output that could not open, one line. Any thread.
public struct AudioOutputError: Fault, Hashable, Sendable {
    /// A device's fault. Any thread.
    public var kind: FaultKind { .device }
    /// What was tried and why it failed. Any thread.
    public var description: String

    init(_ description: String) { self.description = description }
}
