/// The system-exclusive messages Pianola's synthesizer acts on (bytes without F0/F7): the
/// General MIDI, GS and XG resets, and GS's rhythm-part switch, which makes a channel play
/// drums (bank 128) or not (libfluidsynth 2.3 ignores the switch, and GS messages to any
/// device but 7F). Any thread.
public enum SystemExclusive: Equatable, Sendable {
    /// GM System On (or GM2's), Roland GS Reset, Yamaha XG System On. Any thread.
    case reset
    /// Roland GS "use for rhythm part" (address 40 1x 15): `channel` (0-based) plays drums or not. Any thread.
    case rhythmPart(channel: Int, drums: Bool)

    /// The message `data` is, or nil for one Pianola does not act on (or a GS message whose
    /// checksum is wrong). Any thread.
    public init?(_ data: UnsafeBufferPointer<UInt8>) {
        if data.count == 4, data[0] == 0x7E, data[2] == 0x09, data[3] == 0x01 || data[3] == 0x03 { self = .reset; return }
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
}
