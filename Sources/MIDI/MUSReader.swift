/// id Software's MUS (Doom, Heretic, Hexen and their source ports) read into the sequence model
/// as a one-track Standard MIDI File: 140 ticks a second (division 70, tempo 500,000 µs), MUS
/// channel 15 (percussion) on MIDI channel 9 and the others on MIDI channels in the order the
/// score first uses them, skipping 9 — as Chocolate Doom's and WildMIDI's converters map
/// them — each starting at full volume (CC7 127, as DMX played them). A note without a
/// volume takes the channel's last one (127 before any). Every read is checked against the
/// score's end; a defect is an error when strict, a warning and the rest dropped when
/// lenient. Any thread.
enum MUSReader {
    /// The four bytes a MUS file starts with.
    static let magic: [UInt8] = [0x4D, 0x55, 0x53, 0x1A]   // "MUS" EOF
    /// MUS system events 10–14 as the MIDI channel-mode controllers they stand for.
    private static let modes: [UInt8: UInt8] = [10: 120, 11: 123, 12: 126, 13: 127, 14: 121]
    /// MUS controllers 1–9 as MIDI controllers (0 is a program change).
    private static let controllers: [UInt8] = [0, 0, 1, 7, 10, 11, 91, 93, 64, 67]

    /// The score in `bytes` as MIDI events, read strictly or leniently.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, mode: MIDIFile.ReadMode) throws(MIDIFileError) -> MIDIFile {
        var log = DefectLog(mode: mode)
        func defect(_ reason: String, at offset: Int) throws(MIDIFileError) { try log.report(.malformedMUS(reason), at: offset) }
        func word(_ p: Int) -> Int { Int(bytes[p]) | Int(bytes[p + 1]) << 8 }

        guard bytes.count >= 16 else {
            throw MIDIFileError(MIDIFileProblem(offset: 0, track: nil, kind: .malformedMUS("the file ends inside the MUS header (size \(bytes.count), the header is 16 bytes)")))
        }
        let scoreLength = word(4), scoreStart = word(6), primaryChannels = word(8), instruments = word(12)
        if primaryChannels > 15 { try defect("the header claims \(primaryChannels) primary channels; MUS has 15 besides percussion", at: 8) }
        if scoreStart < 16 + 2 * instruments {
            try defect("the score starts at byte \(scoreStart), inside the list of \(instruments) instruments that ends at byte \(16 + 2 * instruments)", at: 6)
        }
        var end = scoreStart + scoreLength
        if end > bytes.count {
            try defect("the score claims \(scoreLength) bytes from byte \(scoreStart), past the end of the file (size \(bytes.count))", at: 4)
            end = bytes.count
        }

        var events = [MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000)))]
        var channelMap = [Int](repeating: -1, count: 16)
        channelMap[15] = 9
        events.append(MIDIEvent(tick: 0, .controlChange(channel: 9, controller: 7, value: 127)))
        var nextChannel = 0
        var volume = [UInt8](repeating: 127, count: 16)
        var tick = 0
        var p = min(scoreStart, end)
        var ended = false
        read: while p < end {
            let start = p, status = bytes[p]
            p += 1
            /// The next score byte, `nil` (after the defect) at the score's end.
            func next() throws(MIDIFileError) -> UInt8? {
                guard p < end else {
                    try defect("the score ends inside an event", at: start)
                    return nil
                }
                p += 1
                return bytes[p - 1]
            }
            let type = (status >> 4) & 7
            let channel: MIDIChannel
            if channelMap[Int(status & 0x0F)] < 0 {   // on any event, as the converters do
                channelMap[Int(status & 0x0F)] = nextChannel
                events.append(MIDIEvent(tick: tick, .controlChange(channel: MIDIChannel(nextChannel), controller: 7, value: 127)))
                nextChannel += nextChannel == 8 ? 2 : 1
            }
            channel = MIDIChannel(max(channelMap[Int(status & 0x0F)], 0))
            switch type {
            case 0:
                guard let note = try next() else { break read }
                events.append(MIDIEvent(tick: tick, .noteOff(channel: channel, note: note & 0x7F, velocity: 64)))
            case 1:
                guard let note = try next() else { break read }
                if note & 0x80 != 0 {
                    guard let level = try next() else { break read }
                    volume[Int(channel)] = min(level, 127)
                }
                events.append(MIDIEvent(tick: tick, .noteOn(channel: channel, note: note & 0x7F, velocity: volume[Int(channel)])))
            case 2:
                guard let bend = try next() else { break read }
                events.append(MIDIEvent(tick: tick, .pitchBend(channel: channel, value: UInt16(bend) << 6)))
            case 3:
                guard let event = try next() else { break read }
                guard let controller = modes[event] else {
                    try defect("system event \(event) is not one of MUS's (10–14)", at: start)
                    break read
                }
                let value = event == 12 ? UInt8(clamping: primaryChannels + 1) : 0
                events.append(MIDIEvent(tick: tick, .controlChange(channel: channel, controller: controller, value: value)))
            case 4:
                guard let number = try next(), let value = try next() else { break read }
                guard Int(number) < controllers.count else {
                    try defect("controller \(number) is not one of MUS's (0–9)", at: start)
                    break read
                }
                events.append(MIDIEvent(tick: tick, number == 0 ? .programChange(channel: channel, program: value & 0x7F)
                                                              : .controlChange(channel: channel, controller: controllers[Int(number)], value: min(value, 127))))
            case 5:
                break   // end of a measure: nothing to play
            case 6:
                ended = true
                break read
            default:
                try defect("event type 7 is not a MUS event", at: start)
                break read
            }
            if status & 0x80 != 0 {
                var delay = 0
                for count in 1... {
                    guard let byte = try next() else { break read }
                    delay = delay << 7 | Int(byte & 0x7F)
                    if byte & 0x80 == 0 { break }
                    if count == 4 {
                        try defect("a delay longer than 4 bytes", at: p - 4)
                        break read
                    }
                }
                tick += delay
            }
        }
        if !ended { try defect("the score has no end event", at: p) }
        events.append(MIDIEvent(tick: tick, .meta(.endOfTrack)))
        var file = MIDIFile(format: 0, division: .ticksPerQuarter(70), tracks: [MIDIFile.Track(events: events)], warnings: log.warnings)
        let listed = (0..<instruments).map { 16 + 2 * $0 }.filter { $0 + 2 <= bytes.count }.map(word)
        file.origin = .mus(instruments: listed, scoreBytes: min(scoreLength, max(bytes.count - scoreStart, 0)))
        return file
    }
}
