/// The SMPTE frame rates a MIDI file or an SMPTE offset can name. Any thread.
public enum SMPTERate: Hashable, Sendable, CaseIterable {
    /// 24 frames per second (film). Any thread.
    case fps24
    /// 25 frames per second (PAL). Any thread.
    case fps25
    /// 29.97 frames per second, drop-frame timecode (NTSC; coded as 29 in a file). Any thread.
    case fps29_97Drop
    /// 30 frames per second, non-drop. Any thread.
    case fps30

    /// The frame count used in timecode labels: 24, 25, 30 or 30. Any thread.
    public var nominalFramesPerSecond: Int {
        switch self {
        case .fps24: return 24
        case .fps25: return 25
        case .fps29_97Drop, .fps30: return 30
        }
    }

    /// The real rate as a fraction: frames = seconds × numerator / denominator. Any thread.
    public var framesPerSecond: (numerator: Int, denominator: Int) {
        switch self {
        case .fps24: return (24, 1)
        case .fps25: return (25, 1)
        case .fps29_97Drop: return (30000, 1001)
        case .fps30: return (30, 1)
        }
    }

    /// The value a MIDI file header stores (negated in its top byte): 24, 25, 29 or 30. Any thread.
    public var headerCode: Int {
        switch self {
        case .fps24: return 24
        case .fps25: return 25
        case .fps29_97Drop: return 29
        case .fps30: return 30
        }
    }

    /// The rate for a header code, `nil` for any other number. Any thread.
    public init?(headerCode: Int) {
        guard let rate = SMPTERate.allCases.first(where: { $0.headerCode == headerCode }) else { return nil }
        self = rate
    }
}

/// How a MIDI file counts time: ticks per quarter note, or SMPTE frames × ticks per frame.
/// Any thread.
public enum Division: Hashable, Sendable {
    /// Metrical time: ticks per quarter note (1...32767). Any thread.
    case ticksPerQuarter(Int)
    /// Time-code based: `ticksPerFrame` subdivisions of each frame at `framesPerSecond` as the
    /// header codes it (24, 25, 29 for 29.97 drop-frame, 30; lenient reading keeps other codes).
    /// Any thread.
    case smpte(framesPerSecond: Int, ticksPerFrame: Int)

    /// SMPTE division at a standard rate. Any thread.
    public static func smpte(_ rate: SMPTERate, ticksPerFrame: Int) -> Division {
        .smpte(framesPerSecond: rate.headerCode, ticksPerFrame: ticksPerFrame)
    }

    /// The 16-bit header field. Any thread.
    public var headerValue: UInt16 {
        switch self {
        case .ticksPerQuarter(let t): return UInt16(t)
        case .smpte(let fps, let tpf):
            return UInt16(UInt8(bitPattern: Int8(truncatingIfNeeded: -fps))) << 8 | UInt16(tpf & 0xFF)
        }
    }

    /// Ticks per second as a fraction for SMPTE division (code 29 counts 29.97 frames a
    /// second), `nil` for metrical division. Any thread.
    public var smpteTicksPerSecond: (numerator: Int, denominator: Int)? {
        guard case .smpte(let fps, let tpf) = self else { return nil }
        if fps == 29 { return (30000 * tpf, 1001) }
        return (fps * tpf, 1)
    }
}

/// An SMPTE timecode position: hours, minutes, seconds, frames and subframes (1/100 frame).
/// For 29.97 drop-frame, frame labels 0 and 1 are skipped at the start of each minute but
/// every tenth. Any thread.
public struct SMPTETime: Hashable, Sendable, CustomStringConvertible {
    /// Hours. Any thread.
    public var hours: Int
    /// Minutes, 0...59. Any thread.
    public var minutes: Int
    /// Seconds, 0...59. Any thread.
    public var seconds: Int
    /// Frame label within the second. Any thread.
    public var frames: Int
    /// Hundredths of a frame, 0...99. Any thread.
    public var subframes: Int
    /// The rate the labels count in. Any thread.
    public var rate: SMPTERate

    /// Makes a timecode from its fields. Any thread.
    public init(hours: Int, minutes: Int, seconds: Int, frames: Int, subframes: Int = 0, rate: SMPTERate) {
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
        self.subframes = subframes
        self.rate = rate
    }

    /// The timecode of a position given in hundredths of a frame from zero (real frames, so
    /// 29.97 drop-frame labels skip as the standard says). Any thread.
    public init(subframeCount: Int, rate: SMPTERate) {
        precondition(subframeCount >= 0, "timecode positions are not negative")
        var frameNumber = subframeCount / 100
        let sub = subframeCount % 100
        if rate == .fps29_97Drop {
            // 17982 real frames per 10 minutes; 1798 per dropped minute; 2 labels dropped a minute.
            let tens = frameNumber / 17982
            let rest = frameNumber % 17982
            let dropped = rest < 2 ? 0 : 2 * ((rest - 2) / 1798)
            frameNumber += 18 * tens + dropped
        }
        let fps = rate.nominalFramesPerSecond
        self.init(hours: frameNumber / (fps * 3600), minutes: frameNumber / (fps * 60) % 60,
                  seconds: frameNumber / fps % 60, frames: frameNumber % fps, subframes: sub, rate: rate)
    }

    /// The position in hundredths of a real frame from zero (the inverse of
    /// `init(subframeCount:rate:)`). Any thread.
    public var subframeCount: Int {
        let fps = rate.nominalFramesPerSecond
        let totalMinutes = hours * 60 + minutes
        var frameNumber = (totalMinutes * 60 + seconds) * fps + frames
        if rate == .fps29_97Drop {
            frameNumber -= 2 * (totalMinutes - totalMinutes / 10)
        }
        return frameNumber * 100 + subframes
    }

    /// The timecode at `seconds` from zero, rounded down to the subframe (held at zero and at
    /// the last subframe an Int counts). Any thread.
    public init(seconds: Double, rate: SMPTERate) {
        let (num, den) = rate.framesPerSecond
        let subframes = (seconds * Double(num) * 100 / Double(den)).rounded(.down)
        self.init(subframeCount: subframes.isNaN ? 0 : Int(max(0, min(subframes, 0x1p63.nextDown))), rate: rate)
    }

    /// The position in seconds. Any thread.
    public var secondsValue: Double {
        let (num, den) = rate.framesPerSecond
        return Double(subframeCount) * Double(den) / (Double(num) * 100)
    }

    /// `hh:mm:ss:ff.sf` (with `;` before the frames for drop-frame, as timecode is written).
    /// Any thread.
    public var description: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let sep = rate == .fps29_97Drop ? ";" : ":"
        return "\(two(hours)):\(two(minutes)):\(two(seconds))\(sep)\(two(frames)).\(two(subframes))"
    }
}
