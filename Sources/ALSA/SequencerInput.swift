import CALSA
import Engine
import MIDI
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Records what a sequencer port sends: Pianola's input port is subscribed to the source with
/// the kernel stamping each event with a queue's real time on arrival, and a reader thread
/// decodes them to MIDI messages (sysex reassembled from its chunks). arecordmidi's core.
/// Control thread, except as noted.
public final class SequencerInput: @unchecked Sendable {
    // @unchecked Sendable: the reader thread owns the decoder and the partial sysex; the
    // recorded events cross to the control thread under `recorded`'s lock (not a real-time path).

    /// One recorded message and when it arrived, in nanoseconds of queue time. Any thread.
    public struct Arrival: Hashable, Sendable {
        /// Queue time of arrival, in nanoseconds. Any thread.
        public var nanoseconds: Int64
        /// The message. Any thread.
        public var message: MIDIMessage
    }

    private let client: SequencerClient
    private let port: Int32
    private let queue: Int32
    private let recorded = Mutex<[Arrival]>([])
    private let reader = StoppableThread()
    private var thru: ((MIDIMessage) -> Void)?
    private var system: ((_ status: UInt8, _ data1: UInt8, _ data2: UInt8, _ nanoseconds: Int64) -> Void)?
    private var recording = true
    private var decoder: OpaquePointer?
    private var sysex: [UInt8] = []
    private var sysexStart: Int64 = 0
    private let broken = Atomic<Int>(0)
    private let wholeSysex = Atomic<Int>(0)

    /// Pianola's input port `portName`, stamping on `queue` (one of the client's queues, e.g.
    /// a `SequencerOutput`'s, so recording and playing share a clock) or a queue of its own. Control thread.
    public init(client: SequencerClient, portName: String = "Pianola in", queue: Int32? = nil) throws(SequencerError) {
        self.client = client
        port = Int32(try client.makePort(name: portName, sending: false))
        if let queue { self.queue = queue } else { self.queue = try client.makeQueue().queue }
        snd_midi_event_new(256, &decoder)
        snd_midi_event_no_status(decoder, 1)
    }

    deinit {
        _ = stop()
        snd_midi_event_free(decoder)
    }

    /// Subscribes Pianola's port to what `source` sends, time-stamped by the queue. Control thread.
    public func listen(to source: SequencerPort) throws(SequencerError) {
        try client.subscribe(from: (source.client, source.port), to: (client.clientID, Int(port)), stampingOn: queue,
                             what: "MIDI port \(source.address): cannot record from it")
    }

    /// Starts the reader thread; with `startQueue`, also the queue (leave it to the
    /// `SequencerOutput` that shares it). `thru` is called on the reader thread with each
    /// channel message as it arrives (to play it on the synth), `system` with each clock,
    /// transport, song position or timecode message and its queue time (to follow a clock).
    /// Without `recording`, nothing is kept for `stop`. Control thread.
    public func start(startQueue: Bool, recording: Bool = true, thru: ((MIDIMessage) -> Void)? = nil,
                      system: ((_ status: UInt8, _ data1: UInt8, _ data2: UInt8, _ nanoseconds: Int64) -> Void)? = nil) {
        self.thru = thru
        self.system = system
        self.recording = recording
        if startQueue { client.control(queue: queue, start: true) }
        reader.start { self.client.readEvents(until: self.reader, checkingEvery: 20) { self.take($0) } }
    }

    /// Whole system-exclusive messages received so far. Any thread.
    public var sysexCount: Int { wholeSysex.load(ordering: .relaxed) }

    /// System-exclusive messages that arrived cut off (a status byte before their F7) and
    /// were left out. Any thread.
    public var brokenSysex: Int { broken.load(ordering: .relaxed) }

    /// Stops reading and returns everything recorded, in arrival order. Control thread.
    public func stop() -> [Arrival] {
        reader.stop()
        return recorded.withLock { $0 }
    }

    private func take(_ event: snd_seq_event_t) {
        var copy = event
        let at = Int64(event.time.time.tv_sec) * 1_000_000_000 + Int64(event.time.time.tv_nsec)
        if event.type == UInt8(SND_SEQ_EVENT_SYSEX.rawValue) {
            let chunk = UnsafeRawBufferPointer(start: event.data.ext.ptr, count: Int(event.data.ext.len))
            for byte in chunk {
                if byte >= 0xF8 {
                    continue   // a real-time byte may come between a message's bytes on a cable; it is not one of them
                } else if byte == 0xF0 || (byte >= 0x80 && byte != 0xF7 && !sysex.isEmpty) {
                    if !sysex.isEmpty { broken.add(1, ordering: .relaxed) }   // cut off by a status byte before its F7
                    sysex = byte == 0xF0 ? [0xF0] : []
                    sysexStart = at
                } else if !sysex.isEmpty {
                    sysex.append(byte)
                    if byte == 0xF7 {
                        let message = MIDIMessage.sysex(Array(sysex.dropFirst()))
                        if recording { recorded.withLock { $0.append(Arrival(nanoseconds: sysexStart, message: message)) } }
                        wholeSysex.add(1, ordering: .relaxed)
                        sysex = []
                    }
                }
            }
            return
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        snd_midi_event_reset_decode(decoder)
        let count = Int(snd_midi_event_decode(decoder, &bytes, bytes.count, &copy))
        // 14-bit controllers and (N)RPNs decode to several messages.
        var start = 0
        while start < count {
            let status = bytes[start]
            let length = 1 + MIDIMessage.dataLength(afterStatus: status)
            guard start + length <= count else { return }
            let wire = Array(bytes[start..<start + length])
            if status >= 0xF0 {
                // Clock, transport, song position, timecode: recorded, never played.
                if recording { recorded.withLock { $0.append(Arrival(nanoseconds: at, message: .system(status: status, data: Array(wire.dropFirst())))) } }
                system?(status, length > 1 ? wire[1] : 0, length > 2 ? wire[2] : 0, at)
            } else {
                guard let message = MIDIMessage(channelBytes: wire) else { return }
                if recording { recorded.withLock { $0.append(Arrival(nanoseconds: at, message: message)) } }
                thru?(message)
            }
            start += length
        }
    }
}
