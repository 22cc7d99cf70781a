import MIDI

/// A track of a sequence: events at absolute ticks, kept in time order (events at the same
/// tick keep the order they were added in), and a length. Core Audio's MusicTrack. Any thread
/// (a value: each thread edits its own copy).
public struct MusicTrack: Hashable, Sendable {
    /// The track's name (from its track-name event when loaded from a file). Any thread.
    public var name: String?
    /// The events, ticks ascending. End of Track is not an event here: see `length`. Any thread.
    public private(set) var events: [MIDIEvent]
    /// Where the track ends in ticks: at least its last event; loaded from End of Track. Any thread.
    public var length: Int

    /// Makes a track; events are put in time order (stable). Any thread.
    public init(name: String? = nil, events: [MIDIEvent] = [], length: Int = 0) {
        self.name = name
        let isEnd = { (event: MIDIEvent) in event.message == .meta(.endOfTrack) }
        // The array given is kept (not copied) when it has no end-of-track event.
        self.events = (events.contains(where: isEnd) ? events.filter { !isEnd($0) } : events).timeOrdered()
        self.length = max(length, self.events.last?.tick ?? 0)
    }

    /// Adds an event after any others at the same tick, extending the length if needed. Any thread.
    public mutating func insert(_ event: MIDIEvent) {
        precondition(event.message != .meta(.endOfTrack), "a track's end is its length, not an event")
        let index = insertionIndex(forTick: event.tick)
        events.insert(event, at: index)
        length = max(length, event.tick)
    }

    /// Removes the events that match `predicate`; the length stays. Any thread.
    public mutating func removeAll(where predicate: (MIDIEvent) throws -> Bool) rethrows {
        try events.removeAll(where: predicate)
    }

    /// Removes and returns the event at `index`. Any thread.
    @discardableResult
    public mutating func remove(at index: Int) -> MIDIEvent { events.remove(at: index) }

    /// Replaces the event at `index`, moving it if its tick changed. Any thread.
    public mutating func replace(at index: Int, with event: MIDIEvent) {
        events.remove(at: index)
        insert(event)
    }

    /// Moves every event by `ticks` (events that would fall before 0 land at 0). Any thread.
    public mutating func shift(by ticks: Int) {
        events = events.map { MIDIEvent(tick: max(0, $0.tick + ticks), $0.message) }
        length = max(0, length + ticks)
    }

    /// The events in `range` of ticks. Any thread.
    public func events(in range: Range<Int>) -> ArraySlice<MIDIEvent> {
        events[insertionIndex(forTick: range.lowerBound - 1) ..< insertionIndex(forTick: range.upperBound - 1)]
    }

    /// Note-ons with velocity above 0. Any thread.
    public var noteCount: Int { events.reduce(0) { $0 + ($1.message.isSoundingNoteOn ? 1 : 0) } }

    /// Channels used by its channel messages, ascending. Any thread.
    public var channels: [MIDIChannel] { MIDIFile.Track(events: events).channels }

    /// The index after the last event at or before `tick`.
    private func insertionIndex(forTick tick: Int) -> Int {
        var low = 0, high = events.count
        while low < high {
            let mid = (low + high) / 2
            if events[mid].tick <= tick { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// A note of a track: its channel, key and velocity, and the ticks its key was pressed and released
/// (`nil` while still held at the track's end). A key pressed again before it was released
/// ends the earlier note there, as the player releases it. Any thread.
public struct NoteSpan: Hashable, Sendable {
    /// Channel, 0-based. Any thread.
    public let channel: Int
    /// Key, 0…127. Any thread.
    public let key: Int
    /// Velocity it was pressed with, 1…127. Any thread.
    public let velocity: Int
    /// The tick it was pressed. Any thread.
    public let start: Int
    /// The tick it was released, `nil` if never. Any thread.
    public let end: Int?
}

extension MusicTrack {
    /// The notes, in the order they were pressed. Any thread.
    public var notes: [NoteSpan] {
        var spans: [NoteSpan] = []
        var pressed: [Int: Int] = [:]                     // channel × 128 + key → index in `spans`
        func release(_ slot: Int, at tick: Int) {
            guard let index = pressed.removeValue(forKey: slot) else { return }
            let span = spans[index]
            spans[index] = NoteSpan(channel: span.channel, key: span.key, velocity: span.velocity, start: span.start, end: tick)
        }
        for event in events {
            switch event.message {
            case .noteOn(let channel, let key, let velocity) where velocity > 0:
                let slot = Int(channel & 15) * 128 + Int(key)
                release(slot, at: event.tick)
                pressed[slot] = spans.count
                spans.append(NoteSpan(channel: Int(channel & 15), key: Int(key), velocity: Int(velocity), start: event.tick, end: nil))
            case .noteOn(let channel, let key, _), .noteOff(let channel, let key, _):
                release(Int(channel & 15) * 128 + Int(key), at: event.tick)
            default:
                break
            }
        }
        return spans
    }
}
