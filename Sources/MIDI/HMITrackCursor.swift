/// Reading one track of a Human Machine Interfaces song (HMP, HMI) byte by byte, every read
/// checked against the track's end: a read past it, or a byte that cannot be there, is a
/// defect (thrown when strict; when lenient kept as a warning, and the read answers `nil` so
/// the reader ends that track). Any thread.
struct HMITrackCursor {
    /// What a read event was.
    enum Event {
        /// A channel message, sysex or meta event to keep.
        case message(MIDIMessage)
        /// End of Track.
        case end
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    private(set) var position: Int
    /// The track's end (exclusive).
    let end: Int
    /// The track, counted from 1, for the defects' words.
    let track: Int
    /// The defect kind of the format (`.malformedHMP`, `.malformedHMI`).
    let kind: (String) -> MIDIFileProblem.Kind
    /// This track's defects.
    private(set) var log: DefectLog
    /// The running status: the last channel status byte.
    private var running: UInt8 = 0

    init(bytes: UnsafeBufferPointer<UInt8>, track range: Range<Int>, number: Int, mode: MIDIFile.ReadMode,
         kind: @escaping (String) -> MIDIFileProblem.Kind) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
        track = number
        self.kind = kind
        log = DefectLog(mode: mode)
    }

    /// Whether the whole track has been read.
    var isAtEnd: Bool { position >= end }

    /// Reports `reason` about this track at byte `offset`.
    mutating func defect(_ reason: String, at offset: Int) throws(MIDIFileError) {
        try log.report(kind(reason), at: offset, track: track)
    }

    /// The next byte, `nil` (after the defect) at the track's end; `start` is where the event began.
    mutating func byte(_ start: Int) throws(MIDIFileError) -> UInt8? {
        guard position < end else {
            try defect("the track ends inside an event", at: start)
            return nil
        }
        position += 1
        return bytes[position - 1]
    }

    /// The next byte if below 0x80, else `nil` after the defect.
    mutating func dataByte(_ start: Int) throws(MIDIFileError) -> UInt8? {
        guard let value = try byte(start) else { return nil }
        guard value < 0x80 else {
            try defect("data byte \(value) is above 127", at: position - 1)
            return nil
        }
        return value
    }

    /// `count` bytes, `nil` after the defect when the track ends first.
    mutating func take(_ count: Int, _ start: Int, what: String) throws(MIDIFileError) -> [UInt8]? {
        guard count <= end - position else {
            try defect("\(what) claims \(count) bytes, past the end of the track (byte \(end))", at: start)
            return nil
        }
        position += count
        return Array(bytes[position - count ..< position])
    }

    /// A variable-length number as SMF writes it (the high bits first, the top bit of every
    /// byte but the last set), at most 4 bytes; `nil` after the defect.
    mutating func number(_ start: Int) throws(MIDIFileError) -> Int? {
        var value = 0
        for _ in 0..<4 {
            guard let next = try byte(start) else { return nil }
            value = value << 7 | Int(next & 0x7F)
            if next < 0x80 { return value }
        }
        try defect("a variable-length number longer than 4 bytes", at: position - 4)
        return nil
    }

    /// A variable-length number as HMP writes its delta times (the low bits first, the top bit
    /// set only on the last byte), at most 4 bytes; `nil` after the defect.
    mutating func reversedNumber(_ start: Int) throws(MIDIFileError) -> Int? {
        var value = 0
        for shift in stride(from: 0, to: 28, by: 7) {
            guard let next = try byte(start) else { return nil }
            value |= Int(next & 0x7F) << shift
            if next >= 0x80 { return value }
        }
        try defect("a delta time longer than 4 bytes", at: position - 4)
        return nil
    }

    /// The event at the cursor (after its delta time): a channel message (running status
    /// allowed), a sysex or a meta event (typed as the SMF reader types them, through
    /// `smf`). Controllers 110 and 111, the HMI drivers' loop start and end (their value may
    /// be above 127), become `loopStart` and `loopEnd` markers, Pianola's own convention.
    /// `nil` after a defect that ends the track.
    mutating func event(smf: inout SMFReader) throws(MIDIFileError) -> Event? {
        let start = position
        guard var status = try byte(start) else { return nil }
        if status < 0x80 {
            guard running != 0 else {
                try defect("data byte \(status) with no status byte before it", at: start)
                return nil
            }
            status = running
            position -= 1
        }
        switch status {
        case 0x80...0xEF:
            running = status
            guard let first = try dataByte(start) else { return nil }
            guard MIDIMessage.channelDataLength(status) == 2 else { return .message(MIDIMessage(channelStatus: status, first, 0)) }
            if status & 0xF0 == 0xB0, first == 110 || first == 111 {
                guard try byte(start) != nil else { return nil }
                return .message(.meta(.text(.marker, Array((first == 110 ? "loopStart" : "loopEnd").utf8))))
            }
            guard let second = try dataByte(start) else { return nil }
            return .message(MIDIMessage(channelStatus: status, first, second))
        case 0xF0, 0xF7:
            running = 0
            guard let length = try number(start), let body = try take(length, start, what: "a sysex") else { return nil }
            return .message(status == 0xF0 ? .sysex(body) : .sysexEscape(body))
        case 0xFF:
            guard let type = try dataByte(start), let length = try number(start),
                  let body = try take(length, start, what: "meta event FF \(type.hexDigits)") else { return nil }
            let meta = try smf.metaEvent(type: type, body, at: start, track: track)
            return meta == .endOfTrack ? .end : .message(.meta(meta))
        default:
            try defect("status byte \(status.hexDigits) is not an event", at: start)
            return nil
        }
    }
}

extension HMITrackCursor {
    /// The ticks a second a song may run at: from 4 (a quarter note of 60 ticks then lasts
    /// 15 s, near the longest a tempo event can say) to 10,000.
    static let ticksPerSecond = 4...10_000

    /// HMI's readers' song: `tracks` as a format 1 file at `ticksPerSecond` (60 ticks a
    /// quarter note, and the tempo that makes them last as long, on the first track).
    static func song(_ tracks: [MIDIFile.Track], ticksPerSecond: Int, warnings: [MIDIFileProblem], origin: MIDIFile.Origin) -> MIDIFile {
        var tracks = tracks
        tracks[0].events.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: UInt32(60_000_000 / ticksPerSecond)))), at: 0)
        var file = MIDIFile(format: 1, division: .ticksPerQuarter(60), tracks: tracks, warnings: warnings)
        file.origin = origin
        return file
    }
}

extension UInt8 {
    /// Two upper-case hex digits.
    var hexDigits: String { (self < 16 ? "0" : "") + String(self, radix: 16, uppercase: true) }
}
