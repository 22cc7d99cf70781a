import Faults
import DSP
import CPipeWire
import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A PipeWire playback stream named "Pianola" with the media role Music, linked by the
/// session manager to the sink named (a node name or serial) or the default one. It renders
/// in PipeWire's real-time process callback, asks for `periodFrames` as its quantum, and
/// takes the stream's own timing for the sample clock. Control thread for every member,
/// except as noted.
public final class PipeWireOutput: AudioOutput, @unchecked Sendable {
    // @unchecked Sendable: the stream is driven on PipeWire's threads, the control thread
    // calls into it under the thread loop's lock; what they share is atomic.

    /// PipeWire. Any thread.
    public var driver: AudioDriver { .pipewire }
    /// The sink asked for, or "default sink". Any thread.
    public let deviceName: String
    /// The stream's rate (PipeWire converts to the graph's), and the quantum asked for. Any thread.
    public let format: AudioOutputFormat

    private let loop: OpaquePointer
    private let context: OpaquePointer
    private let core: OpaquePointer
    private let stream: OpaquePointer
    private let events: UnsafeMutablePointer<pw_stream_events>
    private let listener: UnsafeMutablePointer<spa_hook>
    private var graph: AudioGraph?
    private var scratch: AudioBuffer?
    private let pulling = Atomic<Bool>(false)
    private let written = Atomic<Int64>(0)
    private let starved = Atomic<Int>(0)
    private let broken = Atomic<Bool>(false)
    private let frameZero = Atomic<Int64>(.max)
    private let streamState = Atomic<Int32>(PW_STREAM_STATE_UNCONNECTED.rawValue)
    private var isRunning = false
    private let startedNanos = Atomic<Int64>(0)   // CLOCK_MONOTONIC of `start`; 0 before
    private var lastTicks: Int64?      // render thread only
    private var lastCycleTicks: Int64 = 0   // render thread only

    /// Connects to the PipeWire daemon and creates the stream (not yet linked). Throws one
    /// line when no daemon answers or the sink named does not exist. Control thread.
    public init(configuration: AudioOutputConfiguration = AudioOutputConfiguration()) throws(PipeWireError) {
        if let missing = Self.missingLibrary { throw PipeWireError(missing) }
        PipeWireOutput.initialize
        // The stream connects lazily, so ask the daemon first: is it there, and has it the sink?
        let sinks = try PipeWireRegistry.sinks(remote: configuration.server)
        if let device = configuration.device, !sinks.contains(where: { $0.name == device || $0.description.hasPrefix("#\(device) ") }) {
            throw PipeWireError("sink '\(device)': no PipeWire sink by that name or serial (`pianola devices --driver pipewire` lists them)")
        }
        if sinks.isEmpty { throw PipeWireError("the PipeWire daemon has no audio sink to play to") }
        deviceName = configuration.device ?? "default sink"
        let rate = configuration.sampleRate
        format = AudioOutputFormat(sampleRate: rate, periodFrames: configuration.periodFrames, bufferFrames: configuration.periodFrames, sampleFormat: "F32")
        events = .allocate(capacity: 1)
        events.initialize(to: pw_stream_events())
        events.pointee.version = UInt32(PW_VERSION_STREAM_EVENTS)
        events.pointee.process = { context in Unmanaged<PipeWireOutput>.fromOpaque(context!).takeUnretainedValue().process() }
        events.pointee.state_changed = { context, _, state, _ in
            let output = Unmanaged<PipeWireOutput>.fromOpaque(context!).takeUnretainedValue()
            output.streamState.store(state.rawValue, ordering: .releasing)
            if state == PW_STREAM_STATE_ERROR || (state == PW_STREAM_STATE_UNCONNECTED && output.pulling.load(ordering: .acquiring)) {
                output.broken.store(true, ordering: .releasing)
            }
        }
        let properties = pw_properties_new_string("")
        for (key, value) in [(PW_KEY_MEDIA_TYPE, "Audio"), (PW_KEY_MEDIA_CATEGORY, "Playback"), (PW_KEY_MEDIA_ROLE, "Music"),
                             (PW_KEY_APP_NAME, configuration.clientName), (PW_KEY_NODE_NAME, configuration.clientName.lowercased()),
                             (PW_KEY_NODE_LATENCY, "\(configuration.periodFrames)/\(rate)")] + (configuration.device.map { [(PW_KEY_TARGET_OBJECT, $0)] } ?? []) {
            pw_properties_set(properties, key, value)
        }
        // client-rt.conf, as PipeWire's own players use: its module-rt makes the data thread,
        // where the process callback runs, real-time.
        guard let loop = pw_thread_loop_new("pianola-pipewire", nil) else { throw PipeWireError("cannot create PipeWire's thread loop") }
        guard let context = pw_context_new(pw_thread_loop_get_loop(loop), pw_properties_new_string("config.name=client-rt.conf"), 0) else {
            pw_thread_loop_destroy(loop)
            throw PipeWireError("cannot create a PipeWire context (\(String(cString: strerror(errno))))")
        }
        pw_thread_loop_lock(loop)
        let core = pw_context_connect(context, PipeWireRegistry.remoteProperties(configuration.server), 0)
        let stream = core.flatMap { pw_stream_new($0, configuration.clientName, properties) }
        pw_thread_loop_unlock(loop)
        guard let core, let stream else {
            let reason = String(cString: strerror(errno))
            if let core { pw_core_disconnect(core) }
            pw_context_destroy(context)
            pw_thread_loop_destroy(loop)
            throw PipeWireError("cannot create a PipeWire stream (\(reason))")
        }
        (self.loop, self.context, self.core, self.stream) = (loop, context, core, stream)
        listener = .allocate(capacity: 1)
        listener.initialize(to: spa_hook())
        pw_stream_add_listener(stream, listener, events, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        if isRunning { stop(drain: false) }
        pw_thread_loop_lock(loop)
        pw_stream_destroy(stream)
        pw_core_disconnect(core)
        pw_thread_loop_unlock(loop)
        pw_thread_loop_stop(loop)
        pw_context_destroy(context)
        pw_thread_loop_destroy(loop)
        events.deallocate()
        listener.deallocate()
    }

    /// pw_init, once per process.
    private static let initialize: Void = pw_init(nil, nil)

    /// Why libpipewire cannot be opened (it is opened on first use, not linked), nil once it is.
    private static let missingLibrary: String? = cpipewire_open().map { String(cString: $0) }

    /// Whether a PipeWire daemon may be listening: the socket a client connects to (PIPEWIRE_REMOTE,
    /// else `pipewire-0`, in PIPEWIRE_RUNTIME_DIR, XDG_RUNTIME_DIR, USERPROFILE or /run/pipewire)
    /// exists. Looked at before libpipewire is loaded to ask. Any thread.
    public static var daemonMightRun: Bool {
        let remote = environment("PIPEWIRE_REMOTE") ?? "pipewire-0"
        if remote.hasPrefix("/") { return socketExists(atAnyOf: [remote]) }
        let folders = ["PIPEWIRE_RUNTIME_DIR", "XDG_RUNTIME_DIR", "USERPROFILE"].compactMap(environment) + ["/run/pipewire"]
        return socketExists(atAnyOf: folders.map { "\($0)/\(remote)" })
    }

    /// The daemon's audio sinks, each with its serial and description; empty when no daemon
    /// answers. Control thread.
    public static func playbackDevices() -> [AudioDevice] {
        guard missingLibrary == nil else { return [] }
        initialize
        return (try? PipeWireRegistry.sinks(remote: nil)) ?? []
    }

    /// Missed cycles: the graph asked and no buffer was ready, or the graph's clock moved on
    /// by more than one cycle between two calls (Pianola's cycle came too late). Any thread.
    public var underruns: Int { starved.load(ordering: .relaxed) }

    /// Frames rendered into the stream's buffers since `start`. Any thread.
    public var framesWritten: Int64 { written.load(ordering: .relaxed) }

    /// "the PipeWire daemon went away" once the stream broke; `nil` while all is well. Any thread.
    public var failure: String? {
        if broken.load(ordering: .acquiring) { return "the PipeWire daemon went away or dropped the stream (Pianola's stream to \(deviceName))" }
        let started = startedNanos.load(ordering: .acquiring)
        if started > 0, written.load(ordering: .relaxed) == 0, Self.monotonicNanos() - started > Self.startLimitNanos {
            return "PipeWire did not run Pianola's stream to \(deviceName) within 5 s: no session manager linked it (is WirePlumber running?)"
        }
        return nil
    }

    /// How long a stream may wait for its first cycle before that counts as a failure.
    private static let startLimitNanos: Int64 = 5_000_000_000

    private static func monotonicNanos() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// When frame 0 sounds, from the stream's own timing (`pw_stream_get_time_n`: its delay to
    /// the device, what it has queued, in CLOCK_MONOTONIC); `nil` before the first cycle. Any thread.
    public var frameZeroNanos: Int64? {
        let value = frameZero.load(ordering: .acquiring)
        return value == .max ? nil : value
    }

    /// Connects the stream (the session manager links it) and pulls `graph` from its first
    /// cycle. The process thread is PipeWire's real-time data thread; the note is always
    /// `nil`. Control thread.
    @discardableResult
    public func start(pulling graph: AudioGraph) -> String? {
        precondition(!isRunning, "the output is already running")
        precondition(graph.format.sampleRate == format.sampleRate, "build the graph at the stream's rate")
        self.graph = graph
        scratch = AudioBuffer(capacity: max(format.periodFrames, graph.maxFrames))
        frameZero.store(.max, ordering: .relaxed)
        lastTicks = nil
        pulling.store(true, ordering: .releasing)
        var buffer = [UInt8](repeating: 0, count: 1_024)
        pw_thread_loop_lock(loop)
        var parameters: [UnsafePointer<spa_pod>?] = [shim_pw_stereo_float_format(&buffer, UInt32(buffer.count), UInt32(format.sampleRate))]
        let flags = pw_stream_flags(PW_STREAM_FLAG_AUTOCONNECT.rawValue | PW_STREAM_FLAG_MAP_BUFFERS.rawValue | PW_STREAM_FLAG_RT_PROCESS.rawValue)
        if pw_stream_connect(stream, SPA_DIRECTION_OUTPUT, UInt32.max,   // PW_ID_ANY
                              flags, &parameters, 1) < 0 { broken.store(true, ordering: .releasing) }
        pw_thread_loop_unlock(loop)
        pw_thread_loop_start(loop)
        isRunning = true
        startedNanos.store(Self.monotonicNanos(), ordering: .releasing)
        return nil
    }

    /// Stops pulling; with `drain`, lets the stream play out what it queued first. Control thread.
    public func stop(drain: Bool) {
        guard isRunning else { return }
        pulling.store(false, ordering: .releasing)
        if drain && !broken.load(ordering: .acquiring) {
            usleep(useconds_t(1_000_000 * 4 * format.periodFrames / max(1, format.sampleRate)) + 50_000)
        }
        pw_thread_loop_lock(loop)
        pw_stream_disconnect(stream)
        pw_thread_loop_unlock(loop)
        isRunning = false
    }

    /// PipeWire's process callback: one buffer of interleaved float, the graph's frames or
    /// silence. Render thread only.
    private func process() {
        guard let buffer = pw_stream_dequeue_buffer(stream) else {
            starved.add(1, ordering: .relaxed)
            return
        }
        defer { pw_stream_queue_buffer(stream, buffer) }
        guard let data = buffer.pointee.buffer.pointee.datas, let samples = data.pointee.data else { return }
        let stride = 2 * MemoryLayout<Float>.size
        var frames = Int(data.pointee.maxsize) / stride
        if buffer.pointee.requested > 0 { frames = min(frames, Int(buffer.pointee.requested)) }
        let out = samples.assumingMemoryBound(to: Float.self)
        if pulling.load(ordering: .acquiring), let graph, let scratch {
            frames = min(frames, scratch.capacity)
            let first = written.load(ordering: .relaxed)
            noteTiming(first: first, frames: frames)
            let slice = scratch.slice(frames: frames)
            graph.render(into: slice)
            slice.interleave(into: out)
            written.store(first + Int64(frames), ordering: .relaxed)
        } else {
            out.update(repeating: 0, count: 2 * frames)
        }
        data.pointee.chunk.pointee.offset = 0
        data.pointee.chunk.pointee.stride = Int32(stride)
        data.pointee.chunk.pointee.size = UInt32(frames * stride)
    }

    /// Notes when frame 0 sounds (this buffer's first frame sounds after the stream's delay to
    /// the device plus what is queued ahead of it), and counts a cycle missed when the
    /// graph's ticks moved on by more than the last cycle's frames. Render thread only.
    private func noteTiming(first: Int64, frames: Int) {
        var time = pw_time()
        guard pw_stream_get_time_n(stream, &time, MemoryLayout<pw_time>.size) == 0, time.rate.denom > 0 else { return }
        let ticks = Int64(bitPattern: time.ticks)
        if let lastTicks, ticks - lastTicks > lastCycleTicks + lastCycleTicks / 2 { starved.add(1, ordering: .relaxed) }
        let rate = Int64(format.sampleRate)
        lastCycleTicks = Int64(frames) * Int64(time.rate.denom) / (Int64(time.rate.num) * rate)   // this cycle, in the graph's ticks
        lastTicks = ticks
        let delay = time.delay * 1_000_000_000 * Int64(time.rate.num) / Int64(time.rate.denom)
        let queued = (Int64(time.queued) + Int64(time.buffered)) * 1_000_000_000 / rate
        let estimate = time.now + delay + queued - first * 1_000_000_000 / rate
        if estimate < frameZero.load(ordering: .relaxed) { frameZero.store(estimate, ordering: .releasing) }
    }
}

/// Something PipeWire refused, one line. Any thread.
public struct PipeWireError: Fault, Hashable, Sendable {
    /// A device's fault: the daemon or its sink. Any thread.
    public var kind: FaultKind { .device }
    /// What happened and why. Any thread.
    public var description: String

    init(_ description: String) { self.description = description }
}

/// A one-shot look at the daemon's objects: its audio sinks, and the default sink's name from
/// the session manager's "default" metadata. Control thread.
private final class PipeWireRegistry {
    private let loop: OpaquePointer
    private let core: OpaquePointer
    private var registry: OpaquePointer?
    private var metadata: OpaquePointer?
    private var hooks: [UnsafeMutablePointer<spa_hook>] = []
    private var sinks: [(name: String, serial: String, description: String)] = []
    private var defaultSink: String?
    private var pending: Int32 = 0
    private let coreEvents = UnsafeMutablePointer<pw_core_events>.allocate(capacity: 1)
    private let registryEvents = UnsafeMutablePointer<pw_registry_events>.allocate(capacity: 1)
    private let metadataEvents = UnsafeMutablePointer<pw_metadata_events>.allocate(capacity: 1)

    private init(loop: OpaquePointer, core: OpaquePointer) {
        self.loop = loop
        self.core = core
        coreEvents.initialize(to: Self.coreCallbacks())
        registryEvents.initialize(to: Self.registryCallbacks())
        metadataEvents.initialize(to: Self.metadataCallbacks())
    }

    deinit {
        for hook in hooks {
            spa_hook_remove(hook)
            hook.deallocate()
        }
        if let metadata { pw_proxy_destroy(metadata) }
        if let registry { pw_proxy_destroy(registry) }
        coreEvents.deallocate()
        registryEvents.deallocate()
        metadataEvents.deallocate()
    }

    /// The properties that point a connection at `remote` (`nil`: the environment's daemon).
    static func remoteProperties(_ remote: String?) -> UnsafeMutablePointer<pw_properties>? {
        remote.map { remote in
            let properties = pw_properties_new_string("")
            pw_properties_set(properties, PW_KEY_REMOTE_NAME, remote)
            return properties!
        }
    }

    /// The sinks of the daemon at `remote` (`nil`: the environment's), the default one
    /// marked; throws one line when no daemon answers.
    static func sinks(remote: String?) throws(PipeWireError) -> [AudioDevice] {
        guard let loop = pw_main_loop_new(nil) else { throw PipeWireError("cannot create PipeWire's main loop") }
        defer { pw_main_loop_destroy(loop) }
        guard let context = pw_context_new(pw_main_loop_get_loop(loop), nil, 0) else { throw PipeWireError("cannot create a PipeWire context") }
        defer { pw_context_destroy(context) }
        guard let core = pw_context_connect(context, remoteProperties(remote), 0) else {
            let environment = { (name: String) in getenv(name).map { String(cString: $0) } }
            let socket = remote ?? environment("PIPEWIRE_REMOTE") ?? "pipewire-0"
            guard let folder = environment("PIPEWIRE_RUNTIME_DIR") ?? environment("XDG_RUNTIME_DIR") else {
                throw PipeWireError("no PipeWire daemon answers: XDG_RUNTIME_DIR is not set, so there is no socket to reach it by")
            }
            throw PipeWireError("no PipeWire daemon answers at \(socket.hasPrefix("/") ? socket : folder + "/" + socket)")
        }
        defer { pw_core_disconnect(core) }
        let look = PipeWireRegistry(loop: loop, core: core)
        look.listen()
        look.roundTrip()   // the globals
        look.roundTrip()   // the default metadata's properties
        return look.sinks.map { AudioDevice(name: $0.name, description: "#\($0.serial)\($0.description.isEmpty ? "" : " " + $0.description)", isDefault: $0.name == look.defaultSink) }
    }

    private func hook() -> UnsafeMutablePointer<spa_hook> {
        let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
        hook.initialize(to: spa_hook())
        hooks.append(hook)
        return hook
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func coreCallbacks() -> pw_core_events {
        var events = pw_core_events()
        events.version = UInt32(PW_VERSION_CORE_EVENTS)
        events.done = { context, id, seq in
            let look = Unmanaged<PipeWireRegistry>.fromOpaque(context!).takeUnretainedValue()
            if id == PW_ID_CORE && seq == look.pending { pw_main_loop_quit(look.loop) }
        }
        // A daemon that goes away mid-look ends it with what arrived so far.
        events.error = { context, id, _, _, _ in
            if id == PW_ID_CORE { pw_main_loop_quit(Unmanaged<PipeWireRegistry>.fromOpaque(context!).takeUnretainedValue().loop) }
        }
        return events
    }

    private static func registryCallbacks() -> pw_registry_events {
        var events = pw_registry_events()
        events.version = UInt32(PW_VERSION_REGISTRY_EVENTS)
        events.global = { context, id, _, type, _, props in
            guard let type, let props else { return }
            let look = Unmanaged<PipeWireRegistry>.fromOpaque(context!).takeUnretainedValue()
            func value(_ key: String) -> String? { spa_dict_lookup(props, key).map { String(cString: $0) } }
            switch String(cString: type) {
            case "PipeWire:Interface:Node" where value("media.class") == "Audio/Sink":
                look.sinks.append((value("node.name") ?? "#\(id)", value("object.serial") ?? "\(id)", value("node.description") ?? ""))
            case "PipeWire:Interface:Metadata" where value("metadata.name") == "default" && look.metadata == nil:
                look.bindDefaults(id: id)
            default: break
            }
        }
        return events
    }

    private static func metadataCallbacks() -> pw_metadata_events {
        var events = pw_metadata_events()
        events.version = UInt32(PW_VERSION_METADATA_EVENTS)
        events.property = { context, _, key, _, value in
            guard let key, let value, String(cString: key) == "default.audio.sink" else { return 0 }
            // The value is JSON: {"name":"alsa_output.pci-0000_00_1b.0.analog-stereo"}
            let parts = String(cString: value).split(separator: "\"", omittingEmptySubsequences: false)
            if let name = parts.firstIndex(of: "name"), name + 2 < parts.count {
                Unmanaged<PipeWireRegistry>.fromOpaque(context!).takeUnretainedValue().defaultSink = String(parts[name + 2])
            }
            return 0
        }
        return events
    }

    private func listen() {
        _ = shim_pw_core_add_listener(core, hook(), coreEvents, context)
        registry = pw_core_get_registry(core, UInt32(PW_VERSION_REGISTRY), 0)
        _ = shim_pw_registry_add_listener(registry, hook(), registryEvents, context)
    }

    private func bindDefaults(id: UInt32) {
        guard let bound = pw_registry_bind(registry, id, "PipeWire:Interface:Metadata", UInt32(PW_VERSION_METADATA), 0) else { return }
        metadata = OpaquePointer(bound)
        _ = shim_pw_metadata_add_listener(metadata, hook(), metadataEvents, context)
    }

    /// Waits until the daemon has answered everything asked so far.
    private func roundTrip() {
        pending = shim_pw_core_sync(core, pending)
        pw_main_loop_run(loop)
    }
}
