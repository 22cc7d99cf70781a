@testable import MIDI

/// Builds Standard MIDI File bytes by hand, byte by byte, for reader tests.
enum SMFBytes {
    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func header(format: Int = 1, tracks: Int, division: Int = 96) -> [UInt8] {
        Array("MThd".utf8) + be32(6) + [UInt8(format >> 8), UInt8(format & 0xFF), UInt8(tracks >> 8),
                                         UInt8(tracks & 0xFF), UInt8(division >> 8 & 0xFF), UInt8(division & 0xFF)]
    }

    static func chunk(_ id: String, _ data: [UInt8], length: Int? = nil) -> [UInt8] {
        Array(id.utf8) + be32(length ?? data.count) + data
    }

    static func track(_ data: [UInt8]) -> [UInt8] { chunk("MTrk", data) }

    static let endOfTrack: [UInt8] = [0x00, 0xFF, 0x2F, 0x00]

    static func file(format: Int = 0, division: Int = 96, _ tracks: [UInt8]...) -> [UInt8] {
        header(format: format, tracks: tracks.count, division: division) + tracks.flatMap(track)
    }
}
