import Engine
import Sequencing
import MIDI

/// Where a player sends MIDI clock and timecode, and the timecode's rate. Any thread.
public struct SyncDestinations: Sendable {
    /// Receivers of MIDI clock (24 a quarter note) with Start, Stop, Song Position Pointer and Continue. Any thread.
    public var clock: [any MIDIDestination]
    /// Receivers of MIDI timecode: quarter frames, and a full frame at every start and jump. Any thread.
    public var timecode: [any MIDIDestination]
    /// The timecode's frames a second. Any thread.
    public var timecodeRate: SMPTERate

    /// Clock to `clock`, timecode at `timecodeRate` to `timecode`; none by default. Any thread.
    public init(clock: [any MIDIDestination] = [], timecode: [any MIDIDestination] = [], timecodeRate: SMPTERate = .fps30) {
        self.clock = clock
        self.timecode = timecode
        self.timecodeRate = timecodeRate
    }
}

/// What a player sends so other devices follow it: MIDI clock (24 pulses a quarter note on the
/// tempo map, with Start, Stop, Song Position Pointer and Continue) and MIDI timecode (quarter
/// frames at a timecode rate, with a full-frame message at every start and jump). Both are
/// pulse trains on the score's frames that the player sends in time order with its events,
/// so they follow its rate. Render thread only (owned by one player).
struct SyncOutputs {
    /// A train of pulses: the next to send, its score frame (`.never` while stopped), and the
    /// pulse it last started on (a flush never takes it back before that).
    private struct Train {
        var next = 0
        var frame = ScoreFrame.never
        var floor = 0
    }

    /// MIDI clock's pulses a quarter note.
    private static let clockPulsesPerQuarter = 24

    private let clock: [any MIDIDestination]
    private let timecode: [any MIDIDestination]
    private let timecodeRate: SMPTERate
    private let tempoMap: TempoMap
    private let sampleRate: Int
    private var clockTrain = Train()
    private var timecodeTrain = Train()
    private var fullFrame: [UInt8] = [0x7F, 0x7F, 0x01, 0x01, 0, 0, 0, 0]   // universal real-time: MTC full frame

    /// Clock and timecode to `destinations`, for a score on `tempoMap` at `sampleRate`.
    init(_ destinations: SyncDestinations, tempoMap: TempoMap, sampleRate: Int) {
        clock = destinations.clock
        timecode = destinations.timecode
        timecodeRate = destinations.timecodeRate
        self.tempoMap = tempoMap
        self.sampleRate = sampleRate
    }

    /// The score frame of the next pulse of either kind; `.never` when both are stopped.
    var nextFrame: ScoreFrame { min(clockTrain.frame, timecodeTrain.frame) }

    /// Sends the pulse due at `nextFrame` (both, when they coincide) at `time`, and moves on.
    mutating func sendNext(at time: SampleTime) {
        let frame = nextFrame
        if clockTrain.frame == frame {
            send(0xF8, to: clock, at: time)
            clockTrain.next += 1
            clockTrain.frame = clockFrame(clockTrain.next)
        }
        if timecodeTrain.frame == frame {
            send(0xF1, Self.quarterFrameData(timecodeTrain.next, rate: timecodeRate), to: timecode, at: time)
            timecodeTrain.next += 1
            timecodeTrain.frame = quarterFrameFrame(timecodeTrain.next)
        }
    }

    /// Both start at `time` from score frame `frame`. Clock:
    /// Start from the song's start; else Stop (if it ran), Song Position Pointer to the first
    /// 16th note at or after `frame` (a position between 16ths is rounded up, where a receiver
    /// can join exactly) and Continue, its pulses running from that 16th. Timecode: a full
    /// frame with the timecode of `frame`, then quarter frames from the next even frame.
    mutating func start(fromFrame frame: ScoreFrame, at time: SampleTime) {
        if !clock.isEmpty {
            let sixteenth = (tempoMap.firstPulse(atOrAfterFrame: frame.frames, pulsesPerQuarter: Self.clockPulsesPerQuarter, sampleRate: sampleRate) + 5) / 6
            if frame == .start && clockTrain.frame == .never {
                send(0xFA, to: clock, at: time)
            } else {
                if clockTrain.frame != .never { send(0xFC, to: clock, at: time) }
                let position = min(sixteenth, 0x3FFF)
                send(0xF2, UInt8(position & 0x7F), UInt8(position >> 7), to: clock, at: time)
                send(0xFB, to: clock, at: time)
            }
            clockTrain = Train(next: sixteenth * 6, frame: clockFrame(sixteenth * 6), floor: sixteenth * 6)
        }
        if !timecode.isEmpty {
            let (num, den) = timecodeRate.framesPerSecond
            let label = SMPTETime(subframeCount: Int(max(0, frame.frames)) * num * 100 / (sampleRate * den), rate: timecodeRate)
            fullFrame[4] = UInt8(Self.rateCode(timecodeRate) << 5 | (label.hours % 24))
            fullFrame[5] = UInt8(label.minutes)
            fullFrame[6] = UInt8(label.seconds)
            fullFrame[7] = UInt8(label.frames)
            fullFrame.withUnsafeBufferPointer { body in
                for d in 0..<timecode.count { timecode[d].scheduleSysex(body, at: time) }
            }
            let first = firstQuarterFrame(atOrAfter: frame)
            let even = (first + 7) / 8 * 8
            timecodeTrain = Train(next: even, frame: quarterFrameFrame(even), floor: even)
        }
    }

    /// Both stop at `time`: Stop to the clock if it ran; the timecode simply ceases.
    mutating func stop(at time: SampleTime) {
        if clockTrain.frame != .never { send(0xFC, to: clock, at: time) }
        clockTrain.frame = .never
        timecodeTrain.frame = .never
    }

    /// Forgets both trains without a message (the player went back to its start).
    mutating func reset() {
        clockTrain.frame = .never
        timecodeTrain.frame = .never
    }

    /// Drops what the destinations hold from `time` on; each train then goes on from its first
    /// pulse due then (`mapping` maps score frames to output time), but not before the pulse it
    /// last started on.
    mutating func flushScheduled(from time: SampleTime, mapping: ScoreMapping) {
        let frame = mapping.frame(at: time)
        for d in 0..<clock.count { clock[d].flushScheduled(from: time) }
        for d in 0..<timecode.count { timecode[d].flushScheduled(from: time) }
        if clockTrain.frame != .never {
            var pulse = tempoMap.firstPulse(atOrAfterFrame: frame.frames, pulsesPerQuarter: Self.clockPulsesPerQuarter, sampleRate: sampleRate)
            while mapping.time(of: clockFrame(pulse)) < time { pulse += 1 }
            clockTrain.next = max(clockTrain.floor, min(clockTrain.next, pulse))
            clockTrain.frame = clockFrame(clockTrain.next)
        }
        if timecodeTrain.frame != .never {
            var quarter = firstQuarterFrame(atOrAfter: frame)
            while mapping.time(of: quarterFrameFrame(quarter)) < time { quarter += 1 }
            timecodeTrain.next = max(timecodeTrain.floor, min(timecodeTrain.next, quarter))
            timecodeTrain.frame = quarterFrameFrame(timecodeTrain.next)
        }
    }

    // MARK: The pulses

    @inline(__always) private func clockFrame(_ pulse: Int) -> ScoreFrame {
        ScoreFrame(tempoMap.sampleFrame(atPulse: pulse, pulsesPerQuarter: Self.clockPulsesPerQuarter, sampleRate: sampleRate))
    }

    /// The score frame of quarter frame `quarter` (four a timecode frame, from zero).
    @inline(__always) private func quarterFrameFrame(_ quarter: Int) -> ScoreFrame {
        let (num, den) = timecodeRate.framesPerSecond
        return ScoreFrame(Int64(Self.mulDiv(quarter, sampleRate * den, 4 * num)))
    }

    /// The first quarter frame at or after score frame `frame`.
    private func firstQuarterFrame(atOrAfter frame: ScoreFrame) -> Int {
        let (num, den) = timecodeRate.framesPerSecond
        var quarter = Self.mulDiv(Int(max(0, frame.frames)), 4 * num, sampleRate * den)
        while quarter > 0 && quarterFrameFrame(quarter - 1) >= frame { quarter -= 1 }
        while quarterFrameFrame(quarter) < frame { quarter += 1 }
        return quarter
    }

    /// The data byte of quarter frame `quarter`: piece `quarter % 8` of the timecode of the
    /// frame its run of eight began on (frames low and high nibble, seconds, minutes, hours
    /// with the rate), as MTC sends a time over two frames.
    static func quarterFrameData(_ quarter: Int, rate: SMPTERate) -> UInt8 {
        let piece = quarter % 8
        let label = SMPTETime(subframeCount: (quarter - piece) / 4 * 100, rate: rate)
        let value: Int
        switch piece {
        case 0: value = label.frames & 0xF
        case 1: value = label.frames >> 4
        case 2: value = label.seconds & 0xF
        case 3: value = label.seconds >> 4
        case 4: value = label.minutes & 0xF
        case 5: value = label.minutes >> 4
        case 6: value = (label.hours % 24) & 0xF
        default: value = (label.hours % 24) >> 4 | rateCode(rate) << 1
        }
        return UInt8(piece << 4 | value)
    }

    /// MTC's code for a rate: 0 for 24, 1 for 25, 2 for 29.97 drop-frame, 3 for 30.
    static func rateCode(_ rate: SMPTERate) -> Int {
        switch rate {
        case .fps24: 0
        case .fps25: 1
        case .fps29_97Drop: 2
        case .fps30: 3
        }
    }

    /// `a × b / c` rounded to the nearest, for the non-negative sizes here (a day of quarter
    /// frames at 48 kHz stays far inside an Int).
    @inline(__always) private static func mulDiv(_ a: Int, _ b: Int, _ c: Int) -> Int {
        (a * b + c / 2) / c
    }

    @inline(__always) private func send(_ status: UInt8, _ data1: UInt8 = 0, _ data2: UInt8 = 0, to destinations: [any MIDIDestination], at time: SampleTime) {
        for d in 0..<destinations.count {
            destinations[d].schedule(ScheduledMIDI(time: time, status: status, data1: data1, data2: data2))
        }
    }
}
