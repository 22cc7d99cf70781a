/// A meta event of a Standard MIDI File (`FF type length data`), every type of the SMF 1.0
/// spec typed; anything else is kept whole as `.unknown`. Text is kept as the file's bytes
/// (SMF text has no declared encoding); `text` decodes it as Latin-1. Any thread.
public enum MetaEvent: Hashable, Sendable {
    /// `FF 00 02 ssss`: sequence number, or `FF 00 00` (number from the track's position). Any thread.
    case sequenceNumber(UInt16?)
    /// `FF 01`...`FF 0F`: the text kinds. Any thread.
    case text(TextKind, [UInt8])
    /// `FF 20 01 cc`: channel prefix. Any thread.
    case channelPrefix(UInt8)
    /// `FF 21 01 pp`: MIDI port. Any thread.
    case port(UInt8)
    /// `FF 2F 00`: end of track. Any thread.
    case endOfTrack
    /// `FF 51 03 tttttt`: tempo in microseconds per quarter note. Any thread.
    case tempo(microsecondsPerQuarter: UInt32)
    /// `FF 54 05 hr mn se fr ff`: SMPTE offset of the track's start. Any thread.
    case smpteOffset(SMPTEOffset)
    /// `FF 58 04 nn dd cc bb`: time signature. Any thread.
    case timeSignature(TimeSignature)
    /// `FF 59 02 sf mi`: key signature. Any thread.
    case keySignature(KeySignature)
    /// `FF 7F len data`: sequencer-specific. Any thread.
    case sequencerSpecific([UInt8])
    /// Any other type, or a known type whose length is wrong (read in lenient mode only), kept
    /// as stored so that it is written back unchanged. Any thread.
    case unknown(type: UInt8, data: [UInt8])

    /// The kinds of text meta events, by type byte. Any thread.
    public enum TextKind: UInt8, Hashable, Sendable, CaseIterable {
        /// `FF 01` general text. Any thread.
        case text = 0x01
        /// `FF 02` copyright notice. Any thread.
        case copyright = 0x02
        /// `FF 03` sequence or track name. Any thread.
        case trackName = 0x03
        /// `FF 04` instrument name. Any thread.
        case instrumentName = 0x04
        /// `FF 05` lyric. Any thread.
        case lyric = 0x05
        /// `FF 06` marker. Any thread.
        case marker = 0x06
        /// `FF 07` cue point. Any thread.
        case cuePoint = 0x07
        /// `FF 08` program name (RP-019). Any thread.
        case programName = 0x08
        /// `FF 09` device name (RP-019). Any thread.
        case deviceName = 0x09
        /// `FF 0A`...`FF 0F`: reserved text kinds. Any thread.
        case reserved0A = 0x0A, reserved0B = 0x0B, reserved0C = 0x0C
        /// Reserved text kinds, continued. Any thread.
        case reserved0D = 0x0D, reserved0E = 0x0E, reserved0F = 0x0F
    }

    /// The meta type byte (the `tt` of `FF tt`). Any thread.
    public var typeByte: UInt8 {
        switch self {
        case .sequenceNumber: return 0x00
        case .text(let kind, _): return kind.rawValue
        case .channelPrefix: return 0x20
        case .port: return 0x21
        case .endOfTrack: return 0x2F
        case .tempo: return 0x51
        case .smpteOffset: return 0x54
        case .timeSignature: return 0x58
        case .keySignature: return 0x59
        case .sequencerSpecific: return 0x7F
        case .unknown(let type, _): return type
        }
    }

    /// The data bytes as they are written after the length. Any thread.
    public var dataBytes: [UInt8] {
        switch self {
        case .sequenceNumber(let n?): return [UInt8(n >> 8), UInt8(n & 0xFF)]
        case .sequenceNumber(nil): return []
        case .text(_, let bytes): return bytes
        case .channelPrefix(let c): return [c]
        case .port(let p): return [p]
        case .endOfTrack: return []
        case .tempo(let t): return [UInt8((t >> 16) & 0xFF), UInt8((t >> 8) & 0xFF), UInt8(t & 0xFF)]
        case .smpteOffset(let o): return [o.hoursByte, o.minutes, o.seconds, o.frames, o.subframes]
        case .timeSignature(let s):
            return [s.numerator, s.denominatorPower, s.clocksPerClick, s.thirtySecondsPerQuarter]
        case .keySignature(let k): return [UInt8(bitPattern: k.sharps), k.isMinor ? 1 : 0]
        case .sequencerSpecific(let bytes): return bytes
        case .unknown(_, let bytes): return bytes
        }
    }

    /// A text event holding `string`: Latin-1 bytes when every character fits (so it reads back
    /// the same), otherwise UTF-8. Any thread.
    public static func text(_ kind: TextKind, string: String) -> MetaEvent {
        let scalars = string.unicodeScalars
        if scalars.allSatisfy({ $0.value < 256 }) { return .text(kind, scalars.map { UInt8($0.value) }) }
        return .text(kind, Array(string.utf8))
    }

    /// The text of a text event decoded as Latin-1 (every byte is a character), else `nil`.
    /// Any thread.
    public var text: String? {
        guard case .text(_, let bytes) = self else { return nil }
        return String(latin1: bytes)
    }
}

extension String {
    /// Decodes bytes as ISO-8859-1, where each byte is the code point of the same value. Any thread.
    package init(latin1 bytes: [UInt8]) {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        self = String(scalars)
    }
}

/// A time signature (`FF 58`): `numerator`/2^`denominatorPower`, with the metronome fields.
/// Any thread.
public struct TimeSignature: Hashable, Sendable {
    /// Beats per bar. Any thread.
    public var numerator: UInt8
    /// The beat unit as a power of two: 2 means a quarter (4), 3 an eighth (8). Any thread.
    public var denominatorPower: UInt8
    /// MIDI clocks per metronome click. Any thread.
    public var clocksPerClick: UInt8
    /// Notated 32nd notes per MIDI quarter note (normally 8). Any thread.
    public var thirtySecondsPerQuarter: UInt8

    /// Makes a time signature; `denominator` must be a power of two (4 for x/4). Any thread.
    public init(_ numerator: UInt8, _ denominator: Int, clocksPerClick: UInt8 = 24,
                thirtySecondsPerQuarter: UInt8 = 8) {
        precondition(denominator > 0 && denominator & (denominator - 1) == 0 && denominator <= 1 << 30,
                     "a time signature's denominator is a power of two")
        self.init(numerator: numerator, denominatorPower: UInt8(denominator.trailingZeroBitCount),
                  clocksPerClick: clocksPerClick, thirtySecondsPerQuarter: thirtySecondsPerQuarter)
    }

    /// Makes a time signature from its stored fields. Any thread.
    public init(numerator: UInt8, denominatorPower: UInt8, clocksPerClick: UInt8, thirtySecondsPerQuarter: UInt8) {
        self.numerator = numerator
        self.denominatorPower = denominatorPower
        self.clocksPerClick = clocksPerClick
        self.thirtySecondsPerQuarter = thirtySecondsPerQuarter
    }

    /// The denominator as a number (4 for 3/4), or `nil` when the stored power is too large
    /// to mean a note value. Any thread.
    public var denominator: Int? { denominatorPower < 31 ? 1 << Int(denominatorPower) : nil }
}

/// A key signature (`FF 59`): sharps (negative: flats) and major/minor. Any thread.
public struct KeySignature: Hashable, Sendable {
    /// −7...7: flats below zero, sharps above. Any thread.
    public var sharps: Int8
    /// True for a minor key. Any thread.
    public var isMinor: Bool

    /// Makes a key signature. Any thread.
    public init(sharps: Int8, isMinor: Bool) {
        self.sharps = sharps
        self.isMinor = isMinor
    }

    /// The key's name, such as `Bb` or `F#m`; `nil` outside −7...7. Any thread.
    public var name: String? {
        guard (-7...7).contains(sharps) else { return nil }
        let major = ["Cb", "Gb", "Db", "Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#"]
        let minor = ["Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#", "G#", "D#", "A#"]
        let index = Int(sharps) + 7
        return isMinor ? minor[index] + "m" : major[index]
    }
}

/// An SMPTE offset (`FF 54`). The hours byte carries the frame rate in bits 5–6. Any thread.
public struct SMPTEOffset: Hashable, Sendable {
    /// The stored hours byte: `0rrhhhhh`. Any thread.
    public var hoursByte: UInt8
    /// Minutes. Any thread.
    public var minutes: UInt8
    /// Seconds. Any thread.
    public var seconds: UInt8
    /// Frames. Any thread.
    public var frames: UInt8
    /// Hundredths of a frame. Any thread.
    public var subframes: UInt8

    /// Makes an offset from its stored bytes. Any thread.
    public init(hoursByte: UInt8, minutes: UInt8, seconds: UInt8, frames: UInt8, subframes: UInt8) {
        self.hoursByte = hoursByte
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
        self.subframes = subframes
    }

    /// Hours, 0...23 (the low five bits of the hours byte). Any thread.
    public var hours: UInt8 { hoursByte & 0x1F }

    /// The frame rate coded in the hours byte. Any thread.
    public var rate: SMPTERate { SMPTERate.allCases[Int((hoursByte >> 5) & 0x03)] }
}
