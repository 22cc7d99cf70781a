import MIDI

/// What `pianola info` tells about a MIDI file: its shape, counts, length, tempo and meter
/// changes, markers and the defects lenient reading recovered from. Times are on the song's
/// timeline (format 2 sequences one after another). Encodes to the documented JSON. Any thread.
public struct SongSummary: Hashable, Sendable, Encodable {
    /// Per-track figures. Any thread.
    public struct TrackSummary: Hashable, Sendable, Encodable {
        /// The track-name text, or `nil`. Any thread.
        public var name: String?
        /// Events in the chunk, End of Track included. Any thread.
        public var eventCount: Int
        /// Note-ons with velocity above 0. Any thread.
        public var noteCount: Int
        /// Channels used, 0-based, ascending. Any thread.
        public var channels: [Int]

        /// Encodes every key, `name` as null when absent. Any thread.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(name, forKey: .name)
            try c.encode(eventCount, forKey: .eventCount)
            try c.encode(noteCount, forKey: .noteCount)
            try c.encode(channels, forKey: .channels)
        }

        private enum Key: String, CodingKey { case name, eventCount, noteCount, channels }
    }

    /// A tempo change. Any thread.
    public struct TempoChange: Hashable, Sendable, Encodable {
        /// Tick. Any thread.
        public var tick: Int
        /// Seconds from the start. Any thread.
        public var seconds: Double
        /// Beats (quarter notes) per minute. Any thread.
        public var bpm: Double
    }

    /// A time signature change. Any thread.
    public struct TimeSignatureChange: Hashable, Sendable, Encodable {
        /// Tick. Any thread.
        public var tick: Int
        /// Beats per bar. Any thread.
        public var numerator: Int
        /// Beat unit (4 = quarter). Any thread.
        public var denominator: Int
    }

    /// A marker meta event. Any thread.
    public struct Marker: Hashable, Sendable, Encodable {
        /// Tick. Any thread.
        public var tick: Int
        /// Seconds from the start. Any thread.
        public var seconds: Double
        /// The marker's text (Latin-1). Any thread.
        public var text: String
    }

    /// The file's division, as JSON shows it. Any thread.
    public enum DivisionSummary: Hashable, Sendable, Encodable {
        /// Metrical. Any thread.
        case ticksPerQuarter(Int)
        /// SMPTE (29.97 for drop-frame). Any thread.
        case smpte(framesPerSecond: Double, ticksPerFrame: Int)

        /// `{"ticksPerQuarter": n}` or `{"smpteFramesPerSecond": f, "ticksPerFrame": n}`. Any thread.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            switch self {
            case .ticksPerQuarter(let t): try c.encode(t, forKey: .ticksPerQuarter)
            case .smpte(let fps, let tpf):
                try c.encode(fps, forKey: .smpteFramesPerSecond)
                try c.encode(tpf, forKey: .ticksPerFrame)
            }
        }

        private enum Key: String, CodingKey { case ticksPerQuarter, smpteFramesPerSecond, ticksPerFrame }
    }

    /// 0, 1 or 2 (or an undefined number lenient reading kept). Any thread.
    public var format: Int
    /// Ticks per quarter or SMPTE. Any thread.
    public var division: DivisionSummary
    /// Track chunks. Any thread.
    public var trackCount: Int
    /// Note-ons with velocity above 0. Any thread.
    public var noteCount: Int
    /// Seconds to the last event, End of Track included. Any thread.
    public var durationSeconds: Double
    /// One entry per track chunk. Any thread.
    public var tracks: [TrackSummary]
    /// Every tempo change, in time order. Any thread.
    public var tempoChanges: [TempoChange]
    /// Every time signature, in time order. Any thread.
    public var timeSignatures: [TimeSignatureChange]
    /// Every marker of every track, in time order. Any thread.
    public var markers: [Marker]
    /// The defects lenient reading recovered from, as one-line texts. Any thread.
    public var warnings: [String]

    /// Summarizes a read file. Any thread.
    public init(file: MIDIFile) {
        let sequence = MusicSequence(file: file)
        let tempoMap = sequence.tempoMap
        format = file.format
        switch file.division {
        case .ticksPerQuarter(let t): division = .ticksPerQuarter(t)
        case .smpte(let fps, let tpf): division = .smpte(framesPerSecond: fps == 29 ? 29.97 : Double(fps), ticksPerFrame: tpf)
        }
        trackCount = file.tracks.count
        noteCount = file.noteCount
        durationSeconds = file.durationSeconds
        tracks = file.tracks.map {
            TrackSummary(name: $0.name, eventCount: $0.events.count, noteCount: $0.noteCount,
                         channels: $0.channels.map(Int.init))
        }
        tempoChanges = sequence.tempoTrack.events.compactMap {
            guard case .meta(.tempo(let t)) = $0.message else { return nil }
            return TempoChange(tick: $0.tick, seconds: tempoMap.seconds(atTick: $0.tick),
                               bpm: 60_000_000 / Double(max(1, t)))
        }
        timeSignatures = sequence.tempoTrack.events.compactMap {
            guard case .meta(.timeSignature(let s)) = $0.message else { return nil }
            return TimeSignatureChange(tick: $0.tick, numerator: Int(s.numerator), denominator: s.denominator ?? 0)
        }
        markers = sequence.tracks.flatMap { track in
            track.events.compactMap { event -> Marker? in
                guard case .meta(.text(.marker, let bytes)) = event.message else { return nil }
                return Marker(tick: event.tick, seconds: tempoMap.seconds(atTick: event.tick), text: String(latin1: bytes))
            }
        }.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
        warnings = file.warnings.map(\.description)
    }
}
