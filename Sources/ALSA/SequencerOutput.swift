import CALSA
import Engine
import MIDI
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Sends a player's MIDI to sequencer ports on a kernel queue, so the kernel times every
/// event: the player's events go (lock-free, from whatever thread renders) to a sender thread,
/// which stamps each with its sample frame converted to queue time and hands it to the kernel
/// a small window ahead. With no audio, the sender also drives the player from the clock.
/// Transport jumps remove what was queued ahead and reset the channels (All Notes Off, Reset
/// All Controllers) after the player's note-offs; sysex goes out whole, spaced at MIDI line
/// rate. Core MIDI's output port with MusicPlayer's scheduling. Control thread, except as noted.
public final class SequencerOutput: @unchecked Sendable {
    // @unchecked Sendable: `items` and `sysexBytes` are single-producer (the render or sender
    // thread that runs the player) single-consumer (the sender thread); everything else is set
    // up by the control thread before `start` and used by the sender thread until `finish`.

    /// One thing for the sender thread: a channel or system message, a sysex (its bytes follow
    /// in `sysexBytes`), a transport jump at `time` (what was queued from then on taken back and
    /// the channels reset), or a flush (taken back only: a clock's port).
    struct Item {
        enum Kind: UInt8 { case message, sysex, jump, flush }
        var kind: Kind
        var target: UInt8
        var status: UInt8, data1: UInt8, data2: UInt8
        var length: Int32
        var time: SampleTime
    }

    private let client: SequencerClient
    private var sampleRate: Int
    private let sourcePort: Int32
    private let queue: Int32
    /// Whether the kernel times the events with its high-resolution timer (snd-hrtimer); if
    /// not, with the system tick (a jiffy, 1–10 ms). Any thread.
    public let isPrecise: Bool
    private var links: [PortLink] = []          // per target (a port, or the subscribers of Pianola's own): where it is now
    private var watcher: PortWatcher?
    private let items = SPSCQueue<Item>(capacity: 1 << 15)
    private let sysexBytes = SPSCQueue<UInt8>(capacity: 1 << 18)
    private let sender = StoppableThread()
    private let sentCount = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)
    private var clock: (any RenderScheduler)?
    private var audio: (any AudioOutput)?
    private var queueStart: Int64 = 0
    private var windowFrames: Int64
    private let offset = Atomic<Int64>(0)
    private var lineFreeAt: [Int64] = []
    private var latency: [Int64] = []            // per target: nanoseconds its events go out early (negative: late)
    private var sysexScratch: [UInt8] = []
    private var coder: OpaquePointer?

    /// A sender from Pianola's port `portName` on `client`, for a player at `sampleRate`;
    /// events are handed to the kernel `window` seconds ahead of when they sound. Control thread.
    public init(client: SequencerClient, sampleRate: Int, portName: String = "Pianola out", window: Double = 0.05) throws(SequencerError) {
        self.client = client
        self.sampleRate = sampleRate
        windowFrames = Int64(window * Double(sampleRate))
        sourcePort = Int32(try client.makePort(name: portName, sending: true))
        (queue, isPrecise) = try client.makeQueue()
        snd_seq_set_client_pool_output(client.handle, 2000)
        snd_seq_set_output_buffer_size(client.handle, 1 << 16)
        snd_midi_event_new(1 << 16, &coder)
    }

    deinit {
        finish()
        snd_seq_free_queue(client.handle, queue)
        snd_midi_event_free(coder)
    }

    /// A destination for the player that sends to `port` (Pianola's port is connected to
    /// it), or to whoever subscribes to Pianola's port when `port` is nil (a virtual port).
    /// Control thread, before `start`.
    public func destination(to port: SequencerPort?) throws(SequencerError) -> MIDIDestination {
        PortDestination(output: self, target: try self.target(port), resetsChannels: true)
    }

    /// A destination for a player's MIDI clock or timecode to `port`: like `destination(to:)`,
    /// but a transport jump resets no channels there. Control thread, before `start`.
    public func syncDestination(to port: SequencerPort) throws(SequencerError) -> MIDIDestination {
        PortDestination(output: self, target: try target(port), resetsChannels: false)
    }

    /// The index of `port`'s target (nil: the subscribers), connecting to it the first time.
    private func target(_ port: SequencerPort?) throws(SequencerError) -> UInt8 {
        if let index = links.firstIndex(where: { $0.first == port.map(PortLink.address) }) { return UInt8(index) }
        if let port { try client.connect(port: Int(sourcePort), to: port) }
        links.append(PortLink(port))
        lineFreeAt.append(0)
        latency.append(0)
        return UInt8(links.count - 1)
    }

    /// Sends what goes to `port` `seconds` early (late when negative), for a device that
    /// sounds that much after the others (or before): its events still line up with the
    /// audio and the other ports. `port` must be one of the destinations. Control thread, before `start`.
    public func setLatency(seconds: Double, for port: SequencerPort) {
        guard let index = links.firstIndex(where: { $0.first == PortLink.address(port) }) else { return }
        latency[index] = Int64((seconds * 1e9).rounded())
    }

    /// Nanoseconds the earliest port goes out before the player's time (0 when none is early).
    private var maxLead: Int64 { max(0, latency.max() ?? 0) }

    /// Starts the queue and the sender thread, which runs `clock` (the player) in real time:
    /// MIDI only, nothing pulled by audio. Control thread.
    public func start(driving clock: any RenderScheduler) {
        self.clock = clock
        // The queue starts first (starting it takes back what this client queued on it before,
        // as the kernel does), and frame 0 comes a lead after its start, so the first window
        // reaches the kernel before any of it is due.
        startQueue()
        windowFrames += maxLead * Int64(sampleRate) / 1_000_000_000   // an early port needs its events that much sooner
        offset.store(Self.drivingLead + maxLead, ordering: .relaxed)
        clock.willRender(from: 0, frames: Int(windowFrames))
        rendered = windowFrames
        while let item = items.pop() { send(item) }
        snd_seq_drain_output(client.handle)
        startSender()
    }

    /// Nanoseconds of queue time before the player's frame 0 when the sender drives it.
    private static let drivingLead: Int64 = 20_000_000

    /// Starts the queue and the sender thread for a player that `audio` pulls: each event is
    /// stamped for the moment its frame leaves the audio device, so gear and synth sound
    /// together. Control thread.
    public func start(following audio: any AudioOutput) {
        self.audio = audio
        sampleRate = audio.format.sampleRate
        startQueue()
        startSender()
    }

    private func startQueue() {
        client.control(queue: queue, start: true)
        queueStart = monotonicNanos()
    }

    private func startSender() {
        // Normal priority: it works 50 ms ahead, and a real-time thread here would hold off
        // the kernel's own deferred work (the timer that fires the queue) on a busy machine.
        sender.start { self.run() }
    }

    /// Stops the sender after it has handed over everything the player scheduled, then waits
    /// until the kernel has delivered it (at most `timeout` seconds). Control thread.
    public func finish(timeout: Double = 10) {
        watcher?.stop()
        guard sender.stop() else { return }
        let deadline = monotonicNanos() + Int64(timeout * 1e9)
        // The kernel moves the queue's time on before it dispatches what is due then: the
        // time alone can pass the last event while it still waits (and closing the client
        // would drop it), so the queue must also be empty.
        while monotonicNanos() < deadline {
            let (now, waiting) = client.status(of: queue)
            if now >= lastStamp && waiting == 0 { break }
            usleep(2_000)
        }
        client.control(queue: queue, start: false)
    }

    /// Pianola's own port that the events come from (the one others subscribe to). Any thread.
    public var sourcePortNumber: Int { Int(sourcePort) }

    /// The kernel queue the events are timed on; a `SequencerInput` may share it. Any thread.
    public var queueID: Int32 { queue }

    /// Seconds of the player's clock (its frame 0 is 0) at `nanoseconds` of queue time. Any thread.
    public func playerSeconds(atQueueTime nanoseconds: Int64) -> Double {
        Double(nanoseconds - offset.load(ordering: .relaxed)) / 1e9
    }

    /// Events handed to the kernel so far. Any thread.
    public var sent: Int { sentCount.load(ordering: .relaxed) }
    /// Events lost because the player outran the sender (0 unless something is badly wrong). Any thread.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    // MARK: The producer side (render thread, or the sender thread when it drives the clock)

    fileprivate func push(_ item: Item) {
        if !items.push(item) { droppedCount.add(1, ordering: .relaxed) }
    }

    fileprivate func pushSysex(_ data: UnsafeBufferPointer<UInt8>, target: UInt8, at time: SampleTime) {
        for i in 0..<data.count where !sysexBytes.push(data[i]) {
            // The bytes already pushed are read and thrown away by the sender.
            push(Item(kind: .sysex, target: target, status: 0, data1: 0, data2: 0, length: -Int32(i), time: time))
            return
        }
        push(Item(kind: .sysex, target: target, status: 0xF0, data1: 0, data2: 0, length: Int32(data.count), time: time))
    }

    // MARK: The sender thread

    private var lastStamp: Int64 = 0
    private var batchEarliest: Int64 = .max
    private let lateCount = Atomic<Int>(0)
    private let worstLate = Atomic<Int64>(0)

    /// Batches of events that reached the kernel after their time (the sender was held up),
    /// and the worst lateness in seconds. Any thread.
    public var lateness: (batches: Int, worstSeconds: Double) {
        (lateCount.load(ordering: .relaxed), Double(worstLate.load(ordering: .relaxed)) / 1e9)
    }

    private var rendered: SampleTime = 0

    private func run() {
        while true {
            let stopping = sender.isStopping
            if let audio {
                // Hold the events until the device runs and says when its frame 0 sounded.
                guard let zero = audio.frameZeroNanos else {
                    if stopping { return }
                    usleep(2_000)
                    continue
                }
                offset.store(zero - queueStart, ordering: .relaxed)
            }
            if let clock {
                let now = (monotonicNanos() - queueStart - offset.load(ordering: .relaxed)) * Int64(sampleRate) / 1_000_000_000
                let target = now + windowFrames
                if target > rendered {
                    clock.willRender(from: rendered, frames: Int(target - rendered))
                    rendered = target
                }
            }
            resetReconnected()
            batchEarliest = .max
            while let item = items.pop() { send(item) }
            snd_seq_drain_output(client.handle)
            if batchEarliest != .max {
                // How far ahead of its time the batch reached the kernel; behind means late.
                let late = client.now(queue: queue) - batchEarliest
                if late > 0 {
                    lateCount.add(1, ordering: .relaxed)
                    if late > worstLate.load(ordering: .relaxed) { worstLate.store(late, ordering: .relaxed) }
                }
            }
            if stopping { return }
            usleep(2_000)
        }
    }

    private func stamp(_ time: SampleTime, target: UInt8) -> Int64 {
        max(0, offset.load(ordering: .relaxed) + time * 1_000_000_000 / Int64(sampleRate) - latency[Int(target)])
    }

    private func send(_ item: Item) {
        let at = stamp(item.time, target: item.target)
        switch item.kind {
        case .flush:
            removeQueued(from: at, target: item.target)
        case .jump:
            removeQueued(from: at, target: item.target)
            for channel in 0..<16 {
                output([0xB0 | UInt8(channel), 123, 0], target: item.target, at: at)
                output([0xB0 | UInt8(channel), 121, 0], target: item.target, at: at)
            }
        case .message:
            let bytes = [item.status, item.data1, item.data2]
            output(Array(bytes.prefix(1 + MIDIMessage.dataLength(afterStatus: item.status))), target: item.target, at: at)
        case .sysex:
            let count = Int(abs(item.length))
            sysexScratch.removeAll(keepingCapacity: true)
            sysexScratch.append(0xF0)
            for _ in 0..<count { sysexScratch.append(sysexBytes.pop() ?? 0xF7) }
            guard item.length > 0 else { droppedCount.add(1, ordering: .relaxed); return }
            sysexScratch.append(0xF7)
            // A real MIDI line carries 3,125 bytes a second: a large dump holds the line, and
            // the next sysex waits until it has gone out. Short ones are not spaced.
            let target = Int(item.target)
            let start = max(at, lineFreeAt[target])
            if sysexScratch.count >= 128 { lineFreeAt[target] = start + Int64(sysexScratch.count) * 320_000 }
            output(sysexScratch, target: item.target, at: start)
        }
    }

    /// Encodes one whole message and queues it for the kernel at `at` nanoseconds of queue time.
    private func output(_ bytes: [UInt8], target: UInt8, at: Int64) {
        guard links[Int(target)].present.load(ordering: .acquiring) else { return }   // unplugged: nothing to send to
        var event = snd_seq_event_t()
        snd_midi_event_reset_encode(coder)
        let used = bytes.withUnsafeBufferPointer { snd_midi_event_encode(coder, $0.baseAddress, $0.count, &event) }
        guard used == bytes.count, event.type != UInt8(SND_SEQ_EVENT_NONE.rawValue) else { droppedCount.add(1, ordering: .relaxed); return }
        event.source.port = UInt8(sourcePort)
        event.dest = address(of: target)
        event.queue = UInt8(queue)
        event.flags = (event.flags & ~UInt8(SND_SEQ_TIME_STAMP_MASK | SND_SEQ_TIME_MODE_MASK)) | UInt8(SND_SEQ_TIME_STAMP_REAL | SND_SEQ_TIME_MODE_ABS)
        event.time.time.tv_sec = UInt32(at / 1_000_000_000)
        event.time.time.tv_nsec = UInt32(at % 1_000_000_000)
        lastStamp = max(lastStamp, at)
        batchEarliest = min(batchEarliest, at)
        if snd_seq_event_output(client.handle, &event) >= 0 { sentCount.add(1, ordering: .relaxed) }
    }

    /// Watches for the ports this output sends to vanishing (a USB device unplugged) and
    /// coming back (found by their client and port names, at whatever address): events for
    /// an absent port are dropped; a port that comes back is connected again and, after a
    /// quarter of a second to settle (a device just plugged in may drop what comes at once),
    /// gets All Notes Off and the sustain pedal up on every channel, so nothing sounding there
    /// before hangs, then the song again. `report` gets one line each way, on the watcher's
    /// thread. Control thread, after the destinations are made.
    public func watchPorts(report: @escaping @Sendable (String) -> Void) throws(SequencerError) {
        let links = self.links, client = self.client, sourcePort = Int(self.sourcePort)
        watcher = try PortWatcher { change in
            for link in links {
                guard let wanted = link.wanted else { continue }
                switch change {
                case .vanished(let c, let p):
                    let address = link.address.load(ordering: .acquiring)
                    guard link.present.load(ordering: .acquiring), address >> 8 == c, p == nil || address & 0xFF == p! else { continue }
                    link.present.store(false, ordering: .releasing)
                    report("MIDI port \(c):\(address & 0xFF) (\(wanted.clientName): \(wanted.name)) went away; waiting for it to come back")
                case .appeared(let port):
                    guard !link.present.load(ordering: .acquiring), port.clientName == wanted.clientName, port.name == wanted.name,
                          port.acceptsEvents, (try? client.connect(port: sourcePort, to: port)) != nil else { continue }
                    link.address.store(PortLink.address(port), ordering: .releasing)
                    link.returnsAt.store(monotonicNanos() + 250_000_000, ordering: .releasing)
                    report("MIDI port \(wanted.clientName): \(wanted.name) is back at \(port.address); All Notes Off goes there first")
                }
            }
        }
    }

    /// Each port that came back and has settled is there again: All Notes Off and sustain up
    /// on every channel go to it now. Sender thread.
    private func resetReconnected() {
        for target in links.indices {
            let due = links[target].returnsAt.load(ordering: .acquiring)
            guard due != 0, monotonicNanos() >= due else { continue }
            links[target].returnsAt.store(0, ordering: .relaxed)
            links[target].present.store(true, ordering: .releasing)
            let now = client.now(queue: queue)
            for channel in 0..<16 {
                output([0xB0 | UInt8(channel), 123, 0], target: UInt8(target), at: now)
                output([0xB0 | UInt8(channel), 64, 0], target: UInt8(target), at: now)
            }
        }
    }

    /// The address events for `target` are sent to.
    private func address(of target: UInt8) -> snd_seq_addr_t {
        let link = links[Int(target)]
        guard link.first != nil else { return snd_seq_addr_t(client: UInt8(SND_SEQ_ADDRESS_SUBSCRIBERS), port: UInt8(SND_SEQ_ADDRESS_UNKNOWN)) }
        let address = link.address.load(ordering: .acquiring)
        return snd_seq_addr_t(client: UInt8(address >> 8), port: UInt8(address & 0xFF))
    }

    /// Takes back every event of ours for `target` still waiting in the kernel at or after
    /// `at` (the other targets' may be stamped early or late of the same moment).
    private func removeQueued(from at: Int64, target: UInt8) {
        snd_seq_drain_output(client.handle)
        var remove: OpaquePointer?
        snd_seq_remove_events_malloc(&remove)
        defer { snd_seq_remove_events_free(remove) }
        snd_seq_remove_events_set_condition(remove, UInt32(SND_SEQ_REMOVE_OUTPUT | SND_SEQ_REMOVE_TIME_AFTER | SND_SEQ_REMOVE_DEST))
        var dest = address(of: target)
        snd_seq_remove_events_set_dest(remove, &dest)
        snd_seq_remove_events_set_queue(remove, queue)
        var time = snd_seq_timestamp_t()
        time.time.tv_sec = UInt32(at / 1_000_000_000)
        time.time.tv_nsec = UInt32(at % 1_000_000_000)
        snd_seq_remove_events_set_time(remove, &time)
        snd_seq_remove_events(client.handle, remove)
    }
}

/// Where one of a `SequencerOutput`'s targets is now — a port, or the subscribers of Pianola's
/// own port (`--virtual`): its address (client << 8 | port), whether it is there, and when
/// one that came back is there again (monotonic nanoseconds, 0 for none). Written by the port
/// watcher's thread and the sender thread.
final class PortLink: Sendable {
    /// The port's address when it was named (`nil` for the subscribers).
    let first: Int?
    /// The port's client and port names, by which it is found again (`nil` for the subscribers).
    let wanted: (clientName: String, name: String)?
    let address: Atomic<Int>
    let present = Atomic<Bool>(true)
    let returnsAt = Atomic<Int64>(0)

    init(_ port: SequencerPort?) {
        first = port.map(Self.address)
        wanted = port.map { ($0.clientName, $0.name) }
        address = Atomic(first ?? 0)
    }

    /// A port's address as one number: client << 8 | port.
    static func address(_ port: SequencerPort) -> Int { port.client << 8 | port.port }
}

/// The player's side of a `SequencerOutput`: one target port. Render thread only (the thread
/// that runs the player).
final class PortDestination: MIDIDestination, @unchecked Sendable {
    // @unchecked Sendable: only the player's thread calls it; it only pushes into the
    // output's lock-free queues.
    private let output: SequencerOutput
    private let target: UInt8
    private let resetsChannels: Bool

    init(output: SequencerOutput, target: UInt8, resetsChannels: Bool) {
        self.output = output
        self.target = target
        self.resetsChannels = resetsChannels
    }

    func schedule(_ event: ScheduledMIDI) {
        output.push(.init(kind: .message, target: target, status: event.status, data1: event.data1, data2: event.data2, length: 0, time: event.time))
    }

    func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) {
        output.pushSysex(data, target: target, at: time)
    }

    func flushScheduled(from time: SampleTime) {
        // The player's note-offs follow at `time`; the sender first takes back what was
        // queued from then on and resets the channels.
        output.push(.init(kind: resetsChannels ? .jump : .flush, target: target, status: 0, data1: 0, data2: 0, length: 0, time: time))
    }

    var schedulingLookahead: Int { 0 }
}

/// CLOCK_MONOTONIC now, in nanoseconds. Any thread.
public func monotonicNanos() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}
