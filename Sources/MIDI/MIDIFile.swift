/// A Standard MIDI File as stored: its format, division and track chunks, each a list of
/// events at absolute ticks in file order (End of Track last). Reading never crashes, hangs
/// or allocates beyond the input's size, whatever the bytes. Any thread.
public struct MIDIFile: Hashable, Sendable {
    /// How strictly to read. Any thread.
    public enum ReadMode: Hashable, Sendable {
        /// Any defect is an error.
        case strict
        /// Recover what is there and report each defect as a warning (the default for playing).
        case lenient
    }

    /// One `MTrk` chunk. Any thread.
    public struct Track: Hashable, Sendable {
        /// The events in file order, ticks ascending, End of Track last. Any thread.
        public var events: [MIDIEvent]

        /// Makes a track from its events. Any thread.
        public init(events: [MIDIEvent]) { self.events = events }

        /// The first track-name meta event's text, if any. Any thread.
        public var name: String? {
            for event in events {
                if case .meta(.text(.trackName, let bytes)) = event.message { return String(latin1: bytes) }
            }
            return nil
        }

        /// The tick of the last event (End of Track included), 0 for an empty track. Any thread.
        public var endTick: Int { events.last?.tick ?? 0 }
    }

    /// 0 (one track), 1 (simultaneous tracks) or 2 (independent sequences). Lenient reading
    /// keeps an undefined format number as stored. Any thread.
    public var format: Int
    /// Ticks per quarter, or SMPTE frames × ticks per frame. Any thread.
    public var division: Division
    /// The track chunks in file order. Any thread.
    public var tracks: [Track]
    /// Defects found and recovered from by lenient reading (empty after strict reading). Any thread.
    public var warnings: [MIDIFileProblem]
    /// What the song was read from. Any thread.
    public var origin: Origin = .standardMIDIFile

    /// The kind of file a song was read from. Any thread.
    public enum Origin: Hashable, Sendable, CustomStringConvertible {
        /// A Standard MIDI File, bare or in a RIFF `RMID` file. Any thread.
        case standardMIDIFile
        /// A MUS score (id Software's): its instrument list (General MIDI programs, and
        /// percussion as key + 100) and the score's length in bytes. Any thread.
        case mus(instruments: [Int], scoreBytes: Int)
        /// An XMI file (Miles Sound System's) of `sequences` sequences. Any thread.
        case xmi(sequences: Int)
        /// An HMP file (Human Machine Interfaces'), of the first layout or the "013195" one,
        /// at `ticksPerSecond`. Any thread.
        case hmp(variant: Bool, ticksPerSecond: Int)
        /// An HMI file (Human Machine Interfaces' later songs) at `ticksPerSecond`. Any thread.
        case hmi(ticksPerSecond: Int)

        /// In words, e.g. "MUS score (Doom), 1,204 bytes at 140 ticks a second; instruments 19, 135". Any thread.
        public var description: String {
            switch self {
            case .standardMIDIFile: return "Standard MIDI File"
            case .mus(let instruments, let bytes):
                let list = instruments.isEmpty ? "none" : instruments.map(String.init).joined(separator: ", ")
                return "MUS score (Doom), \(bytes) bytes at 140 ticks a second; instruments \(list)"
            case .xmi(let sequences):
                return "XMI file (Miles Sound System), \(sequences) sequence\(sequences == 1 ? "" : "s") at 120 ticks a second"
            case .hmp(let variant, let rate):
                return "HMP song (Human Machine Interfaces\(variant ? ", 013195 layout" : "")) at \(rate) ticks a second"
            case .hmi(let rate):
                return "HMI song (Human Machine Interfaces) at \(rate) ticks a second"
            }
        }
    }

    /// Makes a file from its parts. Any thread.
    public init(format: Int, division: Division, tracks: [Track], warnings: [MIDIFileProblem] = []) {
        self.format = format
        self.division = division
        self.tracks = tracks
        self.warnings = warnings
    }

    /// Reads a file's bytes, by their content: a Standard MIDI File, one wrapped in a RIFF
    /// `RMID` file, a MUS score (Doom's), an XMI file (Miles Sound System's) or an HMP or
    /// HMI song (Human Machine Interfaces'). Any thread.
    public init(bytes: [UInt8], mode: ReadMode = .lenient) throws(MIDIFileError) {
        self = try bytes.withUnsafeBufferPointer { buffer throws(MIDIFileError) in
            if buffer.starts(with: MUSReader.magic) { return try MUSReader.read(buffer, mode: mode) }
            if XMIReader.recognizes(buffer) { return try XMIReader.read(buffer, mode: mode) }
            if buffer.starts(with: HMPReader.magic) { return try HMPReader.read(buffer, mode: mode) }
            if buffer.starts(with: HMIReader.magic) { return try HMIReader.read(buffer, mode: mode) }
            var reader = SMFReader(bytes: buffer, mode: mode)
            return try reader.read()
        }
    }

    /// Reads the file at `path`. Errors carry the path. Any thread.
    public init(contentsOf path: String, mode: ReadMode = .lenient) throws(MIDIFileError) {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path)
        } catch {
            throw MIDIFileError(MIDIFileProblem(offset: 0, track: nil, kind: .unreadable(error.reason)), path: path)
        }
        do {
            try self.init(bytes: bytes, mode: mode)
        } catch {
            throw MIDIFileError(error.problem, path: path)
        }
    }
}
