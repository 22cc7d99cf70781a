/// The SMF parser over a byte buffer. Every read is bounds-checked against the end of the
/// chunk it belongs to.
struct SMFReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let mode: MIDIFile.ReadMode
    private var log: DefectLog

    init(bytes: UnsafeBufferPointer<UInt8>, mode: MIDIFile.ReadMode) {
        self.bytes = bytes
        self.mode = mode
        log = DefectLog(mode: mode)
    }

    /// The defects recovered from so far.
    var warnings: [MIDIFileProblem] { log.warnings }

    /// Reports a recoverable defect: an error in strict mode, a warning in lenient mode.
    mutating func defect(_ kind: MIDIFileProblem.Kind, at offset: Int, track: Int? = nil) throws(MIDIFileError) {
        try log.report(kind, at: offset, track: track)
    }

    func fatal(_ kind: MIDIFileProblem.Kind, at offset: Int, track: Int? = nil) -> MIDIFileError {
        MIDIFileError(MIDIFileProblem(offset: offset, track: track, kind: kind))
    }

    func bigEndian32(_ p: Int) -> UInt32 {
        UInt32(bytes[p]) << 24 | UInt32(bytes[p + 1]) << 16 | UInt32(bytes[p + 2]) << 8 | UInt32(bytes[p + 3])
    }

    func bigEndian16(_ p: Int) -> Int { Int(bytes[p]) << 8 | Int(bytes[p + 1]) }

    func littleEndian32(_ p: Int) -> UInt32 {
        UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3]) << 24
    }

    func fourCC(_ p: Int, _ text: StaticString) -> Bool {
        let t = text.utf8Start
        return p + 4 <= bytes.count && bytes[p] == t[0] && bytes[p + 1] == t[1] && bytes[p + 2] == t[2] && bytes[p + 3] == t[3]
    }

    /// Finds the SMF inside a RIFF RMID wrapper: returns the range of the `data` chunk.
    func rmidPayload() throws(MIDIFileError) -> Range<Int> {
        guard bytes.count >= 12, fourCC(8, "RMID") else {
            throw fatal(.badRIFF("form type is not 'RMID'"), at: 8)
        }
        var p = 12
        while p + 8 <= bytes.count {
            let length = Int(littleEndian32(p + 4))
            if fourCC(p, "data") {
                return p + 8 ..< p + 8 + min(length, bytes.count - p - 8)
            }
            let next = p + 8 + length + (length & 1)
            guard next > p, next <= bytes.count else { break }
            p = next
        }
        throw fatal(.badRIFF("no 'data' chunk"), at: 12)
    }

    mutating func read() throws(MIDIFileError) -> MIDIFile {
        guard !bytes.isEmpty else { throw fatal(.emptyFile, at: 0) }
        var region = 0 ..< bytes.count
        if fourCC(0, "RIFF") { region = try rmidPayload() }
        let start = region.lowerBound, end = region.upperBound
        guard fourCC(start, "MThd"), start + 4 <= end else { throw fatal(.notAMIDIFile, at: start) }
        guard start + 14 <= end else { throw fatal(.truncatedHeader(fileSize: bytes.count), at: start) }

        let headerLength = Int(bigEndian32(start + 4))
        var firstChunk = start + 8 + headerLength
        if headerLength != 6 {
            guard headerLength > 6 else { throw fatal(.headerLength(headerLength), at: start + 4) }
            try defect(.headerLength(headerLength), at: start + 4)
            // A wrong length over a normal 6-byte header: read the chunk that follows it.
            if fourCC(start + 14, "MTrk") { firstChunk = start + 14 }
        }
        let format = bigEndian16(start + 8)
        let declaredTracks = bigEndian16(start + 10)
        let rawDivision = bigEndian16(start + 12)
        if format > 2 {
            try defect(.unknownFormat(format), at: start + 8)
        }
        let division: Division
        if rawDivision & 0x8000 != 0 {
            let fps = -Int(Int8(bitPattern: UInt8(rawDivision >> 8)))
            let tpf = rawDivision & 0xFF
            guard fps > 0, tpf > 0 else {
                throw fatal(.badSMPTEDivision(framesPerSecond: fps, ticksPerFrame: tpf), at: start + 12)
            }
            if SMPTERate(headerCode: fps) == nil {
                try defect(.badSMPTEDivision(framesPerSecond: fps, ticksPerFrame: tpf), at: start + 12)
            }
            division = .smpte(framesPerSecond: fps, ticksPerFrame: tpf)
        } else {
            guard rawDivision > 0 else { throw fatal(.zeroDivision, at: start + 12) }
            division = .ticksPerQuarter(rawDivision)
        }

        var tracks: [MIDIFile.Track] = []
        var p = firstChunk
        while p < end {
            guard p + 8 <= end, (0..<4).allSatisfy({ (0x20..<0x7F).contains(bytes[p + $0]) }) else {
                try defect(.junkAfterEnd(byteCount: end - p), at: p)
                break
            }
            var isTrack = fourCC(p, "MTrk")
            if !isTrack && mode == .lenient {
                let id = String(decoding: bytes[p ..< p + 4], as: UTF8.self)
                if id.lowercased() == "mtrk" {
                    try defect(.misnamedTrackChunk(id), at: p, track: tracks.count + 1)
                    isTrack = true
                }
            }
            let length = bigEndian32(p + 4)
            let dataStart = p + 8
            var dataEnd = dataStart + Int(length)
            if Int(length) > end - dataStart {
                try defect(.chunkRunsPastEnd(length: length, fileSize: bytes.count), at: dataStart,
                           track: isTrack ? tracks.count + 1 : nil)
                dataEnd = end
            }
            if isTrack {
                tracks.append(try readTrack(dataStart ..< dataEnd, number: tracks.count + 1))
            }
            p = dataEnd
        }
        if tracks.count != declaredTracks {
            try defect(.trackCountMismatch(header: declaredTracks, found: tracks.count), at: start + 10)
        }
        if format == 0 && tracks.count != 1 {
            try defect(.formatZeroTrackCount(tracks.count), at: start + 8)
        }
        return MIDIFile(format: format, division: division, tracks: tracks, warnings: warnings)
    }

    /// Reads a variable-length quantity at `p` (at most 4 bytes) within `end`.
    func vlq(_ p: inout Int, _ end: Int) -> (value: Int, problem: MIDIFileProblem.Kind?) {
        var value = 0
        for i in 0..<4 {
            guard p < end else { return (0, .truncatedEvent) }
            let b = bytes[p]
            p += 1
            value = value << 7 | Int(b & 0x7F)
            if b < 0x80 { return (value, nil) }
            if i == 3 { return (0, .vlqTooLong) }
        }
        return (0, .vlqTooLong)
    }

    mutating func readTrack(_ range: Range<Int>, number: Int) throws(MIDIFileError) -> MIDIFile.Track {
        var events: [MIDIEvent] = []
        events.reserveCapacity(range.count / 3)
        let end = range.upperBound
        var p = range.lowerBound
        var tick = 0
        var running: UInt8 = 0
        var cancelledBy: UInt8 = 0
        var warnedRunningAfterCancel = false
        var warnedSystemMessage = false
        var cutShort = false
        var sawEnd = false

        readLoop: while p < end {
            let eventStart = p
            let (delta, vlqProblem) = vlq(&p, end)
            if let vlqProblem {
                try defect(vlqProblem, at: eventStart, track: number)
                cutShort = true
                break
            }
            guard p < end else {
                try defect(.truncatedEvent, at: eventStart, track: number)
                cutShort = true
                break
            }
            tick += delta
            var status = bytes[p]
            if status < 0x80 {
                guard running != 0 else {
                    try defect(.noRunningStatus(byte: status), at: p, track: number)
                    cutShort = true
                    break
                }
                if cancelledBy != 0 && !warnedRunningAfterCancel {
                    try defect(.runningStatusAfter(cancelledBy: cancelledBy), at: p, track: number)
                    warnedRunningAfterCancel = true
                }
                status = running
            } else {
                p += 1
            }

            switch status {
            case 0x80...0xEF:
                let count = MIDIMessage.channelDataLength(status)
                guard end - p >= count else {
                    try defect(.truncatedEvent, at: eventStart, track: number)
                    cutShort = true
                    break readLoop
                }
                var d1 = bytes[p]
                var d2: UInt8 = count == 2 ? bytes[p + 1] : 0
                if d1 > 0x7F || d2 > 0x7F {
                    try defect(.dataByteOutOfRange(max(d1, d2)), at: p, track: number)
                    d1 = min(d1, 0x7F)
                    d2 = min(d2, 0x7F)
                }
                p += count
                running = status
                cancelledBy = 0
                events.append(MIDIEvent(tick: tick, MIDIMessage(channelStatus: status, d1, d2)))

            case 0xF0, 0xF7, 0xFF:
                var metaType: UInt8 = 0
                if status == 0xFF {
                    guard p < end else {
                        try defect(.truncatedEvent, at: eventStart, track: number)
                        cutShort = true
                        break readLoop
                    }
                    metaType = bytes[p]
                    p += 1
                }
                let (length, lengthProblem) = vlq(&p, end)
                if let lengthProblem {
                    try defect(lengthProblem, at: eventStart, track: number)
                    cutShort = true
                    break readLoop
                }
                guard length <= end - p else {
                    try defect(.truncatedEvent, at: eventStart, track: number)
                    cutShort = true
                    break readLoop
                }
                let payload = Array(bytes[p ..< p + length])
                p += length
                if running != 0 { cancelledBy = status }
                switch status {
                case 0xF0: events.append(MIDIEvent(tick: tick, .sysex(payload)))
                case 0xF7: events.append(MIDIEvent(tick: tick, .sysexEscape(payload)))
                default:
                    let meta = try metaEvent(type: metaType, payload, at: eventStart, track: number)
                    events.append(MIDIEvent(tick: tick, .meta(meta)))
                    if meta == .endOfTrack {
                        sawEnd = true
                        if p < end {
                            try defect(.bytesAfterEndOfTrack(end - p), at: p, track: number)
                        }
                        break readLoop
                    }
                }

            default: // F1...FE but F7, FF: system messages, not SMF events.
                if !warnedSystemMessage {
                    try defect(.systemMessageInTrack(status: status), at: p - 1, track: number)
                    warnedSystemMessage = true
                }
                let count = MIDIMessage.systemDataLength(status)
                guard end - p >= count else {
                    try defect(.truncatedEvent, at: eventStart, track: number)
                    cutShort = true
                    break readLoop
                }
                events.append(MIDIEvent(tick: tick, .system(status: status, data: Array(bytes[p ..< p + count]))))
                p += count
            }
        }
        if !sawEnd {
            if !cutShort { try defect(.missingEndOfTrack, at: end, track: number) }
            events.append(MIDIEvent(tick: events.last?.tick ?? 0, .meta(.endOfTrack)))
        }
        return MIDIFile.Track(events: events)
    }

    /// Types a meta event, checking lengths and values; a wrong length keeps it raw.
    mutating func metaEvent(type: UInt8, _ data: [UInt8], at offset: Int, track: Int) throws(MIDIFileError) -> MetaEvent {
        func malformed(_ why: String) throws(MIDIFileError) -> MetaEvent {
            try defect(.malformedMeta(type: type, reason: why), at: offset, track: track)
            return .unknown(type: type, data: data)
        }
        func needs(_ n: Int) -> String { "length \(data.count), expected \(n)" }
        switch type {
        case 0x00:
            switch data.count {
            case 0: return .sequenceNumber(nil)
            case 2: return .sequenceNumber(UInt16(data[0]) << 8 | UInt16(data[1]))
            default: return try malformed(needs(2))
            }
        case 0x01...0x0F:
            return .text(MetaEvent.TextKind(rawValue: type)!, data)
        case 0x20:
            guard data.count == 1 else { return try malformed(needs(1)) }
            guard data[0] < 16 else { return try malformed("channel \(data[0]) is above 15") }
            return .channelPrefix(data[0])
        case 0x21:
            guard data.count == 1 else { return try malformed(needs(1)) }
            return .port(data[0])
        case 0x2F:
            if !data.isEmpty { try defect(.malformedMeta(type: type, reason: needs(0)), at: offset, track: track) }
            return .endOfTrack
        case 0x51:
            guard data.count == 3 else { return try malformed(needs(3)) }
            return .tempo(microsecondsPerQuarter: UInt32(data[0]) << 16 | UInt32(data[1]) << 8 | UInt32(data[2]))
        case 0x54:
            guard data.count == 5 else { return try malformed(needs(5)) }
            let o = SMPTEOffset(hoursByte: data[0], minutes: data[1], seconds: data[2], frames: data[3], subframes: data[4])
            if o.hoursByte > 0x7F || o.hours > 23 || o.minutes > 59 || o.seconds > 59
                || Int(o.frames) >= o.rate.nominalFramesPerSecond || o.subframes > 99 {
                try defect(.malformedMeta(type: type, reason: "SMPTE offset field out of range"), at: offset, track: track)
            }
            return .smpteOffset(o)
        case 0x58:
            guard data.count == 4 else { return try malformed(needs(4)) }
            let s = TimeSignature(numerator: data[0], denominatorPower: data[1], clocksPerClick: data[2],
                                  thirtySecondsPerQuarter: data[3])
            if s.numerator == 0 || s.denominatorPower > 6 {
                try defect(.malformedMeta(type: type, reason: "time signature \(s.numerator)/2^\(s.denominatorPower) is not a meter"),
                           at: offset, track: track)
            }
            return .timeSignature(s)
        case 0x59:
            guard data.count == 2 else { return try malformed(needs(2)) }
            let k = KeySignature(sharps: Int8(bitPattern: data[0]), isMinor: data[1] != 0)
            if !(-7...7).contains(k.sharps) || data[1] > 1 {
                try defect(.malformedMeta(type: type, reason: "key signature \(k.sharps) sharps, mode \(data[1]) is not a key"),
                           at: offset, track: track)
            }
            return .keySignature(k)
        case 0x7F:
            return .sequencerSpecific(data)
        default:
            return .unknown(type: type, data: data)
        }
    }
}
