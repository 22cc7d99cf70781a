import MIDI

/// A song to play: a tempo track (tempo, time signature, key signature and SMPTE offset
/// events, which apply to every track) and the music tracks. Core Audio's MusicSequence.
/// Any thread (a value: each thread edits its own copy).
public struct MusicSequence: Hashable, Sendable {
    /// How a MIDI file's tracks become the sequence's tracks. Any thread.
    public enum TrackLayout: Hashable, Sendable {
        /// One track per track chunk of the file, in file order (track `i` is chunk `i`).
        case fileTracks
        /// One track per MIDI channel used, ascending, then one track for the remaining sysex
        /// and meta events if there are any (Core Audio's ChannelsToTracks).
        case channelsToTracks
    }

    /// The file's timing: ticks per quarter or SMPTE. Any thread.
    public var division: Division
    /// Tempo, time-signature, key-signature and SMPTE-offset events. Any thread.
    public var tempoTrack: MusicTrack
    /// The music tracks. Any thread.
    public var tracks: [MusicTrack]

    /// An empty sequence. Any thread.
    public init(division: Division = .ticksPerQuarter(480), tempoTrack: MusicTrack = MusicTrack(), tracks: [MusicTrack] = []) {
        self.division = division
        self.tempoTrack = tempoTrack
        self.tracks = tracks
    }

    /// Makes a sequence from a read MIDI file. Tempo-track events of every track move to the
    /// tempo track. A format 2 file's sequences are laid one after another, each starting at
    /// 120 bpm unless it sets its own tempo, so the song plays them in turn. Any thread.
    public init(file: MIDIFile, layout: TrackLayout = .fileTracks) {
        division = file.division
        var fileTracks = file.tracks
        var conductor: [MIDIEvent] = []
        if file.format == 2 {
            var offset = 0
            for index in fileTracks.indices {
                let startsWithTempo = fileTracks[index].events.contains {
                    $0.tick == 0 && { if case .meta(.tempo) = $0.message { true } else { false } }($0)
                }
                if !startsWithTempo && (offset > 0 || index > 0) {
                    conductor.append(MIDIEvent(tick: offset, .meta(.tempo(
                        microsecondsPerQuarter: UInt32(TempoMap.defaultMicrosecondsPerQuarter)))))
                }
                fileTracks[index].events = fileTracks[index].events.map { MIDIEvent(tick: $0.tick + offset, $0.message) }
                offset = fileTracks[index].endTick
            }
        }
        var musical: [(events: [MIDIEvent], length: Int, name: String?)] = []
        for track in fileTracks {
            var rest: [MIDIEvent] = []
            rest.reserveCapacity(track.events.count)   // the track's own array, at its final size
            for event in track.events where event.message != .meta(.endOfTrack) {
                if MusicSequence.belongsToTempoTrack(event.message) { conductor.append(event) } else { rest.append(event) }
            }
            musical.append((rest, track.endTick, track.name))
        }
        let songEnd = fileTracks.map(\.endTick).max() ?? 0
        tempoTrack = MusicTrack(name: nil, events: conductor, length: songEnd)
        switch layout {
        case .fileTracks:
            tracks = musical.map { MusicTrack(name: $0.name, events: $0.events, length: $0.length) }
        case .channelsToTracks:
            let merged = musical.flatMap(\.events).timeOrdered()
            var byChannel = [[MIDIEvent]](repeating: [], count: 16)
            var other: [MIDIEvent] = []
            for event in merged {
                if let channel = event.message.channel { byChannel[Int(channel)].append(event) } else { other.append(event) }
            }
            tracks = byChannel.enumerated().filter { !$0.element.isEmpty }.map {
                MusicTrack(name: "Channel \($0.offset + 1)", events: $0.element, length: songEnd)
            }
            if !other.isEmpty { tracks.append(MusicTrack(name: nil, events: other, length: songEnd)) }
        }
    }

    /// True for the events that apply to the whole song and so live on the tempo track.
    static func belongsToTempoTrack(_ message: MIDIMessage) -> Bool {
        switch message {
        case .meta(.tempo), .meta(.timeSignature), .meta(.keySignature), .meta(.smpteOffset): return true
        default: return false
        }
    }

    /// The tempo map from the tempo track. Any thread.
    public var tempoMap: TempoMap {
        TempoMap(division: division, tempoChanges: tempoTrack.events.compactMap {
            if case .meta(.tempo(let t)) = $0.message { return ($0.tick, Int(t)) }
            return nil
        })
    }

    /// The bar:beat map from the tempo track's time signatures; `nil` for SMPTE division,
    /// which has no bars. Any thread.
    public var meterMap: MeterMap? {
        guard case .ticksPerQuarter(let tpq) = division else { return nil }
        return MeterMap(ticksPerQuarter: tpq, timeSignatures: tempoTrack.events.compactMap {
            if case .meta(.timeSignature(let s)) = $0.message { return ($0.tick, s) }
            return nil
        })
    }

    /// Every marker meta event's tick and text (Latin-1), the tempo track's first, then each
    /// track's in order. Any thread.
    public var markers: [(tick: Int, text: String)] {
        ([tempoTrack] + tracks).flatMap { track in
            track.events.compactMap { event -> (tick: Int, text: String)? in
                guard case .meta(.text(.marker, let bytes)) = event.message else { return nil }
                return (event.tick, String(latin1: bytes))
            }
        }
    }

    /// The song's end in ticks: the longest track, tempo track included. Any thread.
    public var length: Int { tracks.reduce(tempoTrack.length) { max($0, $1.length) } }

    /// Every track's messages (the tempo track's too), in time order; at one tick, in track
    /// order. Merged from the tracks as it is read, copying nothing: what a synthesizer
    /// preloads presets from. Any thread.
    public var messagesInTimeOrder: LazyMapSequence<TimeOrderedEvents, MIDIMessage> {
        TimeOrderedEvents(tracks: [tempoTrack.events] + tracks.map(\.events)).lazy.map(\.event.message)
    }

    /// The song's length in seconds. Any thread.
    public var durationSeconds: Double { tempoMap.seconds(atTick: length) }

    /// Appends a track and returns its index. Any thread.
    @discardableResult
    public mutating func addTrack(_ track: MusicTrack = MusicTrack()) -> Int {
        tracks.append(track)
        return tracks.count - 1
    }

    /// Removes and returns the track at `index`. Any thread.
    @discardableResult
    public mutating func removeTrack(at index: Int) -> MusicTrack { tracks.remove(at: index) }

    /// The sequence as a format 1 MIDI file: the tempo track first, then each track, each
    /// with its name and End of Track at its length. Any thread.
    public func midiFile() -> MIDIFile {
        func chunk(_ track: MusicTrack) -> MIDIFile.Track {
            var events = track.events
            if let name = track.name, !events.contains(where: {
                if case .meta(.text(.trackName, _)) = $0.message { true } else { false }
            }) {
                events.insert(MIDIEvent(tick: 0, .meta(.text(.trackName, string: name))), at: 0)
            }
            events.append(MIDIEvent(tick: track.length, .meta(.endOfTrack)))
            return MIDIFile.Track(events: events)
        }
        return MIDIFile(format: 1, division: division, tracks: [chunk(tempoTrack)] + tracks.map(chunk))
    }
}

/// Tracks' events in time order, merged as they are read (each track is in time order
/// already), copying nothing; at one tick, the earlier track first. Any thread.
public struct TimeOrderedEvents: Sequence, Sendable {
    let tracks: [[MIDIEvent]]

    /// Merges `tracks`' events. Any thread.
    public init(tracks: [[MIDIEvent]]) { self.tracks = tracks }

    /// Starts at the earliest event. Any thread.
    public func makeIterator() -> Iterator { Iterator(tracks: tracks) }

    /// The merge: a min-heap of each track's next event, by tick then track. Any thread.
    public struct Iterator: IteratorProtocol {
        let tracks: [[MIDIEvent]]
        var positions: [Int]
        /// Each track's next event's tick, kept beside it so that the heap compares two
        /// integers, not two events it would copy.
        var nextTicks: [Int]
        var heap: [Int] = []            // tracks with events left, the earliest next event on top

        init(tracks: [[MIDIEvent]]) {
            self.tracks = tracks
            positions = [Int](repeating: 0, count: tracks.count)
            nextTicks = tracks.map { $0.first?.tick ?? 0 }
            for track in tracks.indices where !tracks[track].isEmpty { push(track) }
        }

        /// The next event and its track, `nil` after the last. Any thread.
        public mutating func next() -> (track: Int, event: MIDIEvent)? {
            guard let track = heap.first else { return nil }
            let event = tracks[track][positions[track]]
            positions[track] += 1
            let last = heap.removeLast()
            if !heap.isEmpty { heap[0] = last; siftDown(0) }
            if positions[track] < tracks[track].count {
                nextTicks[track] = tracks[track][positions[track]].tick
                push(track)
            }
            return (track, event)
        }

        private mutating func push(_ track: Int) {
            heap.append(track)
            nextTicks.withUnsafeBufferPointer { ticks in
                heap.withUnsafeMutableBufferPointer { heap in
                    var child = heap.count - 1
                    while child > 0, case let parent = (child - 1) / 2, Self.before(heap[child], heap[parent], ticks) {
                        heap.swapAt(child, parent)
                        child = parent
                    }
                }
            }
        }

        private mutating func siftDown(_ start: Int) {
            nextTicks.withUnsafeBufferPointer { ticks in
                heap.withUnsafeMutableBufferPointer { heap in
                    var parent = start
                    while true {
                        let left = 2 * parent + 1, right = left + 1
                        var first = parent
                        if left < heap.count && Self.before(heap[left], heap[first], ticks) { first = left }
                        if right < heap.count && Self.before(heap[right], heap[first], ticks) { first = right }
                        if first == parent { return }
                        heap.swapAt(parent, first)
                        parent = first
                    }
                }
            }
        }

        /// Whether track `a`'s next event comes before track `b`'s: by tick, then track.
        @inline(__always) private static func before(_ a: Int, _ b: Int, _ ticks: UnsafeBufferPointer<Int>) -> Bool {
            (ticks[a], a) < (ticks[b], b)
        }
    }
}

extension MusicSequence {
    /// The sequence with every tempo scaled so that its first one (the 120 bpm default when
    /// it sets none at its start) is `microsecondsPerQuarter`: the same music at another
    /// speed, its tempo changes in proportion. Events keep their ticks and order. Any thread.
    public func startingAtTempo(microsecondsPerQuarter first: Double) -> MusicSequence {
        let scale = first / Double(tempoMap.segment(atTick: 0).microsecondsPerQuarter)
        func scaled(_ value: Double) -> UInt32 { UInt32(min(Double(0xFF_FFFF), max(1, (value * scale).rounded()))) }
        var events = tempoTrack.events.map { event -> MIDIEvent in
            guard case .meta(.tempo(let value)) = event.message else { return event }
            return MIDIEvent(tick: event.tick, .meta(.tempo(microsecondsPerQuarter: scaled(Double(value)))))
        }
        if !events.contains(where: { if case .meta(.tempo) = $0.message { $0.tick == 0 } else { false } }) {
            events.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: scaled(Double(TempoMap.defaultMicrosecondsPerQuarter))))), at: 0)
        }
        var result = self
        result.tempoTrack = MusicTrack(name: tempoTrack.name, events: events, length: tempoTrack.length)
        return result
    }
}
