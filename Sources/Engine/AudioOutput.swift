/// The sound servers and device layers Pianola plays through. Any thread.
public enum AudioDriver: String, CaseIterable, Hashable, Sendable {
    /// ALSA PCM devices, directly (and PipeWire or PulseAudio through their ALSA plugins).
    case alsa
    /// A PipeWire playback stream.
    case pipewire
    /// A JACK client with two output ports.
    case jack

    /// The driver's number in the C API (`PIANOLA_DRIVER_ALSA` and so on; 0 is the default
    /// choice) and the Python module: its place in this list, from 1. Any thread.
    public var code: Int32 { Int32(Self.allCases.firstIndex(of: self)!) + 1 }

    /// The driver numbered `code` in the C API; nil for 0 (the default choice) and codes no
    /// driver has. Any thread.
    public init?(code: Int32) {
        guard code >= 1, code <= Self.allCases.count else { return nil }
        self = Self.allCases[Int(code) - 1]
    }

    /// The driver's name as its makers write it: ALSA, PipeWire, JACK. Any thread.
    public var displayName: String {
        switch self {
        case .alsa: "ALSA"
        case .pipewire: "PipeWire"
        case .jack: "JACK"
        }
    }
}

/// What to ask an audio output for, whatever the driver. Any thread.
public struct AudioOutputConfiguration: Hashable, Sendable {
    /// Where to play: an ALSA PCM name, a PipeWire node name or id, or the JACK client or
    /// ports to connect to; `nil` for the driver's default. Any thread.
    public var device: String?
    /// Frames per second asked for (JACK and PipeWire run at their server's rate). Any thread.
    public var sampleRate = 48_000
    /// Frames per period asked for: ALSA's period, PipeWire's quantum (JACK's is the server's). Any thread.
    public var periodFrames = 256
    /// Periods in the device buffer asked for (ALSA only). Any thread.
    public var periods = 3
    /// Whether to connect to the default playback ports when no device is named (JACK). Any thread.
    public var connect = true
    /// The name the output shows to the sound server. Any thread.
    public var clientName = "Pianola"
    /// The sound server to reach: a JACK server's name, or a PipeWire daemon's socket (a path,
    /// or a name in the runtime folder); `nil` for the environment's choice
    /// (`JACK_DEFAULT_SERVER`, `PIPEWIRE_REMOTE`). ALSA has none. Any thread.
    public var server: String?

    /// The driver's default device, 48 kHz, 256-frame periods × 3. Any thread.
    public init() {}
}

/// What an output was granted. Any thread.
public struct AudioOutputFormat: Hashable, Sendable {
    /// Frames per second. Any thread.
    public var sampleRate: Int
    /// Frames per period (or quantum, or JACK buffer): the largest slice the graph is pulled for. Any thread.
    public var periodFrames: Int
    /// Frames between the graph and the ear that the output itself holds. Any thread.
    public var bufferFrames: Int
    /// The sample format the device takes, as its driver names it. Any thread.
    public var sampleFormat: String

    /// A format from its parts. Any thread.
    public init(sampleRate: Int, periodFrames: Int, bufferFrames: Int, sampleFormat: String) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
        self.sampleFormat = sampleFormat
    }
}

/// An audio output pulling a graph in real time: Core Audio's output unit, whatever the
/// driver. Open one (its driver's initializer), read `format`, build the graph at that rate,
/// then `start`; the driver's own real-time thread pulls the graph a period at a time. The
/// members are for the control thread except where they say otherwise.
public protocol AudioOutput: AnyObject, Sendable {
    /// The driver behind it. Any thread.
    var driver: AudioDriver { get }
    /// What it plays to, for messages: a PCM, node or port name. Any thread.
    var deviceName: String { get }
    /// What the device granted. Any thread.
    var format: AudioOutputFormat { get }
    /// Starts pulling `graph` (built at `format.sampleRate`, `maxFrames` ≥ the period);
    /// returns a note when real-time priority was refused. Control thread.
    func start(pulling graph: AudioGraph) -> String?
    /// Stops pulling, then plays out what the output holds (`drain`) or drops it. Control thread.
    func stop(drain: Bool)
    /// Underruns (xruns) so far. Any thread.
    var underruns: Int { get }
    /// Frames pulled from the graph since `start`. Any thread.
    var framesWritten: Int64 { get }
    /// When frame 0 of the graph's clock sounded (or will), in CLOCK_MONOTONIC nanoseconds, so
    /// frame F sounds at this + F / rate; `nil` until the output knows. Asking may start the
    /// estimates. Any thread.
    var frameZeroNanos: Int64? { get }
    /// What ended playing (the device vanished, the server quit), one line; `nil` while all is well. Any thread.
    var failure: String? { get }
}

/// A transport another program moves (JACK's, as a DAW starts, stops and locates it), which
/// a player can follow. Render thread only: it is asked once a cycle, from the thread that
/// renders the cycle (for JACK, its process callback).
public protocol ExternalTransport: AnyObject, Sendable {
    /// Whether the transport rolls during this cycle, and its position at the cycle's first
    /// frame, in frames at the output's rate. Render thread only.
    func transportState() -> (rolling: Bool, frame: Int64)
}

/// A place an output can play to, as its driver lists it. Any thread.
public struct AudioDevice: Hashable, Sendable {
    /// What `AudioOutputConfiguration.device` takes to choose it. Any thread.
    public var name: String
    /// The driver's description (a card's name, a client's ports), one line; may be empty. Any thread.
    public var description: String
    /// Whether the driver plays here when no device is named. Any thread.
    public var isDefault: Bool

    /// A device from its parts. Any thread.
    public init(name: String, description: String, isDefault: Bool) {
        self.name = name
        self.description = description
        self.isDefault = isDefault
    }
}
