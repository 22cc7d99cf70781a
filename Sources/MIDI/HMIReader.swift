/// Human Machine Interfaces' HMI songs ("HMI-MIDISONG061595": Descent II, Duke Nukem 3D's
/// and other Sound Operating System games) read into the sequence model: each track of the
/// song's track table one track of a format 1 file, at the header's ticks a second (division
/// 60, as for HMP). A note-on carries its duration, which becomes its note-off; HMI's own
/// `FE` events (branch points and driver data) are skipped; controllers 110/111 (loop start
/// and end) become `loopStart` and `loopEnd` markers. Every read is checked against its
/// track and the file; a defect is an error when strict, a warning and the rest of that
/// track dropped when lenient. Any thread.
enum HMIReader {
    /// The eighteen bytes an HMI file starts with.
    static let magic = Array("HMI-MIDISONG061595".utf8)
    /// The bytes each track starts with.
    private static let trackMagic = Array("HMI-MIDITRACK".utf8)
    /// Where the song header keeps its numbers.
    private static let rateOffset = 212, trackCountOffset = 228, trackTableOffset = 370
    /// Where a track header keeps its own length; the shortest track header.
    private static let trackHeaderLengthOffset = 0x57, trackHeaderMinimum = 0x5B

    /// The song in `bytes`, read strictly or leniently.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, mode: MIDIFile.ReadMode) throws(MIDIFileError) -> MIDIFile {
        var log = DefectLog(mode: mode)
        func defect(_ reason: String, at offset: Int, track: Int? = nil) throws(MIDIFileError) { try log.report(.malformedHMI(reason), at: offset, track: track) }
        func word(_ p: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[p + $1]) << (8 * $1) } }

        guard bytes.count > trackTableOffset else {
            throw MIDIFileError(MIDIFileProblem(offset: 0, track: nil, kind: .malformedHMI(
                "the file ends inside the HMI header (size \(bytes.count), the header is \(trackTableOffset) bytes)")))
        }
        var rate = Int(bytes[rateOffset])
        if !HMITrackCursor.ticksPerSecond.contains(rate) {
            try defect("\(rate) ticks a second is not a tempo (\(HMITrackCursor.ticksPerSecond.lowerBound) to 255)", at: rateOffset)
            rate = 120
        }
        let claimed = Int(bytes[trackCountOffset])
        let room = (bytes.count - trackTableOffset) / 4
        var trackCount = claimed
        if claimed > room {
            try defect("the header claims \(claimed) tracks; the track table has room for \(room)", at: trackCountOffset)
            trackCount = room
        }
        let offsets = (0..<trackCount).map { word(trackTableOffset + 4 * $0) }

        var smf = SMFReader(bytes: bytes, mode: mode)
        var tracks: [MIDIFile.Track] = []
        var warnings: [MIDIFileProblem] = []
        for (index, offset) in offsets.enumerated() {
            let number = index + 1, entry = trackTableOffset + 4 * index
            guard offset <= bytes.count - trackHeaderMinimum, Array(bytes[offset ..< offset + trackMagic.count]) == trackMagic else {
                try defect("the track table points at byte \(offset), where no 'HMI-MIDITRACK' header is", at: entry, track: number)
                continue
            }
            let headerLength = word(offset + trackHeaderLengthOffset)
            // A track runs to the next track (in file order) or to the end of the file.
            let end = offsets.filter { $0 > offset }.min().map { min($0, bytes.count) } ?? bytes.count
            guard headerLength >= trackHeaderMinimum, headerLength <= end - offset else {
                try defect("its header claims \(headerLength) bytes; the track holds \(end - offset)", at: offset + trackHeaderLengthOffset, track: number)
                continue
            }
            var cursor = HMITrackCursor(bytes: bytes, track: offset + headerLength ..< end, number: number, mode: mode, kind: MIDIFileProblem.Kind.malformedHMI)
            tracks.append(MIDIFile.Track(events: try events(&cursor, smf: &smf)))
            warnings += cursor.log.warnings
        }
        guard !tracks.isEmpty else {
            throw MIDIFileError(MIDIFileProblem(offset: trackCountOffset, track: nil, kind: .malformedHMI("no track")))
        }
        return HMITrackCursor.song(tracks, ticksPerSecond: rate, warnings: log.warnings + warnings + smf.warnings, origin: .hmi(ticksPerSecond: rate))
    }

    /// One track's events, durations made note-offs, in time order with End of Track last.
    private static func events(_ cursor: inout HMITrackCursor, smf: inout SMFReader) throws(MIDIFileError) -> [MIDIEvent] {
        var events: [MIDIEvent] = []
        var tick = 0, ended = false
        read: while !cursor.isAtEnd {
            let start = cursor.position
            guard let delta = try cursor.number(start) else { break }
            tick += delta
            if cursor.position < cursor.end, cursor.bytes[cursor.position] == 0xFE {
                // HMI's own event: FE 10 carries a length at its fifth byte (the event is 9
                // bytes more), FE 15 is 8 bytes, any other 4.
                guard let head = try cursor.take(2, start, what: "an HMI FE event") else { break }
                let rest: Int
                switch head[1] {
                case 0x10:
                    guard let more = try cursor.take(3, start, what: "an HMI FE 10 event") else { break read }
                    rest = Int(more[2]) + 4
                case 0x15: rest = 6
                default: rest = 2
                }
                guard try cursor.take(rest, start, what: "an HMI FE \(head[1].hexDigits) event") != nil else { break }
                continue
            }
            switch try cursor.event(smf: &smf) {
            case .message(let message)?:
                events.append(MIDIEvent(tick: tick, message))
                if case .noteOn(let channel, let note, let velocity) = message {
                    guard let duration = try cursor.number(start) else { break read }
                    if velocity > 0 { events.append(MIDIEvent(tick: tick + duration, .noteOff(channel: channel, note: note, velocity: 0))) }
                }
            case .end?: ended = true; break read
            case nil: break read
            }
        }
        if !ended { try cursor.defect("no End of Track", at: cursor.position) }
        events = events.timeOrdered()
        events.append(MIDIEvent(tick: max(tick, events.last?.tick ?? 0), .meta(.endOfTrack)))
        return events
    }
}
