/// The MIDI a synthesizer node has been given and not yet played, in time order: a fixed ring
/// of channel messages and an arena for sysex bytes, so scheduling never allocates. Made on the
/// control thread; everything else render thread only.
package final class MIDISchedule {
    /// A scheduled message: a channel message, or sysex (status F0) whose bytes `sysex(of:)` gives.
    package struct Event {
        /// When it should sound. Render thread only.
        package var time: SampleTime
        /// Status byte (8n...En), or F0 for sysex. Render thread only.
        package var status: UInt8
        /// First data byte. Render thread only.
        package var data1: UInt8
        /// Second data byte. Render thread only.
        package var data2: UInt8
        fileprivate var sysexOffset: Int32, sysexLength: Int32
    }

    private let events: UnsafeMutablePointer<Event>
    private let capacity: Int
    private var head = 0
    /// Events waiting. Render thread only.
    package private(set) var count = 0
    private let arena: UnsafeMutablePointer<UInt8>
    private let arenaCapacity: Int
    private var arenaTail = 0
    /// Events dropped because the schedule was full (should stay 0). Render thread only.
    package private(set) var droppedEvents = 0

    /// Room for `capacity` events and `sysexCapacity` bytes of sysex. Control thread.
    package init(capacity: Int = 16_384, sysexCapacity: Int = 1 << 16) {
        self.capacity = capacity
        events = .allocate(capacity: capacity)
        arenaCapacity = sysexCapacity
        arena = .allocate(capacity: sysexCapacity)
    }

    deinit {
        events.deallocate()
        arena.deallocate()
    }

    /// The earliest waiting event, if any. Render thread only.
    @inline(__always) package var first: Event? { count > 0 ? events[head] : nil }

    /// Removes the earliest waiting event. Render thread only.
    @inline(__always) package func removeFirst() {
        guard count > 0 else { return }
        head = (head + 1) % capacity
        count -= 1
        if count == 0 { arenaTail = 0 }
    }

    /// Adds a channel message. Render thread only.
    @inline(__always) package func add(_ event: ScheduledMIDI) {
        append(Event(time: event.time, status: event.status, data1: event.data1, data2: event.data2, sysexOffset: 0, sysexLength: 0))
    }

    /// Adds a sysex message (bytes without the F0/F7 framing), copying its bytes. Render thread only.
    package func addSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) {
        guard !data.isEmpty, data.count <= arenaCapacity else { droppedEvents += 1; return }
        if arenaTail + data.count > arenaCapacity {
            guard !sysexIsWaiting else { droppedEvents += 1; return }
            arenaTail = 0
        }
        (arena + arenaTail).update(from: data.baseAddress!, count: data.count)
        append(Event(time: time, status: 0xF0, data1: 0, data2: 0, sysexOffset: Int32(arenaTail), sysexLength: Int32(data.count)))
        arenaTail += data.count
    }

    /// The bytes of a sysex event, valid until it is removed. Render thread only.
    @inline(__always) package func sysex(of event: Event) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: arena + Int(event.sysexOffset), count: Int(event.sysexLength))
    }

    /// Drops every waiting event (all at or after `time`) but the note-offs, which move to
    /// `time`: another player sharing the node may have scheduled them, and dropping them would
    /// leave its notes hanging. Render thread only.
    package func flush(from time: SampleTime) {
        var kept = 0
        for i in 0..<count {
            var event = events[(head + i) % capacity]
            let kind = event.status & 0xF0
            guard kind == 0x80 || (kind == 0x90 && event.data2 == 0) else { continue }
            event.time = time
            events[(head + kept) % capacity] = event   // kept ≤ i: never past what is still to read
            kept += 1
        }
        count = kept
        arenaTail = 0
    }

    /// Whether any waiting event still points into the sysex arena.
    private var sysexIsWaiting: Bool {
        for i in 0..<count where events[(head + i) % capacity].status == 0xF0 { return true }
        return false
    }

    @inline(__always) private func append(_ event: Event) {
        guard count < capacity else { droppedEvents += 1; return }
        events[(head + count) % capacity] = event
        count += 1
    }
}
