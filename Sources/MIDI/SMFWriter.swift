extension MIDIFile {
    /// The file as Standard MIDI File bytes. Each track gets an End of Track at its last event
    /// if it lacks one, and events after an End of Track are not written. With `runningStatus`,
    /// repeated channel status bytes are left out (sysex and meta events cancel it, as SMF
    /// says). Any thread.
    public func serialized(runningStatus: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(14 + tracks.reduce(0) { $0 + 8 + $1.events.count * 4 })
        out.append(contentsOf: Array("MThd".utf8))
        out.appendBigEndian(UInt32(6))
        out.appendBigEndian(UInt16(truncatingIfNeeded: format))
        out.appendBigEndian(UInt16(truncatingIfNeeded: tracks.count))
        out.appendBigEndian(division.headerValue)
        for track in tracks {
            out.append(contentsOf: Array("MTrk".utf8))
            let lengthAt = out.count
            out.appendBigEndian(UInt32(0))
            var writer = SMFTrackWriter(runningStatus: runningStatus)
            writer.write(track.events, into: &out)
            let length = UInt32(out.count - lengthAt - 4)
            out.replaceSubrange(lengthAt ..< lengthAt + 4, with: length.bigEndianBytes)
        }
        return out
    }
}

/// Writes one track's events as delta-timed SMF events.
struct SMFTrackWriter {
    let runningStatus: Bool
    private var lastStatus: UInt8 = 0
    private var lastTick = 0

    /// The largest delta time a variable-length number holds.
    static let longestDelta = 0x0FFF_FFFF

    init(runningStatus: Bool) { self.runningStatus = runningStatus }

    mutating func write(_ events: [MIDIEvent], into out: inout [UInt8]) {
        let sorted = events.timeOrdered()
        for event in sorted {
            write(event, into: &out)
            if case .meta(.endOfTrack) = event.message { return }
        }
        write(MIDIEvent(tick: sorted.last?.tick ?? 0, .meta(.endOfTrack)), into: &out)
    }

    private mutating func write(_ event: MIDIEvent, into out: inout [UInt8]) {
        // A gap too long for one variable-length delta (a merged or hand-made track can have
        // one) is bridged with empty text events, which readers pass over.
        var delta = max(0, event.tick - lastTick)
        while delta > Self.longestDelta {
            out.appendVLQ(Self.longestDelta)
            out.append(contentsOf: [0xFF, 0x01, 0x00])
            lastStatus = 0
            delta -= Self.longestDelta
        }
        out.appendVLQ(delta)
        lastTick = max(lastTick, event.tick)
        func channel(_ kind: UInt8, _ c: MIDIChannel, _ data: UInt8...) {
            let status = kind | (c & 0x0F)
            if !(runningStatus && status == lastStatus) { out.append(status) }
            lastStatus = status
            out.append(contentsOf: data.map { $0 & 0x7F })
        }
        func packet(_ status: UInt8, _ data: [UInt8]) {
            out.append(status)
            out.appendVLQ(data.count)
            out.append(contentsOf: data)
            lastStatus = 0
        }
        switch event.message {
        case .noteOff(let c, let n, let v): channel(0x80, c, n, v)
        case .noteOn(let c, let n, let v): channel(0x90, c, n, v)
        case .polyPressure(let c, let n, let p): channel(0xA0, c, n, p)
        case .controlChange(let c, let n, let v): channel(0xB0, c, n, v)
        case .programChange(let c, let p): channel(0xC0, c, p)
        case .channelPressure(let c, let p): channel(0xD0, c, p)
        case .pitchBend(let c, let v): channel(0xE0, c, UInt8(v & 0x7F), UInt8((v >> 7) & 0x7F))
        case .sysex(let data): packet(0xF0, data)
        case .sysexEscape(let data): packet(0xF7, data)
        case .system(let status, let data):
            // Not an SMF event: keep it as an escaped packet, which is how SMF stores such bytes.
            packet(0xF7, [status] + data)
        case .meta(let meta):
            out.append(0xFF)
            packet(meta.typeByte, meta.dataBytes)
        }
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ v: UInt32) { append(contentsOf: v.bigEndianBytes) }

    mutating func appendBigEndian(_ v: UInt16) { append(contentsOf: [UInt8(v >> 8), UInt8(v & 0xFF)]) }

    /// Appends a MIDI variable-length quantity (0...0x0FFFFFFF).
    mutating func appendVLQ(_ value: Int) {
        precondition(value >= 0 && value <= 0x0FFF_FFFF, "a MIDI variable-length number fits in 28 bits")
        var shift = 21
        while shift > 0 && value >> shift == 0 { shift -= 7 }
        while shift > 0 {
            append(UInt8((value >> shift) & 0x7F) | 0x80)
            shift -= 7
        }
        append(UInt8(value & 0x7F))
    }
}

extension UInt32 {
    var bigEndianBytes: [UInt8] {
        [UInt8(self >> 24), UInt8((self >> 16) & 0xFF), UInt8((self >> 8) & 0xFF), UInt8(self & 0xFF)]
    }
}
