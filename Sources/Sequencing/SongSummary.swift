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
        /// Channels used, 0-based, ascending (from 1 in JSON, as the text shows them). Any thread.
        public var channels: [Int]

        /// Encodes every key, `name` as null when absent. Any thread.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(name, forKey: .name)
            try c.encode(eventCount, forKey: .eventCount)
            try c.encode(noteCount, forKey: .noteCount)
            try c.encode(channels.map { $0 + 1 }, forKey: .channels)
        }

        private enum Key: String, CodingKey { case name, eventCount, noteCount, channels }
    }

    /// A tempo change. Any thread.
    public struct TempoChange: Hashable, Sendable, Encodable {
        /// Tick. Any thread.
        public var tick: Int
        /// Seconds from the start. Any thread.
        public var seconds: Double
        /// Beats (quarter notes) per minute, to three decimals. Any thread.
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

    /// A key signature. Any thread.
    public struct KeySignatureChange: Hashable, Sendable, Encodable {
        /// Tick. Any thread.
        public var tick: Int
        /// The key, such as `Bb` or `F#m`. Any thread.
        public var key: String
    }

    /// A syllable or line of the lyrics. Any thread.
    public struct Lyric: Hashable, Sendable, Encodable {
        /// Seconds from the start. Any thread.
        public var seconds: Double
        /// The text (Latin-1), with a karaoke file's `/` and `\` line marks kept. Any thread.
        public var text: String
    }

    /// The programs a channel plays. Any thread.
    public struct ChannelPrograms: Hashable, Sendable, Encodable {
        /// The channel, from 1. Any thread.
        public var channel: Int
        /// Its programs in the order first selected, by General MIDI name ("drums" on channel
        /// 10). Any thread.
        public var programs: [String]
    }

    /// One song of the file (`--song`): a format 2 file's sequence, or the whole file. Any thread.
    public struct SongPart: Hashable, Sendable, Encodable {
        /// Seconds to its last event, End of Track included. Any thread.
        public var durationSeconds: Double
        /// Note-ons with velocity above 0. Any thread.
        public var noteCount: Int
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

    /// What the song was read from, in words ("Standard MIDI File", "MUS score (Doom), …"). Any thread.
    public var origin: String
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
    /// The songs `--song` chooses from, in order: one for most files. Any thread.
    public var songs: [SongPart]
    /// Every tempo change, in time order. Any thread.
    public var tempoChanges: [TempoChange]
    /// Every time signature, in time order. Any thread.
    public var timeSignatures: [TimeSignatureChange]
    /// Every marker of every track, in time order. Any thread.
    public var markers: [Marker]
    /// The defects lenient reading recovered from, as one-line texts. Any thread.
    public var warnings: [String]
    /// The copyright notices. Any thread.
    public var copyright: [String]
    /// Key signatures, in time order. Any thread.
    public var keySignatures: [KeySignatureChange]
    /// The lyrics: Lyric events, or in a karaoke (.kar) file its Text events, in time order. Any thread.
    public var lyrics: [Lyric]
    /// Each channel that plays notes, with its programs. Any thread.
    public var programs: [ChannelPrograms]

    /// Summarizes a read file. Any thread.
    public init(file: MIDIFile) {
        let sequence = MusicSequence(file: file)
        let tempoMap = sequence.tempoMap
        origin = file.origin.description
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
        songs = (1...file.songCount).compactMap { file.song($0) }.map { SongPart(durationSeconds: $0.durationSeconds, noteCount: $0.noteCount) }
        tempoChanges = sequence.tempoTrack.events.compactMap {
            guard case .meta(.tempo(let t)) = $0.message else { return nil }
            return TempoChange(tick: $0.tick, seconds: tempoMap.seconds(atTick: $0.tick),
                               bpm: (60_000_000 / Double(max(1, t)) * 1000).rounded() / 1000)
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
        let metas = ([sequence.tempoTrack] + sequence.tracks).flatMap { track in track.events.filter { if case .meta = $0.message { true } else { false } } }
            .enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
        copyright = metas.compactMap { if case .meta(.text(.copyright, let bytes)) = $0.message { String(latin1: bytes) } else { nil } }
        keySignatures = metas.compactMap {
            guard case .meta(.keySignature(let k)) = $0.message, let key = k.name else { return nil }
            return KeySignatureChange(tick: $0.tick, key: key)
        }
        lyrics = Self.lyrics(of: sequence)
        var byChannel: [Int: [String]] = [:]
        var current = [Int](repeating: 0, count: 16)
        for message in sequence.messagesInTimeOrder {
            switch message {
            case .programChange(let channel, let program): current[Int(channel & 15)] = Int(program)
            case .noteOn(let channel, _, let velocity) where velocity > 0:
                let c = Int(channel & 15)
                let name = c == 9 ? "drums" : GeneralMIDI.programName(current[c])
                if !(byChannel[c]?.contains(name) ?? false) { byChannel[c, default: []].append(name) }
            default: break
            }
        }
        programs = byChannel.keys.sorted().map { ChannelPrograms(channel: $0 + 1, programs: byChannel[$0]!) }
    }
    /// The lyrics of `sequence`: its Lyric events; failing those, a karaoke file's (the Text
    /// events of the tracks that hold its "@" headers, @T title, @L language…, the headers left
    /// out); in time order. Any thread.
    public static func lyrics(of sequence: MusicSequence) -> [Lyric] {
        let tempoMap = sequence.tempoMap
        func isText(_ event: MIDIEvent, header: Bool) -> Bool {
            if case .meta(.text(.text, let bytes)) = event.message { return (bytes.first == UInt8(ascii: "@")) == header }
            return false
        }
        let sung = sequence.tracks.flatMap { $0.events.filter { if case .meta(.text(.lyric, _)) = $0.message { true } else { false } } }
        let karaoke = sequence.tracks.filter { $0.events.contains { isText($0, header: true) } }
            .flatMap { $0.events.filter { isText($0, header: false) } }
        return (sung.isEmpty ? karaoke : sung).enumerated()
            .sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
            .compactMap {
                guard case .meta(.text(_, let bytes)) = $0.message else { return nil }
                return Lyric(seconds: tempoMap.seconds(atTick: $0.tick), text: String(latin1: bytes))
            }
    }
}
