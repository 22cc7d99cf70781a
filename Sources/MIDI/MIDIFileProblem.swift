import Faults

/// A defect found while reading a Standard MIDI File: where (byte offset from the start of the
/// file, 1-based track chunk number) and why. Strict reading throws it as `MIDIFileError`;
/// lenient reading recovers and keeps it as a warning. Any thread.
public struct MIDIFileProblem: Hashable, Sendable, CustomStringConvertible {
    /// Byte offset from the start of the file. Any thread.
    public var offset: Int
    /// The track chunk it concerns, counted from 1 as people count, or `nil` for the header. Any thread.
    public var track: Int?
    /// What is wrong. Any thread.
    public var kind: Kind

    /// Makes a problem report. Any thread.
    public init(offset: Int, track: Int?, kind: Kind) {
        self.offset = offset
        self.track = track
        self.kind = kind
    }

    /// The kinds of defect. Any thread.
    public enum Kind: Hashable, Sendable {
        /// The file is empty. Any thread.
        case emptyFile
        /// The file does not start with `MThd` (nor a RIFF RMID wrapper). Any thread.
        case notAMIDIFile
        /// A RIFF file that is not RMID, or an RMID with no `data` chunk. Any thread.
        case badRIFF(String)
        /// The file ends inside the 14-byte header. Any thread.
        case truncatedHeader(fileSize: Int)
        /// The header length is not 6. Any thread.
        case headerLength(Int)
        /// A format other than 0, 1, 2. Any thread.
        case unknownFormat(Int)
        /// A division of 0 ticks per quarter. Any thread.
        case zeroDivision
        /// An SMPTE division with a frame rate other than 24, 25, 29, 30 (lenient reading keeps
        /// it), or with 0 frames or 0 ticks per frame (never readable). Any thread.
        case badSMPTEDivision(framesPerSecond: Int, ticksPerFrame: Int)
        /// Format 0 with more or fewer than one track. Any thread.
        case formatZeroTrackCount(Int)
        /// The header's track count differs from the track chunks present. Any thread.
        case trackCountMismatch(header: Int, found: Int)
        /// A chunk's length runs past the end of the file. Any thread.
        case chunkRunsPastEnd(length: UInt32, fileSize: Int)
        /// A chunk named like `MTrk` but in the wrong case (`mTrk`): lenient reading reads it
        /// as a track, strict reading skips it as the spec says for unknown chunks. Any thread.
        case misnamedTrackChunk(String)
        /// Bytes after the last chunk that do not form a chunk. Any thread.
        case junkAfterEnd(byteCount: Int)
        /// A track chunk ends inside an event. Any thread.
        case truncatedEvent
        /// A variable-length quantity longer than the four bytes SMF allows. Any thread.
        case vlqTooLong
        /// A data byte where a status byte is needed and there is no running status. Any thread.
        case noRunningStatus(byte: UInt8)
        /// Running status used right after a sysex or meta event, which cancel it. Any thread.
        case runningStatusAfter(cancelledBy: UInt8)
        /// A channel message data byte above 127; lenient reading clamps it to 127. Any thread.
        case dataByteOutOfRange(UInt8)
        /// A system common or real-time status byte inside a track (reported once a track). Any thread.
        case systemMessageInTrack(status: UInt8)
        /// A known meta type whose length or values are wrong; lenient reading keeps it raw. Any thread.
        case malformedMeta(type: UInt8, reason: String)
        /// A track chunk without End of Track; lenient reading ends it at its last event. Any thread.
        case missingEndOfTrack
        /// Bytes left in a track chunk after its End of Track. Any thread.
        case bytesAfterEndOfTrack(Int)
        /// The file could not be read at all (missing, a directory, no permission). Any thread.
        case unreadable(String)
        /// A defect in a MUS file (Doom's songs), in words. Any thread.
        case malformedMUS(String)
        /// A defect in an XMI file (Miles Sound System's songs), in words. Any thread.
        case malformedXMI(String)
        /// A defect in an HMP file (Human Machine Interfaces' songs, Descent's), in words. Any thread.
        case malformedHMP(String)
        /// A defect in an HMI file (Human Machine Interfaces' later songs), in words. Any thread.
        case malformedHMI(String)
    }

    /// `byte N, track T: reason` (no track for the header, no place when unreadable). Any thread.
    public var description: String {
        if case .unreadable(let why) = kind { return why }
        let place = track.map { "byte \(offset), track \($0)" } ?? "byte \(offset)"
        return "\(place): \(reason)"
    }

    /// The reason alone, in words. Any thread.
    public var reason: String {
        switch kind {
        case .emptyFile: return "the file is empty"
        case .notAMIDIFile: return "not a Standard MIDI File (no 'MThd' header)"
        case .badRIFF(let why): return "RIFF file is not a MIDI file: \(why)"
        case .truncatedHeader(let size): return "the file ends inside the MIDI header (size \(size))"
        case .headerLength(let n): return "header length is \(n), not 6"
        case .unknownFormat(let f): return "format \(f) is not 0, 1 or 2"
        case .zeroDivision: return "division is 0 ticks per quarter note"
        case .badSMPTEDivision(let fps, let tpf):
            return "SMPTE division of \(fps) frames per second × \(tpf) ticks per frame is not valid"
        case .formatZeroTrackCount(let n): return "format 0 holds exactly one track, this file has \(n)"
        case .trackCountMismatch(let header, let found):
            return "header says \(header) track\(header == 1 ? "" : "s"), the file holds \(found)"
        case .chunkRunsPastEnd(let length, let size):
            return "chunk length \(length) runs past the end of the file (size \(size))"
        case .misnamedTrackChunk(let id): return "chunk '\(id)' read as a track chunk ('MTrk')"
        case .junkAfterEnd(let n): return n == 1 ? "1 byte after the last chunk is not a chunk" : "\(n) bytes after the last chunk are not a chunk"
        case .truncatedEvent: return "the track ends inside an event"
        case .vlqTooLong: return "variable-length number longer than 4 bytes"
        case .noRunningStatus(let b): return "data byte \(b.hexDigits) with no status byte before it"
        case .runningStatusAfter(let cancel):
            return "running status used after a \(cancel == 0xFF ? "meta" : "sysex") event, which cancels it"
        case .dataByteOutOfRange(let b): return "data byte \(b.hexDigits) is above 127"
        case .systemMessageInTrack(let s): return "system message \(s.hexDigits) is not allowed in a MIDI file track"
        case .malformedMeta(let type, let why): return "meta event FF \(type.hexDigits): \(why)"
        case .missingEndOfTrack: return "missing End of Track; track ends at its last event"
        case .bytesAfterEndOfTrack(let n): return "\(n) byte\(n == 1 ? "" : "s") after End of Track ignored"
        case .unreadable(let why): return why
        case .malformedMUS(let why): return "MUS: \(why)"
        case .malformedXMI(let why): return "XMI: \(why)"
        case .malformedHMP(let why): return "HMP: \(why)"
        case .malformedHMI(let why): return "HMI: \(why)"
        }
    }
}

/// A MIDI file that could not be read: the problem, and the file's path when one was given.
/// Any thread.
public struct MIDIFileError: Fault, Hashable, Sendable {
    /// A file's fault. Any thread.
    public var kind: FaultKind { .file }
    /// What is wrong and where. Any thread.
    public var problem: MIDIFileProblem
    /// The file's path, when it was read from one. Any thread.
    public var path: String?

    /// Wraps a problem. Any thread.
    public init(_ problem: MIDIFileProblem, path: String? = nil) {
        self.problem = problem
        self.path = path
    }

    /// `path: byte N, track T: reason`. Any thread.
    public var description: String {
        path.map { "\($0): \(problem)" } ?? problem.description
    }
}

/// The defects of one read: each thrown at once when reading strictly, kept as a warning when
/// reading leniently. Any thread.
struct DefectLog {
    let mode: MIDIFile.ReadMode
    private(set) var warnings: [MIDIFileProblem] = []

    init(mode: MIDIFile.ReadMode) { self.mode = mode }

    /// Reports `kind` at byte `offset` (of `track`, if one).
    mutating func report(_ kind: MIDIFileProblem.Kind, at offset: Int, track: Int? = nil) throws(MIDIFileError) {
        let problem = MIDIFileProblem(offset: offset, track: track, kind: kind)
        if mode == .strict { throw MIDIFileError(problem) }
        warnings.append(problem)
    }
}
