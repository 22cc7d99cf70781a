import Faults
import CALSA
import CALSAShims
import Engine
#if canImport(Glibc)
import Glibc
#endif

/// A port of the ALSA sequencer, as `aconnect -l` lists it. Any thread.
public struct SequencerPort: Hashable, Sendable {
    /// The client number (14 for Midi Through, 24… for VirMIDI). Any thread.
    public var client: Int
    /// The port number inside the client. Any thread.
    public var port: Int
    /// The client's name: `Midi Through`, `Virtual Raw MIDI 2-0`. Any thread.
    public var clientName: String
    /// The port's name: `Midi Through Port-0`, `VirMIDI 2-0`. Any thread.
    public var name: String
    /// What other clients may do with it. Any thread.
    public var capabilities: Capabilities
    /// Whether the port belongs to a kernel client (a card, Midi Through) rather than a program. Any thread.
    public var isKernel: Bool

    /// What a port allows. Any thread.
    public struct Capabilities: OptionSet, Hashable, Sendable {
        /// Raw `SND_SEQ_PORT_CAP_*` bits. Any thread.
        public var rawValue: UInt32
        /// Wraps raw bits. Any thread.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Events can be read from it (it is a source). Any thread.
        public static let read = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_READ))
        /// Events can be written to it (it is a destination). Any thread.
        public static let write = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_WRITE))
        /// Others may subscribe to what it sends. Any thread.
        public static let subscribeRead = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_SUBS_READ))
        /// Others may subscribe it to what they send. Any thread.
        public static let subscribeWrite = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_SUBS_WRITE))
        /// Reads and writes at once. Any thread.
        public static let duplex = Capabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_DUPLEX))
    }

    /// `client:port`, the way ALSA tools address it. Any thread.
    public var address: String { "\(client):\(port)" }
    /// Whether Pianola can send to it. Any thread.
    public var acceptsEvents: Bool { capabilities.contains([.write, .subscribeWrite]) }
    /// Whether Pianola can record from it. Any thread.
    public var sendsEvents: Bool { capabilities.contains([.read, .subscribeRead]) }

    /// `in`, `out`, `in/out`: the port's direction as seen by a program that connects to it. Any thread.
    public var direction: String {
        switch (acceptsEvents, sendsEvents) {
        case (true, true): return "in/out"
        case (true, false): return "in"
        case (false, true): return "out"
        case (false, false): return "none"
        }
    }
}

/// A sequencer call that failed, or a port name that names nothing: one line saying what,
/// where and why. Any thread.
public struct SequencerError: Fault, Hashable, Sendable {
    /// A device's fault: the sequencer or a port. Any thread.
    public var kind: FaultKind { .device }
    /// The whole message. Any thread.
    public var description: String

    init(_ description: String) { self.description = description }

    /// Throws when `status` is negative, naming `what` and ALSA's reason.
    static func check(_ status: Int32, _ what: String) throws(SequencerError) {
        guard let failure = ALSAStatus.failure(status) else { return }
        throw SequencerError("\(what): \(failure.reason)\(failure.detail.isEmpty ? "" : " (\(failure.detail))")")
    }
}

/// Pianola's client of the ALSA sequencer (`/dev/snd/seq`): lists the system's ports, finds
/// one by the names ALSA users give them, and makes Pianola's own ports. Core MIDI's client.
/// Control thread; the sender and recorder threads built on it use their own members.
public final class SequencerClient: @unchecked Sendable {
    // @unchecked Sendable: the handle is used by one thread at a time: the control thread
    // while setting up, then the one sender or recorder thread that owns each direction
    // (alsa-lib's sequencer calls for output and input touch separate buffers).

    let handle: OpaquePointer
    /// Pianola's client number. Any thread.
    public let clientID: Int
    /// The name other programs see. Any thread.
    public let name: String

    /// Opens the sequencer as client `name`. Throws one line when there is no sequencer
    /// (`/dev/snd/seq` missing: the snd-seq module is not loaded) or it refuses. Control thread.
    public init(name: String = "Pianola") throws(SequencerError) {
        shim_alsa_capture_errors()
        var seq: OpaquePointer?
        let status = snd_seq_open(&seq, "default", Int32(SND_SEQ_OPEN_DUPLEX), 0)
        guard status >= 0, let seq else {
            _ = ALSAStatus.takeLastMessage()
            if access("/dev/snd/seq", F_OK) != 0 {
                throw SequencerError("no ALSA sequencer: /dev/snd/seq is missing (load it: modprobe snd-seq)")
            }
            throw SequencerError("ALSA sequencer: cannot open: \(String(cString: snd_strerror(status)))")
        }
        handle = seq
        self.name = name
        snd_seq_set_client_name(seq, name)
        clientID = Int(snd_seq_client_id(seq))
    }

    deinit { snd_seq_close(handle) }

    /// Every port of every client, Pianola's own included, by client then port. Control thread.
    public func ports() -> [SequencerPort] {
        var client: OpaquePointer?
        var port: OpaquePointer?
        snd_seq_client_info_malloc(&client)
        snd_seq_port_info_malloc(&port)
        defer {
            snd_seq_client_info_free(client)
            snd_seq_port_info_free(port)
        }
        var result: [SequencerPort] = []
        snd_seq_client_info_set_client(client, -1)
        while snd_seq_query_next_client(handle, client) >= 0 {
            let number = snd_seq_client_info_get_client(client)
            let clientName = String(cString: snd_seq_client_info_get_name(client)).trimmingWhitespace
            let isKernel = snd_seq_client_info_get_type(client) == SND_SEQ_KERNEL_CLIENT
            snd_seq_port_info_set_client(port, number)
            snd_seq_port_info_set_port(port, -1)
            while snd_seq_query_next_port(handle, port) >= 0 {
                result.append(SequencerPort(
                    client: Int(number), port: Int(snd_seq_port_info_get_port(port)), clientName: clientName,
                    name: String(cString: snd_seq_port_info_get_name(port)).trimmingWhitespace,
                    capabilities: .init(rawValue: snd_seq_port_info_get_capability(port)), isKernel: isKernel))
            }
        }
        return result
    }

    /// The port that `name` means, for sending to it (`sending`) or recording from it.
    /// Accepts `24:0`, `24` (its first port), a port name (`VirMIDI 2-0`), a client name
    /// (`Midi Through`, `"Virtual Raw MIDI 2-0"`), or `client name:port`; names ignore case.
    /// Throws one line listing the usable ports when nothing matches. Control thread.
    public func port(named name: String, sending: Bool) throws(SequencerError) -> SequencerPort {
        let all = ports().filter { $0.client != clientID }
        let usable = all.filter { sending ? $0.acceptsEvents : $0.sendsEvents }
        let wanted = name.trimmingWhitespace
        func same(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }
        var candidates: [SequencerPort] = []
        let parts = wanted.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, let portNumber = Int(parts[1]) {
            candidates = all.filter { $0.port == portNumber && (Int(parts[0]) == $0.client || same(parts[0], $0.clientName)) }
        } else if let clientNumber = Int(wanted) {
            candidates = usable.filter { $0.client == clientNumber }
        } else {
            candidates = all.filter { same($0.name, wanted) }
            if candidates.isEmpty { candidates = usable.filter { same($0.clientName, wanted) } }
        }
        let role = sending ? "to send to" : "to record from"
        guard let found = candidates.first else {
            let start = "MIDI port '\(name)': no such port \(role); ports: "
            throw SequencerError(start + Self.fitting(usable, after: start))
        }
        guard sending ? found.acceptsEvents : found.sendsEvents else {
            let named = name == found.address ? "'\(name)' (\(found.clientName): \(found.name))" : "'\(name)' (\(found.address))"
            let start = "MIDI port \(named) does not let other programs \(sending ? "send to it" : "record from it"); ports \(role): "
            throw SequencerError(start + Self.fitting(usable, after: start))
        }
        return found
    }

    /// Makes one of Pianola's own ports, for sending (others may subscribe to it) or
    /// receiving (others may send to it); returns its number. Control thread.
    public func makePort(name: String, sending: Bool) throws(SequencerError) -> Int {
        let caps = sending ? SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ : SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE
        let port = snd_seq_create_simple_port(handle, name, UInt32(caps), UInt32(SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION))
        try SequencerError.check(port, "ALSA sequencer: cannot create port '\(name)'")
        return Int(port)
    }

    /// Routes everything `source` sends straight to `destination`, in the kernel (MIDI thru). Control thread.
    public func connect(_ source: SequencerPort, to destination: SequencerPort) throws(SequencerError) {
        try subscribe(from: (source.client, source.port), to: (destination.client, destination.port),
                      what: "MIDI thru from \(source.address) to \(destination.address)")
    }

    /// Subscribes `destination` to what `sender` sends; with `stampingOn`, the kernel stamps
    /// each event with that queue's real time as it delivers it. Already subscribed (by
    /// aconnect, say) is as good. Control thread.
    func subscribe(from sender: (client: Int, port: Int), to destination: (client: Int, port: Int), stampingOn queue: Int32? = nil, what: String) throws(SequencerError) {
        var subscription: OpaquePointer?
        snd_seq_port_subscribe_malloc(&subscription)
        defer { snd_seq_port_subscribe_free(subscription) }
        var from = snd_seq_addr_t(client: UInt8(sender.client), port: UInt8(sender.port))
        var to = snd_seq_addr_t(client: UInt8(destination.client), port: UInt8(destination.port))
        snd_seq_port_subscribe_set_sender(subscription, &from)
        snd_seq_port_subscribe_set_dest(subscription, &to)
        if let queue {
            snd_seq_port_subscribe_set_queue(subscription, queue)
            snd_seq_port_subscribe_set_time_update(subscription, 1)
            snd_seq_port_subscribe_set_time_real(subscription, 1)
        }
        let status = snd_seq_subscribe_port(handle, subscription)
        if status == -EBUSY { return }
        try SequencerError.check(status, what)
    }

    /// How many programs are subscribed to what Pianola's port `port` sends. Control thread.
    public func subscriberCount(port: Int) -> Int {
        var info: OpaquePointer?
        snd_seq_port_info_malloc(&info)
        defer { snd_seq_port_info_free(info) }
        guard snd_seq_get_port_info(handle, Int32(port), info) >= 0 else { return 0 }
        return Int(snd_seq_port_info_get_read_use(info))
    }

    /// Makes a queue (the kernel's scheduler for timestamped events); returns its number and
    /// whether it runs on the high-resolution timer. The queue asks for the kernel's hrtimer
    /// at 4 kHz (0.25 ms steps); where snd-hrtimer is missing it keeps the system timer, whose
    /// steps are a jiffy (1–10 ms). Control thread.
    func makeQueue() throws(SequencerError) -> (queue: Int32, precise: Bool) {
        let queue = snd_seq_alloc_named_queue(handle, name)
        try SequencerError.check(queue, "ALSA sequencer: cannot allocate a queue")
        var timer: OpaquePointer?
        var id: OpaquePointer?
        snd_seq_queue_timer_malloc(&timer)
        snd_timer_id_malloc(&id)
        defer {
            snd_seq_queue_timer_free(timer)
            snd_timer_id_free(id)
        }
        snd_timer_id_set_class(id, Int32(SND_TIMER_CLASS_GLOBAL.rawValue))
        snd_timer_id_set_sclass(id, Int32(SND_TIMER_SCLASS_NONE.rawValue))
        snd_timer_id_set_card(id, -1)
        snd_timer_id_set_device(id, SND_TIMER_GLOBAL_HRTIMER)
        snd_timer_id_set_subdevice(id, 0)
        guard snd_seq_get_queue_timer(handle, queue, timer) >= 0 else { return (queue, false) }
        snd_seq_queue_timer_set_id(timer, id)
        snd_seq_queue_timer_set_resolution(timer, 4_000)
        let precise = snd_seq_set_queue_timer(handle, queue, timer) >= 0
        _ = ALSAStatus.takeLastMessage()
        return (queue, precise)
    }

    /// Subscribes `destination` to Pianola's port `port`, so it takes the port's events
    /// (VirMIDI, like many drivers, ignores events from programs not subscribed to it). Control thread.
    func connect(port: Int, to destination: SequencerPort) throws(SequencerError) {
        try subscribe(from: (clientID, port), to: (destination.client, destination.port),
                      what: "MIDI port \(destination.address) (\(destination.name)): cannot connect to it")
    }

    /// Hands each event that arrives to `take` until `worker` is asked to stop (asked at least
    /// every `interval` ms), then those already buffered. Reader thread (the client's input
    /// side has one reader).
    func readEvents(until worker: StoppableThread, checkingEvery interval: Int32, _ take: (snd_seq_event_t) -> Void) {
        let count = Int(snd_seq_poll_descriptors_count(handle, Int16(POLLIN)))
        var fds = [pollfd](repeating: pollfd(), count: max(1, count))
        snd_seq_poll_descriptors(handle, &fds, UInt32(fds.count), Int16(POLLIN))
        var event: UnsafeMutablePointer<snd_seq_event_t>?
        func takePending() {
            while snd_seq_event_input_pending(handle, 1) > 0, snd_seq_event_input(handle, &event) >= 0, let e = event { take(e.pointee) }
        }
        while !worker.isStopping {
            if poll(&fds, nfds_t(fds.count), interval) > 0 { takePending() }
        }
        takePending()   // what arrived before the stop request is still in the buffers
    }

    /// Starts or stops `queue` now. Any one thread at a time.
    func control(queue: Int32, start: Bool) {
        snd_seq_control_queue(handle, queue, Int32((start ? SND_SEQ_EVENT_START : SND_SEQ_EVENT_STOP).rawValue), 0, nil)
        snd_seq_drain_output(handle)
    }

    /// The queue's current time in nanoseconds since it started. Any one thread at a time.
    func now(queue: Int32) -> Int64 { status(of: queue).nanoseconds }

    /// The queue's current time in nanoseconds since it started, and how many events wait in
    /// it (0 for both when it cannot be read). Any one thread at a time.
    func status(of queue: Int32) -> (nanoseconds: Int64, waiting: Int) {
        var status: OpaquePointer?
        snd_seq_queue_status_malloc(&status)
        defer { snd_seq_queue_status_free(status) }
        guard snd_seq_get_queue_status(handle, queue, status) >= 0, let time = snd_seq_queue_status_get_real_time(status) else { return (0, 0) }
        return (Int64(time.pointee.tv_sec) * 1_000_000_000 + Int64(time.pointee.tv_nsec), Int(snd_seq_queue_status_get_events(status)))
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}

extension SequencerClient {
    /// `ports` as "14:0 Midi Through, 24:0 Virtual Raw MIDI 2-0, …", as many as fit a
    /// 100-column line that starts with "pianola: " and `start`; "none" for none.
    static func fitting(_ ports: [SequencerPort], after start: String) -> String {
        guard !ports.isEmpty else { return "none" }
        let room = 100 - "pianola: ".count - start.count
        let more = ", … ('pianola ports' lists them)"
        var list = ""
        for (index, port) in ports.enumerated() {
            let item = (list.isEmpty ? "" : ", ") + "\(port.address) \(port.clientName)"
            let tail = index == ports.count - 1 ? 0 : more.count
            guard list.count + item.count + tail <= room || list.isEmpty else { return list + more }
            list += item
        }
        return list
    }
}
