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

    /// One thing for the sender thread: a channel message, a sysex (its bytes follow in
    /// `sysexBytes`), or a transport jump at `time`.
    struct Item {
        enum Kind: UInt8 { case message, sysex, jump }
        var kind: Kind
        var target: UInt8
        var status: UInt8, data1: UInt8, data2: UInt8
        var length: Int32
        var time: SampleTime
    }

    /// Where events go: a port, or the subscribers of Pianola's own port (`--virtual`).
    enum Target: Hashable {
        case port(client: UInt8, port: UInt8)
        case subscribers
    }

    private let client: SequencerClient
    private var sampleRate: Int
    private let sourcePort: Int32
    private let queue: Int32
    /// Whether the kernel times the events with its high-resolution timer (snd-hrtimer); if
    /// not, with the system tick (a jiffy, 1–10 ms). Any thread.
    public let isPrecise: Bool
    private var targets: [Target] = []
    private let items = SPSCQueue<Item>(capacity: 1 << 15)
    private let sysexBytes = SPSCQueue<UInt8>(capacity: 1 << 18)
    private let stopRequested = Atomic<Bool>(false)
    private let sentCount = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)
    private var thread: pthread_t?
    private var clock: (any RenderScheduler)?
    private var audio: (any AudioOutput)?
    private var queueStart: Int64 = 0
    private var windowFrames: Int64
    private let offset = Atomic<Int64>(0)
    private var lineFreeAt: [Int64] = []
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
        if let port { try client.connect(port: Int(sourcePort), to: port) }
        let target: Target = port.map { .port(client: UInt8($0.client), port: UInt8($0.port)) } ?? .subscribers
        if let index = targets.firstIndex(of: target) { return PortDestination(output: self, target: UInt8(index)) }
        targets.append(target)
        lineFreeAt.append(0)
        return PortDestination(output: self, target: UInt8(targets.count - 1))
    }

    /// Starts the queue and the sender thread, which runs `clock` (the player) in real time:
    /// MIDI only, nothing pulled by audio. Control thread.
    public func start(driving clock: any RenderScheduler) {
        self.clock = clock
        // The first window goes to the kernel before the queue starts, so nothing is late.
        clock.willRender(from: 0, frames: Int(windowFrames))
        rendered = windowFrames
        while let item = items.pop() { send(item) }
        snd_seq_drain_output(client.handle)
        startSender()
    }

    /// Starts the queue and the sender thread for a player that `audio` pulls: each event is
    /// stamped for the moment its frame leaves the audio device, so gear and synth sound
    /// together. Control thread.
    public func start(following audio: any AudioOutput) {
        self.audio = audio
        sampleRate = audio.format.sampleRate
        startSender()
    }

    private func startSender() {
        client.control(queue: queue, start: true)
        queueStart = monotonicNanos()
        // Normal priority: it works 50 ms ahead, and a real-time thread here would hold off
        // the kernel's own deferred work (the timer that fires the queue) on a busy machine.
        let (thread, _) = startThread(realTimePriority: nil) { self.run() }
        self.thread = thread
    }

    /// Stops the sender after it has handed over everything the player scheduled, then waits
    /// until the kernel has delivered it (at most `timeout` seconds). Control thread.
    public func finish(timeout: Double = 10) {
        guard let thread else { return }
        self.thread = nil
        stopRequested.store(true, ordering: .releasing)
        pthread_join(thread, nil)
        let deadline = monotonicNanos() + Int64(timeout * 1e9)
        while monotonicNanos() < deadline && client.now(queue: queue) < lastStamp { usleep(2_000) }
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
            let stopping = stopRequested.load(ordering: .acquiring)
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
                let now = (monotonicNanos() - queueStart) * Int64(sampleRate) / 1_000_000_000
                let target = now + windowFrames
                if target > rendered {
                    clock.willRender(from: rendered, frames: Int(target - rendered))
                    rendered = target
                }
            }
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

    private func stamp(_ time: SampleTime) -> Int64 {
        max(0, offset.load(ordering: .relaxed) + time * 1_000_000_000 / Int64(sampleRate))
    }

    private func send(_ item: Item) {
        let at = stamp(item.time)
        switch item.kind {
        case .jump:
            removeQueued(from: at)
            for channel in 0..<16 {
                output([0xB0 | UInt8(channel), 123, 0], target: item.target, at: at)
                output([0xB0 | UInt8(channel), 121, 0], target: item.target, at: at)
            }
        case .message:
            let bytes = [item.status, item.data1, item.data2]
            output(Array(bytes.prefix(1 + MIDIMessage.channelDataLength(item.status))), target: item.target, at: at)
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
        var event = snd_seq_event_t()
        snd_midi_event_reset_encode(coder)
        let used = bytes.withUnsafeBufferPointer { snd_midi_event_encode(coder, $0.baseAddress, $0.count, &event) }
        guard used == bytes.count, event.type != UInt8(SND_SEQ_EVENT_NONE.rawValue) else { droppedCount.add(1, ordering: .relaxed); return }
        event.source.port = UInt8(sourcePort)
        switch targets[Int(target)] {
        case .port(let c, let p):
            event.dest.client = c
            event.dest.port = p
        case .subscribers:
            event.dest.client = UInt8(SND_SEQ_ADDRESS_SUBSCRIBERS)
            event.dest.port = UInt8(SND_SEQ_ADDRESS_UNKNOWN)
        }
        event.queue = UInt8(queue)
        event.flags = (event.flags & ~UInt8(SND_SEQ_TIME_STAMP_MASK | SND_SEQ_TIME_MODE_MASK)) | UInt8(SND_SEQ_TIME_STAMP_REAL | SND_SEQ_TIME_MODE_ABS)
        event.time.time.tv_sec = UInt32(at / 1_000_000_000)
        event.time.time.tv_nsec = UInt32(at % 1_000_000_000)
        lastStamp = max(lastStamp, at)
        batchEarliest = min(batchEarliest, at)
        if snd_seq_event_output(client.handle, &event) >= 0 { sentCount.add(1, ordering: .relaxed) }
    }

    /// Takes back every event of ours still waiting in the kernel at or after `at`.
    private func removeQueued(from at: Int64) {
        snd_seq_drain_output(client.handle)
        var remove: OpaquePointer?
        snd_seq_remove_events_malloc(&remove)
        defer { snd_seq_remove_events_free(remove) }
        snd_seq_remove_events_set_condition(remove, UInt32(SND_SEQ_REMOVE_OUTPUT | SND_SEQ_REMOVE_TIME_AFTER))
        snd_seq_remove_events_set_queue(remove, queue)
        var time = snd_seq_timestamp_t()
        time.time.tv_sec = UInt32(at / 1_000_000_000)
        time.time.tv_nsec = UInt32(at % 1_000_000_000)
        snd_seq_remove_events_set_time(remove, &time)
        snd_seq_remove_events(client.handle, remove)
    }
}

/// The player's side of a `SequencerOutput`: one target port. Render thread only (the thread
/// that runs the player).
final class PortDestination: MIDIDestination, @unchecked Sendable {
    // @unchecked Sendable: only the player's thread calls it; it only pushes into the
    // output's lock-free queues.
    private let output: SequencerOutput
    private let target: UInt8

    init(output: SequencerOutput, target: UInt8) {
        self.output = output
        self.target = target
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
        output.push(.init(kind: .jump, target: target, status: 0, data1: 0, data2: 0, length: 0, time: time))
    }

    var schedulingLookahead: Int { 0 }
}

/// CLOCK_MONOTONIC now, in nanoseconds. Any thread.
public func monotonicNanos() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}
