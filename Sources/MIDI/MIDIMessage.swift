/// A MIDI channel number, 0...15 (musicians' channel 1 is `0`). Any thread.
public typealias MIDIChannel = UInt8

/// One event's content as it stands in a Standard MIDI File track: a channel message,
/// a system-exclusive packet, a system message found where the SMF spec forbids it, or a
/// meta event. Any thread.
public enum MIDIMessage: Hashable, Sendable {
    /// Note off (status 8n). Any thread.
    case noteOff(channel: MIDIChannel, note: UInt8, velocity: UInt8)
    /// Note on (status 9n); velocity 0 means note off, as the MIDI spec says. Any thread.
    case noteOn(channel: MIDIChannel, note: UInt8, velocity: UInt8)
    /// Polyphonic key pressure (status An). Any thread.
    case polyPressure(channel: MIDIChannel, note: UInt8, pressure: UInt8)
    /// Control change, including channel mode messages 120...127 (status Bn). Any thread.
    case controlChange(channel: MIDIChannel, controller: UInt8, value: UInt8)
    /// Program change (status Cn). Any thread.
    case programChange(channel: MIDIChannel, program: UInt8)
    /// Channel pressure (status Dn). Any thread.
    case channelPressure(channel: MIDIChannel, pressure: UInt8)
    /// Pitch bend (status En), 0...16383 with 8192 at the centre. Any thread.
    case pitchBend(channel: MIDIChannel, value: UInt16)
    /// An `F0` system-exclusive packet: the bytes after `F0` exactly as stored, including the
    /// closing `F7` when the packet has one (a packet without it continues in `F7` packets).
    /// Any thread.
    case sysex([UInt8])
    /// An `F7` "escape" packet: bytes to send as they are (a sysex continuation, or any
    /// real-time or common message). Any thread.
    case sysexEscape([UInt8])
    /// A system common or real-time message (`F1`...`FE` but `F7`/`FF`) stored inside a track,
    /// which the SMF spec does not allow; read only in lenient mode and never sent to a synth.
    /// Any thread.
    case system(status: UInt8, data: [UInt8])
    /// A meta event (`FF type length data`). Any thread.
    case meta(MetaEvent)

    /// The channel of a channel message, `nil` for every other kind. Any thread.
    public var channel: MIDIChannel? {
        switch self {
        case .noteOff(let c, _, _), .noteOn(let c, _, _), .polyPressure(let c, _, _),
             .controlChange(let c, _, _), .programChange(let c, _), .channelPressure(let c, _),
             .pitchBend(let c, _):
            return c
        default:
            return nil
        }
    }

    /// True for a system common or real-time message (clock, transport, timecode). Any thread.
    public var isSystem: Bool {
        if case .system = self { return true }
        return false
    }

    /// True for a note-on with velocity above 0 (a note that sounds). Any thread.
    public var isSoundingNoteOn: Bool {
        if case .noteOn(_, _, let velocity) = self { return velocity > 0 }
        return false
    }

    /// The bytes on a MIDI cable: status and data, sysex framed by F0 … F7; empty for meta
    /// events, which never leave the file. Any thread.
    public var wireBytes: [UInt8] {
        switch self {
        case .noteOff(let c, let n, let v): return [0x80 | c, n, v]
        case .noteOn(let c, let n, let v): return [0x90 | c, n, v]
        case .polyPressure(let c, let n, let p): return [0xA0 | c, n, p]
        case .controlChange(let c, let n, let v): return [0xB0 | c, n, v]
        case .programChange(let c, let p): return [0xC0 | c, p]
        case .channelPressure(let c, let p): return [0xD0 | c, p]
        case .pitchBend(let c, let v): return [0xE0 | c, UInt8(v & 0x7F), UInt8((v >> 7) & 0x7F)]
        case .sysex(let data): return [0xF0] + data + (data.last == 0xF7 ? [] : [0xF7])
        case .sysexEscape(let data): return data
        case .system(let status, let data): return [status] + data
        case .meta: return []
        }
    }

    /// A channel message from its cable bytes, status first (`wireBytes` of one); `nil` for
    /// anything else or too few bytes. Data bytes are masked to 7 bits. Any thread.
    public init?(channelBytes b: [UInt8]) {
        guard let status = b.first, status >= 0x80, status < 0xF0, b.count >= Self.channelDataLength(status) + 1 else { return nil }
        self.init(channelStatus: status, b.count > 1 ? b[1] & 0x7F : 0, b.count > 2 ? b[2] & 0x7F : 0)
    }

    /// The channel message with status `status` (80–EF) and data bytes `d1`, `d2` (`d2` is
    /// ignored by program change and channel pressure). Any thread.
    public init(channelStatus status: UInt8, _ d1: UInt8, _ d2: UInt8) {
        let c = status & 0x0F
        switch status & 0xF0 {
        case 0x80: self = .noteOff(channel: c, note: d1, velocity: d2)
        case 0x90: self = .noteOn(channel: c, note: d1, velocity: d2)
        case 0xA0: self = .polyPressure(channel: c, note: d1, pressure: d2)
        case 0xB0: self = .controlChange(channel: c, controller: d1, value: d2)
        case 0xC0: self = .programChange(channel: c, program: d1)
        case 0xD0: self = .channelPressure(channel: c, pressure: d1)
        default: self = .pitchBend(channel: c, value: UInt16(d1) | UInt16(d2) << 7)
        }
    }
}

/// One event of a track: a message at an absolute tick (the file's resolution). Any thread.
public struct MIDIEvent: Hashable, Sendable {
    /// Position in ticks from the start of the track. Any thread.
    public var tick: Int
    /// What happens at that tick. Any thread.
    public var message: MIDIMessage

    /// Makes an event at `tick`. Any thread.
    public init(tick: Int, _ message: MIDIMessage) {
        precondition(tick >= 0, "an event's tick is never negative")
        self.tick = tick
        self.message = message
    }
}

extension Array where Element == MIDIEvent {
    /// The events sorted by tick, keeping the given order among events at the same tick
    /// (returns them unchanged when already in order). Any thread.
    public func timeOrdered() -> [MIDIEvent] {
        if zip(self, dropFirst()).allSatisfy({ $0.tick <= $1.tick }) { return self }
        return enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
    }
}

extension MIDIMessage {
    /// The number of data bytes that follow a system status byte (`F1`...`FE`) in a MIDI
    /// stream: 1 for `F1`/`F3`, 2 for `F2`, none for the rest. Any thread.
    static func systemDataLength(_ status: UInt8) -> Int {
        switch status {
        case 0xF1, 0xF3: return 1
        case 0xF2: return 2
        default: return 0
        }
    }

    /// The number of data bytes that follow any status byte in a MIDI stream (a channel
    /// message's, or a system message's: 2 for Song Position Pointer, none for clock). Any thread.
    public static func dataLength(afterStatus status: UInt8) -> Int {
        status < 0xF0 ? channelDataLength(status) : systemDataLength(status)
    }

    /// The number of data bytes of a channel message with this status byte. Any thread.
    public static func channelDataLength(_ status: UInt8) -> Int {
        switch status & 0xF0 {
        case 0xC0, 0xD0: return 1
        default: return 2
        }
    }
}
