import Engine

/// Where the score is: a frame of the song at its written tempo, counted from its start. Not
/// an output time (`SampleTime`, the frames of the clock the graph renders on): a player maps
/// one to the other through its anchor and rate (`ScoreMapping`), and the compiler keeps the
/// two apart. Any thread.
public struct ScoreFrame: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Frames from the song's start at the written tempo. Any thread.
    public var frames: Int64

    /// The score frame `frames` from the song's start. Any thread.
    @inline(__always) public init(_ frames: Int64) { self.frames = frames }

    /// The song's start. Any thread.
    public static let start = ScoreFrame(0)
    /// Later than any frame a song reaches: what comes "next" when nothing does. Any thread.
    public static let never = ScoreFrame(.max)

    /// The frame `frames` later. Any thread.
    @inline(__always) public static func + (frame: ScoreFrame, frames: Int64) -> ScoreFrame { ScoreFrame(frame.frames + frames) }
    /// The frame `frames` earlier. Any thread.
    @inline(__always) public static func - (frame: ScoreFrame, frames: Int64) -> ScoreFrame { ScoreFrame(frame.frames - frames) }
    /// Frames from `b` to `a`. Any thread.
    @inline(__always) public static func - (a: ScoreFrame, b: ScoreFrame) -> Int64 { a.frames - b.frames }
    /// Earlier in the song. Any thread.
    @inline(__always) public static func < (a: ScoreFrame, b: ScoreFrame) -> Bool { a.frames < b.frames }

    /// The frame count, as written. Any thread.
    public var description: String { String(frames) }
}

/// How output time maps to score frames from an anchor on (the score stood at `anchorFrame`
/// at output time `anchorTime`), at `rate` millionths of the written tempo, while playing.
/// Any thread.
struct ScoreMapping {
    var anchorTime: SampleTime
    var anchorFrame: ScoreFrame
    var rate: Int64
    var playing: Bool

    /// The output time of score frame `frame` at this rate, playing or not.
    @inline(__always) func time(of frame: ScoreFrame) -> SampleTime {
        anchorTime + (frame - anchorFrame) * 1_000_000 / rate
    }

    /// The score frame at output time `time` at this rate, playing or not.
    @inline(__always) func frame(at time: SampleTime) -> ScoreFrame {
        anchorFrame + (time - anchorTime) * rate / 1_000_000
    }

    /// The score frame playing at `time`; `nil` when not playing then (stopped, or not started yet).
    func playingFrame(at time: SampleTime) -> ScoreFrame? {
        playing && time >= anchorTime ? frame(at: time) : nil
    }
}

extension MusicPlayer.Score {
    /// The score frame of `tick`. Any thread.
    @inline(__always) public func frame(atTick tick: Int) -> ScoreFrame {
        ScoreFrame(tempoMap.sampleFrame(atTick: tick, sampleRate: sampleRate))
    }

    /// The tick sounding at score frame `frame`. Any thread.
    @inline(__always) public func tick(at frame: ScoreFrame) -> Int {
        tempoMap.tick(atSampleFrame: frame.frames, sampleRate: sampleRate)
    }
}
