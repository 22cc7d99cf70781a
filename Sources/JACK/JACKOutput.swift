import Faults
import DSP
import CJack
import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A JACK client with two output ports, `out_L` and `out_R`, that renders the graph in JACK's
/// own process callback at the server's rate and buffer size. It connects to the device named
/// (a client, or two ports), else to the system's playback ports unless told not to. Xruns are
/// counted; the server going away ends playing with one line. Control thread for every
/// member, except as noted.
public final class JACKOutput: AudioOutput, ExternalTransport, @unchecked Sendable {
    // @unchecked Sendable: `graph` is set before activation and read by JACK's process thread
    // only while active; everything else the threads share is atomic.

    /// JACK. Any thread.
    public var driver: AudioDriver { .jack }
    /// The ports it connects to, or `unconnected`. Any thread.
    public let deviceName: String
    /// The server's rate and buffer size; `bufferFrames` adds the connected ports' playback
    /// latency once started. Any thread.
    public private(set) var format: AudioOutputFormat
    /// The client's name as the server gave it (`pianola`, or `pianola-01` if taken). Any thread.
    public let clientName: String

    private let client: OpaquePointer
    private let left: OpaquePointer
    private let right: OpaquePointer
    private let destinations: [String]
    private var graph: AudioGraph?
    private let pulling = Atomic<Bool>(false)
    private let written = Atomic<Int64>(0)
    private let xruns = Atomic<Int>(0)
    private let serverGone = Atomic<Bool>(false)
    private let frameZero = Atomic<Int64>(.max)
    private let latencyFrames = Atomic<Int>(0)
    private let clockOffset = Atomic<Int64>(0)
    private var isActive = false

    /// Opens a client on the running JACK server (never starting one) and registers its
    /// ports; finds the ports to connect to: `configuration.device`'s (a client name, or
    /// `client:port` names separated by commas), else the physical playback ports when
    /// `configuration.connect`. Throws one line when no server runs or a port is missing.
    /// Control thread.
    public init(configuration: AudioOutputConfiguration = AudioOutputConfiguration()) throws(JACKError) {
        if let missing = missingLibrary { throw JACKError(missing) }
        var status = jack_status_t(rawValue: 0)
        guard let client = openClient(configuration.clientName.lowercased(), server: configuration.server, &status) else {
            let server = configuration.server ?? environment("JACK_DEFAULT_SERVER") ?? "default"
            throw JACKError("no JACK server named '\(server)' is running (start one with jackd, or choose another --driver)")
        }
        self.client = client
        clientName = String(cString: jack_get_client_name(client))
        guard let left = jack_port_register(client, "out_L", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsOutput.rawValue), 0),
              let right = jack_port_register(client, "out_R", JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsOutput.rawValue), 0) else {
            jack_client_close(client)
            throw JACKError("client '\(clientName)': the server refused to register its output ports")
        }
        self.left = left
        self.right = right
        do throws(JACKError) {
            destinations = try Self.playbackPorts(client, device: configuration.device, connect: configuration.connect)
        } catch {
            jack_client_close(client)
            throw error
        }
        deviceName = destinations.isEmpty ? "unconnected" : destinations.joined(separator: ", ")
        let frames = Int(jack_get_buffer_size(client))
        format = AudioOutputFormat(sampleRate: Int(jack_get_sample_rate(client)), periodFrames: frames, bufferFrames: frames, sampleFormat: "32-bit float")
        let context = Unmanaged.passUnretained(self).toOpaque()
        jack_set_process_callback(client, { frames, context in
            Unmanaged<JACKOutput>.fromOpaque(context!).takeUnretainedValue().process(frames: Int(frames))
            return 0
        }, context)
        jack_set_xrun_callback(client, { context in
            Unmanaged<JACKOutput>.fromOpaque(context!).takeUnretainedValue().xruns.add(1, ordering: .relaxed)
            return 0
        }, context)
        jack_on_info_shutdown(client, { _, _, context in
            let output = Unmanaged<JACKOutput>.fromOpaque(context!).takeUnretainedValue()
            output.serverGone.store(true, ordering: .releasing)
            output.pulling.store(false, ordering: .releasing)
        }, context)
    }

    deinit {
        if isActive, !serverGone.load(ordering: .acquiring) { jack_deactivate(client) }
        jack_client_close(client)
    }

    /// The input ports a device name stands for: the named ports, a client's first two audio
    /// inputs, the physical playback ports, or none.
    private static func playbackPorts(_ client: OpaquePointer, device: String?, connect: Bool) throws(JACKError) -> [String] {
        if let device, device.contains(":") {
            let names = device.split(separator: ",").map { String($0).trimmingSpaces }
            for name in names where jack_port_by_name(client, name) == nil {
                throw JACKError("port '\(name)': no such JACK port (`pianola devices --driver jack` lists them)")
            }
            return names
        }
        if device == nil && !connect { return [] }
        let pattern = device.map { "^\(escapedForRegex($0)):" }
        let flags = UInt(JackPortIsInput.rawValue) | (device == nil ? UInt(JackPortIsPhysical.rawValue) : 0)
        let found = ports(client, pattern: pattern, flags: flags)
        guard !found.isEmpty else {
            throw JACKError(device.map { "client '\($0)': no JACK client with audio inputs by that name (`pianola devices --driver jack` lists them)" }
                            ?? "the JACK server has no physical playback ports: name a client with --device, or give --no-connect")
        }
        return Array(found.prefix(2))
    }

    /// The audio ports matching `pattern` (a regular expression, `nil` for all) with `flags`.
    static func ports(_ client: OpaquePointer, pattern: String?, flags: UInt) -> [String] {
        guard let list = jack_get_ports(client, pattern, JACK_DEFAULT_AUDIO_TYPE, flags) else { return [] }
        defer { jack_free(list) }
        var names: [String] = []
        var index = 0
        while let name = list[index] {
            names.append(String(cString: name))
            index += 1
        }
        return names
    }

    /// Whether a JACK server may be running for this user: the socket of the server a client
    /// connects to (JACK_DEFAULT_SERVER, else `default`) exists in /dev/shm, as JACK 2 makes it,
    /// or JACK 1's folder for it does; always with JACK_PROMISCUOUS_SERVER set. Looked at before
    /// libjack is loaded to ask. Any thread.
    public static var serverMightRun: Bool {
        guard environment("JACK_PROMISCUOUS_SERVER") == nil else { return true }
        let server = environment("JACK_DEFAULT_SERVER") ?? "default", user = getuid()
        var folder = stat()
        return socketExists(atAnyOf: ["/dev/shm/jack_\(server)_\(user)_0"]) || stat("/dev/shm/jack-\(user)/\(server)", &folder) == 0
    }

    /// The clients with audio inputs on the running server, physical ones first (the
    /// default), each described by its ports; empty when no server runs. Control thread.
    public static func playbackDevices() -> [AudioDevice] {
        var status = jack_status_t(rawValue: 0)
        guard missingLibrary == nil, let client = openClient("pianola-devices", server: nil, &status) else { return [] }
        defer { jack_client_close(client) }
        let physical = Set(ports(client, pattern: nil, flags: UInt(JackPortIsInput.rawValue) | UInt(JackPortIsPhysical.rawValue)))
        var devices: [AudioDevice] = []
        for port in ports(client, pattern: nil, flags: UInt(JackPortIsInput.rawValue)) {
            let owner = String(port.prefix { $0 != ":" })
            if let i = devices.firstIndex(where: { $0.name == owner }) {
                devices[i].description += ", \(port)"
            } else {
                devices.append(AudioDevice(name: owner, description: port, isDefault: physical.contains(port)))
            }
        }
        return devices.sorted { $0.isDefault && !$1.isDefault }
    }

    /// Xruns the server reported while this client was active. Any thread.
    public var underruns: Int { xruns.load(ordering: .relaxed) }

    /// Frames rendered into the ports since `start`. Any thread.
    public var framesWritten: Int64 { written.load(ordering: .relaxed) }

    /// "the JACK server went away" once it has; `nil` while all is well. Any thread.
    public var failure: String? {
        serverGone.load(ordering: .acquiring) ? "the JACK server went away (client '\(clientName)')" : nil
    }

    /// When frame 0 sounds, from JACK's cycle times and the connected ports' playback
    /// latency; `nil` before the first cycle. Any thread.
    public var frameZeroNanos: Int64? {
        let value = frameZero.load(ordering: .acquiring)
        return value == .max ? nil : value
    }

    /// JACK's transport during the cycle being processed: rolling (not stopped, and not
    /// still starting), and its frame at the cycle's start. Render thread only.
    public func transportState() -> (rolling: Bool, frame: Int64) {
        var position = jack_position_t()
        let state = jack_transport_query(client, &position)
        return (state == JackTransportRolling, Int64(position.frame))
    }

    /// Activates the client, connects its ports, then pulls `graph` from the next cycle on,
    /// so nothing is rendered into unconnected ports. JACK's process thread is real-time
    /// when the server is; the note is always `nil`. Control thread.
    @discardableResult
    public func start(pulling graph: AudioGraph) -> String? {
        precondition(!pulling.load(ordering: .relaxed), "the output is already running")
        precondition(graph.format.sampleRate == format.sampleRate, "build the graph at the server's rate")
        self.graph = graph
        if !isActive {
            guard jack_activate(client) == 0 else {
                serverGone.store(true, ordering: .releasing)
                return nil
            }
            isActive = true
            let ours = [jack_port_name(left), jack_port_name(right)].map { String(cString: $0!) }
            for (index, destination) in destinations.enumerated() {
                jack_connect(client, ours[index], destination)
                if destinations.count == 1 { jack_connect(client, ours[1], destination) }
            }
            var range = jack_latency_range_t()
            jack_port_get_latency_range(left, JackPlaybackLatency, &range)
            latencyFrames.store(Int(range.max), ordering: .relaxed)
            format.bufferFrames = format.periodFrames + Int(range.max)
        }
        // JACK's clock is not CLOCK_MONOTONIC (jackd2 reads CLOCK_MONOTONIC_RAW, measured
        // 0.25 s apart here), so frame 0's time is carried over by the difference now.
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        clockOffset.store(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - Int64(jack_get_time()) * 1_000, ordering: .relaxed)
        frameZero.store(.max, ordering: .relaxed)
        pulling.store(true, ordering: .releasing)
        return nil
    }

    /// Stops pulling; with `drain`, waits until the last rendered period has left the server
    /// (its latency), then deactivates the client. Control thread.
    public func stop(drain: Bool) {
        guard isActive else { return }
        pulling.store(false, ordering: .releasing)
        if drain && !serverGone.load(ordering: .acquiring) {
            usleep(useconds_t(1_000_000 * (format.bufferFrames + format.periodFrames) / max(1, format.sampleRate)))
        }
        if !serverGone.load(ordering: .acquiring) { jack_deactivate(client) }
        isActive = false
    }

    /// JACK's process callback: the graph straight into the port buffers, or silence when
    /// not pulling. Render thread only.
    private func process(frames: Int) {
        guard let l = jack_port_get_buffer(left, jack_nframes_t(frames)), let r = jack_port_get_buffer(right, jack_nframes_t(frames)) else { return }
        let slice = StereoSlice(left: l.assumingMemoryBound(to: Float.self), right: r.assumingMemoryBound(to: Float.self), frames: frames)
        guard pulling.load(ordering: .acquiring), let graph else { return slice.clear() }
        let first = written.load(ordering: .relaxed)
        noteFrameZero(first: first)
        graph.render(into: slice)
        written.store(first + Int64(frames), ordering: .relaxed)
    }

    /// Frame `first` of the graph leaves the server at the next cycle's start plus the ports'
    /// playback latency, in JACK's microseconds carried over to CLOCK_MONOTONIC. Render thread only.
    private func noteFrameZero(first: Int64) {
        var frames: jack_nframes_t = 0
        var now: jack_time_t = 0, next: jack_time_t = 0
        var period: Float = 0
        guard jack_get_cycle_times(client, &frames, &now, &next, &period) == 0 else { return }
        let rate = Int64(format.sampleRate)
        let estimate = Int64(next) * 1_000 + clockOffset.load(ordering: .relaxed) + (Int64(latencyFrames.load(ordering: .relaxed)) - first) * 1_000_000_000 / rate
        if estimate < frameZero.load(ordering: .relaxed) { frameZero.store(estimate, ordering: .releasing) }
    }
}

/// Why libjack cannot be opened (it is opened on first use, not linked), nil once it is.
private let missingLibrary: String? = cjack_open().map { String(cString: $0) }

/// A client on the running server named `server` (`nil`: the environment's; never starting
/// one), with libjack's own messages kept off standard error: Pianola says what failed in its
/// own one line. Control thread.
private func openClient(_ name: String, server: String?, _ status: inout jack_status_t) -> OpaquePointer? {
    jack_set_error_function { _ in }
    jack_set_info_function { _ in }
    return shim_jack_client_open(name, JackNoStartServer, &status, server)
}

/// Something JACK refused, one line. Any thread.
public struct JACKError: Fault, Hashable, Sendable {
    /// A device's fault: the server or its ports. Any thread.
    public var kind: FaultKind { .device }
    /// What happened and why. Any thread.
    public var description: String

    init(_ description: String) { self.description = description }
}

private extension String {
    /// The string without spaces around it.
    var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}

/// `name` with the characters a POSIX regular expression treats specially escaped.
private func escapedForRegex(_ name: String) -> String {
    var escaped = ""
    for character in name {
        if "\\^$.|?*+()[]{}".contains(character) { escaped.append("\\") }
        escaped.append(character)
    }
    return escaped
}
