/// Miles Sound System's Extended MIDI (XMI: Ultima, Theme Hospital, many DOS games) read into
/// the sequence model: each sequence of the file (a `CAT XMID` holds several) one track, at 120
/// ticks a second (division 60, tempo 500,000 µs), as AIL plays them — so the file's own tempo
/// events are dropped. A note's duration becomes its note-off; intervals (runs of bytes below
/// 0x80) add up; FOR/NEXT loops stay controllers 116/117, which `SongLoop` reads as EMIDI's.
/// Several sequences make a format 2 file, played one after another. Every read is checked
/// against its chunk's end; a defect is an error when strict, a warning and the rest of that
/// sequence dropped when lenient. Any thread.
enum XMIReader {
    /// Whether `bytes` look like an XMI file: an IFF `FORM XDIR`, `FORM XMID` or `CAT XMID`.
    static func recognizes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 12 else { return false }
        let id = Array(bytes[0..<4]), type = Array(bytes[8..<12])
        return (id == Array("FORM".utf8) && (type == Array("XDIR".utf8) || type == Array("XMID".utf8)))
            || (id == Array("CAT ".utf8) && type == Array("XMID".utf8))
    }

    /// The sequences in `bytes`, read strictly or leniently.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, mode: MIDIFile.ReadMode) throws(MIDIFileError) -> MIDIFile {
        var log = DefectLog(mode: mode)
        func defect(_ reason: String, at offset: Int) throws(MIDIFileError) { try log.report(.malformedXMI(reason), at: offset) }
        func id(_ p: Int) -> String { String(decoding: bytes[p..<p + 4], as: UTF8.self) }
        func bigEndian32(_ p: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[p + $1]) } }
        /// The chunks from `start` to `end` (IFF: big-endian lengths, bodies padded to even).
        func chunks(_ start: Int, _ end: Int) throws(MIDIFileError) -> [(id: String, body: Range<Int>)] {
            var found: [(id: String, body: Range<Int>)] = []
            var p = start
            while p + 8 <= end {
                var length = bigEndian32(p + 4)
                if p + 8 + length > end {
                    try defect("chunk '\(id(p))' claims \(length) bytes, past the end of what holds it (byte \(end))", at: p + 4)
                    length = end - p - 8
                }
                found.append((id(p), p + 8 ..< p + 8 + length))
                p += 8 + length + (length & 1)
            }
            return found
        }

        // The sequences' EVNT chunks, and the count XDIR's INFO promises.
        var events: [Range<Int>] = []
        var promised: (count: Int, at: Int)?
        /// The EVNT chunk of the `FORM XMID` whose body (after its type) is `body`.
        func sequence(_ body: Range<Int>) throws(MIDIFileError) {
            guard let evnt = try chunks(body.lowerBound, body.upperBound).first(where: { $0.id == "EVNT" }) else {
                try defect("a sequence (FORM XMID at byte \(body.lowerBound - 12)) has no EVNT chunk", at: body.lowerBound - 12)
                return
            }
            events.append(evnt.body)
        }
        for chunk in try chunks(0, bytes.count) where chunk.body.count >= 4 {
            let type = id(chunk.body.lowerBound), inner = chunk.body.lowerBound + 4 ..< chunk.body.upperBound
            switch (chunk.id, type) {
            case ("FORM", "XDIR"):
                if let info = try chunks(inner.lowerBound, inner.upperBound).first(where: { $0.id == "INFO" && $0.body.count >= 2 }) {
                    promised = (Int(bytes[info.body.lowerBound]) | Int(bytes[info.body.lowerBound + 1]) << 8, info.body.lowerBound)
                }
            case ("FORM", "XMID"):
                try sequence(inner)
            case ("CAT ", "XMID"):
                for form in try chunks(inner.lowerBound, inner.upperBound) where form.id == "FORM" && form.body.count >= 4 && id(form.body.lowerBound) == "XMID" {
                    try sequence(form.body.lowerBound + 4 ..< form.body.upperBound)
                }
            default:
                break
            }
        }
        if let promised, promised.count != events.count {
            try defect("XDIR promises \(promised.count) sequence\(promised.count == 1 ? "" : "s"), the file holds \(events.count)", at: promised.at)
        }
        guard !events.isEmpty else {
            throw MIDIFileError(MIDIFileProblem(offset: 0, track: nil, kind: .malformedXMI("no sequence (no FORM XMID with an EVNT chunk)")))
        }
        // Meta events are read, and judged, as the SMF reader reads them.
        var smf = SMFReader(bytes: bytes, mode: mode)
        var tracks: [MIDIFile.Track] = []
        for (index, range) in events.enumerated() {
            let read = try readEvents(bytes, range, sequence: index, defect: defect) { (type, data, offset) throws(MIDIFileError) in
                try smf.metaEvent(type: type, data, at: offset, track: index)
            }
            tracks.append(MIDIFile.Track(events: read))
        }
        var file = MIDIFile(format: tracks.count == 1 ? 0 : 2, division: .ticksPerQuarter(60), tracks: tracks, warnings: log.warnings + smf.warnings)
        file.origin = .xmi(sequences: tracks.count)
        return file
    }

    /// One sequence's EVNT bytes (`range` of `bytes`) as MIDI events at 120 ticks a second.
    private static func readEvents(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, sequence: Int,
                                   defect: (String, Int) throws(MIDIFileError) -> Void,
                                   meta: (UInt8, [UInt8], Int) throws(MIDIFileError) -> MetaEvent) throws(MIDIFileError) -> [MIDIEvent] {
        // Note-offs are made when their note-on is read; a stable sort by tick then puts them
        // where AIL plays them, before what the score holds later at the same tick.
        var events = [MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000)))]
        var tick = 0, p = range.lowerBound, ended = false
        let end = range.upperBound
        /// The next byte, `nil` (after the defect) at the chunk's end.
        func next(_ start: Int) throws(MIDIFileError) -> UInt8? {
            guard p < end else {
                try defect("sequence \(sequence + 1): the EVNT chunk ends inside an event", start)
                return nil
            }
            p += 1
            return bytes[p - 1]
        }
        /// A data byte (below 0x80), `nil` after the defect.
        func data(_ start: Int) throws(MIDIFileError) -> UInt8? {
            guard let byte = try next(start) else { return nil }
            guard byte < 0x80 else {
                try defect("sequence \(sequence + 1): data byte \(byte) is above 127", p - 1)
                return nil
            }
            return byte
        }
        /// A variable-length number of at most 4 bytes, `nil` after the defect.
        func number(_ start: Int) throws(MIDIFileError) -> Int? {
            var value = 0
            for _ in 0..<4 {
                guard let byte = try next(start) else { return nil }
                value = value << 7 | Int(byte & 0x7F)
                if byte < 0x80 { return value }
            }
            try defect("sequence \(sequence + 1): a variable-length number longer than 4 bytes", p - 4)
            return nil
        }
        read: while p < end {
            while p < end, bytes[p] < 0x80 {   // an interval: its bytes add up
                tick += Int(bytes[p])
                p += 1
            }
            guard p < end else { break }
            let start = p, status = bytes[p], channel = status & 0x0F
            p += 1
            switch status >> 4 {
            case 0x9:
                guard let key = try data(start), let velocity = try data(start), let duration = try number(start) else { break read }
                events.append(MIDIEvent(tick: tick, .noteOn(channel: channel, note: key, velocity: velocity)))
                events.append(MIDIEvent(tick: tick + duration, .noteOff(channel: channel, note: key, velocity: 0)))
            case 0x8, 0xA, 0xB, 0xE:
                guard let first = try data(start), let second = try data(start) else { break read }
                events.append(MIDIEvent(tick: tick, MIDIMessage(channelStatus: status, first, second)))
            case 0xC, 0xD:
                guard let first = try data(start) else { break read }
                events.append(MIDIEvent(tick: tick, MIDIMessage(channelStatus: status, first, 0)))
            default:
                if status == 0xF0 || status == 0xF7 {
                    guard let length = try number(start) else { break read }
                    guard length <= end - p else {
                        try defect("sequence \(sequence + 1): a sysex claims \(length) bytes, past the end of the EVNT chunk", start)
                        break read
                    }
                    let body = Array(bytes[p..<p + length])
                    p += length
                    events.append(MIDIEvent(tick: tick, status == 0xF0 ? .sysex(body) : .sysexEscape(body)))
                } else if status == 0xFF {
                    guard let type = try data(start), let length = try number(start) else { break read }
                    guard length <= end - p else {
                        try defect("sequence \(sequence + 1): meta event FF \(type) claims \(length) bytes, past the end of the EVNT chunk", start)
                        break read
                    }
                    let body = Array(bytes[p..<p + length])
                    p += length
                    if type == 0x2F { ended = true; break read }
                    if type == 0x51 { continue }   // AIL keeps its own time: 120 ticks a second
                    events.append(MIDIEvent(tick: tick, .meta(try meta(type, body, start))))
                } else {
                    try defect("sequence \(sequence + 1): status byte \(status) is not an XMI event", start)
                    break read
                }
            }
        }
        if !ended { try defect("sequence \(sequence + 1): no End of Track", p) }
        events = events.timeOrdered()
        events.append(MIDIEvent(tick: max(tick, events.last?.tick ?? 0), .meta(.endOfTrack)))
        return events
    }
}
