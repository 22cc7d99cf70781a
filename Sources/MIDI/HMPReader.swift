/// Human Machine Interfaces' HMP songs (Descent, Descent II and other games on HMI's Sound
/// Operating System), both the first layout and the "013195" one, read into the sequence
/// model: each chunk one track of a format 1 file, at the header's ticks a second (division
/// 60, with the tempo that makes 60 ticks a quarter last 60/rate seconds). Delta times are
/// written low bits first; controllers 110/111 (loop start and end) become `loopStart` and
/// `loopEnd` markers. Every read is checked against its chunk and the file; a defect is an
/// error when strict, a warning and the rest of that chunk dropped when lenient. Any thread.
enum HMPReader {
    /// The eight bytes an HMP file starts with.
    static let magic = Array("HMIMIDIP".utf8)
    /// The second layout's mark, right after the magic.
    private static let variantMark = Array("013195".utf8)

    /// The song in `bytes`, read strictly or leniently.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, mode: MIDIFile.ReadMode) throws(MIDIFileError) -> MIDIFile {
        var log = DefectLog(mode: mode)
        func defect(_ reason: String, at offset: Int, track: Int? = nil) throws(MIDIFileError) { try log.report(.malformedHMP(reason), at: offset, track: track) }
        func word(_ p: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[p + $1]) << (8 * $1) } }

        let isVariant = bytes.count >= 14 && Array(bytes[8..<14]) == variantMark
        // The header: 32 bytes of name, the sizes and counts to byte 64, then a table of
        // 712 bytes (840 in the 013195 layout) before the first chunk.
        let firstChunk = isVariant ? 904 : 776
        guard bytes.count >= firstChunk else {
            throw MIDIFileError(MIDIFileProblem(offset: 0, track: nil, kind: .malformedHMP(
                "the file ends inside the HMP header (size \(bytes.count), the header is \(firstChunk) bytes)")))
        }
        let claimed = word(48), ticksPerSecond = word(56)
        // A chunk is at least its 12-byte header: more than fit in the file is absurd.
        let room = (bytes.count - firstChunk) / 12
        var chunkCount = claimed
        if claimed > room {
            try defect("the header claims \(claimed) tracks; the file has room for at most \(room)", at: 48)
            chunkCount = room
        }
        var rate = ticksPerSecond
        if !HMITrackCursor.ticksPerSecond.contains(ticksPerSecond) {
            try defect("\(ticksPerSecond) ticks a second is not a tempo (\(HMITrackCursor.ticksPerSecond.lowerBound) to \(HMITrackCursor.ticksPerSecond.upperBound))", at: 56)
            rate = 120
        }

        var smf = SMFReader(bytes: bytes, mode: mode)
        var tracks: [MIDIFile.Track] = []
        var warnings: [MIDIFileProblem] = []
        var p = firstChunk
        for index in 0..<chunkCount {
            let number = index + 1
            guard p + 12 <= bytes.count else {
                try defect("the chunk of track \(number) of \(chunkCount) would start past the end of the file", at: p, track: number)
                break
            }
            var length = word(p + 4)
            if length < 12 || length > bytes.count - p {
                try defect("the chunk claims \(length) bytes (with its 12-byte header); \(bytes.count - p) are left in the file", at: p + 4, track: number)
                guard length >= 12 else { break }
                length = bytes.count - p
            }
            var cursor = HMITrackCursor(bytes: bytes, track: p + 12 ..< p + length, number: number, mode: mode, kind: MIDIFileProblem.Kind.malformedHMP)
            var events: [MIDIEvent] = []
            var tick = 0, ended = false
            read: while !cursor.isAtEnd {
                let start = cursor.position
                guard let delta = try cursor.reversedNumber(start) else { break }
                tick += delta
                switch try cursor.event(smf: &smf) {
                case .message(let message)?: events.append(MIDIEvent(tick: tick, message))
                case .end?: ended = true; break read
                case nil: break read
                }
            }
            if !ended { try cursor.defect("no End of Track", at: cursor.position) }
            events.append(MIDIEvent(tick: tick, .meta(.endOfTrack)))
            tracks.append(MIDIFile.Track(events: events))
            warnings += cursor.log.warnings
            p += length
        }
        guard !tracks.isEmpty else {
            throw MIDIFileError(MIDIFileProblem(offset: 48, track: nil, kind: .malformedHMP("no track")))
        }
        return HMITrackCursor.song(tracks, ticksPerSecond: rate, warnings: log.warnings + warnings + smf.warnings, origin: .hmp(variant: isVariant, ticksPerSecond: rate))
    }
}
