/// The system-exclusive messages Pianola's synthesizer acts on (bytes without F0/F7): the
/// General MIDI, GS and XG resets, GS's rhythm-part switch, which makes a channel play drums
/// (bank 128) or not (libfluidsynth 2.3 ignores the switch, and GS messages to any device but
/// 7F), and the MIDI Tuning Standard's scale/octave and single-note tunings, as libfluidsynth
/// reads them (a bulk tuning dump, which it ignores, is ignored too). Messages to any device
/// are taken. Any thread.
package enum SystemExclusive: Equatable, Sendable {
    /// GM System On (or GM2's), Roland GS Reset, Yamaha XG System On. Any thread.
    case reset
    /// Roland GS "use for rhythm part" (address 40 1x 15): `channel` (0-based) plays drums or not. Any thread.
    case rhythmPart(channel: Int, drums: Bool)
    /// MTS scale/octave tuning (08 08 one byte a note, 08 09 two): the cents each of the 12
    /// notes of the octave (C first, in lanes 0-11) is moved by, for the channels whose bits
    /// `channels` sets (bit 0 for channel 1); `realtime` when sounding notes follow. Any thread.
    case octaveTuning(channels: UInt16, cents: SIMD16<Double>, realtime: Bool)
    /// MTS single-note tuning change (08 02, or 08 07 with a bank) of tuning `program` of
    /// `bank`: four bytes a key in `changes` (its indices in the message): the key, then its
    /// pitch as a semitone and a 14-bit fraction. Any thread.
    case noteTuning(bank: Int, program: Int, changes: Range<Int>, realtime: Bool)

    /// The message `data` is, or nil for one Pianola does not act on (or a GS message whose
    /// checksum is wrong). Any thread.
    public init?(_ data: UnsafeBufferPointer<UInt8>) {
        if data.count == 4, data[0] == 0x7E, data[2] == 0x09, data[3] == 0x01 || data[3] == 0x03 { self = .reset; return }
        if data.count >= 4, data[0] == 0x7E || data[0] == 0x7F, data[2] == 0x08 {
            guard let tuning = Self.tuning(data) else { return nil }
            self = tuning
            return
        }
        if data.count == 7, data[0] == 0x43, data[1] & 0xF0 == 0x10, data[2] == 0x4C, data[3] == 0x00, data[4] == 0x00, data[5] == 0x7E, data[6] == 0x00 {
            self = .reset
            return
        }
        // Roland DT1 to a GS device: 41 dev 42 12, a three-byte address, one data byte, a checksum.
        guard data.count == 9, data[0] == 0x41, data[2] == 0x42, data[3] == 0x12 else { return nil }
        var sum = 0
        for i in 4..<8 { sum += Int(data[i]) }
        guard (128 - sum % 128) % 128 == Int(data[8]) else { return nil }
        if data[4] == 0x40, data[5] == 0x00, data[6] == 0x7F, data[7] == 0x00 { self = .reset; return }
        guard data[4] == 0x40, data[5] & 0xF0 == 0x10, data[6] == 0x15 else { return nil }
        // GS numbers its parts 10, 1-9, 11-16 in the address's low nibble.
        let part = Int(data[5] & 0x0F)
        self = .rhythmPart(channel: part == 0 ? 9 : part <= 9 ? part - 1 : part, drums: data[7] != 0)
    }

    /// An MTS message as libfluidsynth reads it: exactly as long as its counts say, every
    /// byte below 0x80, or nil.
    private static func tuning(_ data: UnsafeBufferPointer<UInt8>) -> SystemExclusive? {
        let realtime = data[0] == 0x7F
        guard data.allSatisfy({ $0 < 0x80 }) else { return nil }
        switch data[3] {
        case 0x02, 0x07:
            let withBank = data[3] == 0x07
            let first = withBank ? 7 : 6
            guard data.count >= first + 4, data.count == first + 4 * Int(data[first - 1]) else { return nil }
            return .noteTuning(bank: withBank ? Int(data[4]) : 0, program: Int(data[first - 2]), changes: first..<data.count, realtime: realtime)
        case 0x08, 0x09:
            let twoBytes = data[3] == 0x09
            guard data.count == (twoBytes ? 31 : 19) else { return nil }
            var cents = SIMD16<Double>()
            for note in 0..<12 {
                if twoBytes {
                    let value: Int = Int(data[7 + 2 * note]) << 7 | Int(data[8 + 2 * note])
                    cents[note] = Double(value - 8_192) * (200.0 / 16_384.0)
                } else {
                    cents[note] = Double(Int(data[7 + note]) - 64)
                }
            }
            let channels: UInt16 = UInt16(data[4] & 0x03) << 14 | UInt16(data[5]) << 7 | UInt16(data[6])
            return .octaveTuning(channels: channels, cents: cents, realtime: realtime)
        default:
            return nil
        }
    }
}
