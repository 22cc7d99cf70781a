import DSP

/// A left and right gain. Any thread.
package struct StereoGain: Hashable, Sendable {
    /// Left gain, linear. Any thread.
    public var left: Float
    /// Right gain, linear. Any thread.
    public var right: Float

    /// Both sides at `left` and `right`. Any thread.
    public init(left: Float, right: Float) {
        self.left = left
        self.right = right
    }

    /// 1 on both sides. Any thread.
    public static let unity = StereoGain(left: 1, right: 1)
    /// 0 on both sides. Any thread.
    public static let silent = StereoGain(left: 0, right: 0)
}

/// A gain that changes at exact sample times, at once or along a linear ramp, so nothing the
/// mixer does lands a block late or steps audibly (no zipper noise: each frame moves by the
/// same amount). Changes wait in a fixed-size list, so scheduling one allocates nothing.
/// Render thread only once rendering starts.
struct GainTimeline {
    /// A change: reach `gain` over `ramp` frames starting at `time` (at once when `ramp` is 0).
    struct Change: Timed {
        var time: SampleTime
        var gain: StereoGain
        var ramp: Int
    }

    private(set) var current = StereoGain.unity
    private var step = StereoGain.silent
    private var target = StereoGain.unity
    private var remaining = 0
    private var pending: TimedQueue<Change>

    /// Room for `capacity` changes waiting at once.
    init(capacity: Int = 32) {
        let filler = Change(time: 0, gain: .unity, ramp: 0)
        pending = TimedQueue(capacity: capacity, filler: filler)
        // Run the write path once here: its first use makes the runtime build type metadata
        // (an allocation under a lock), which must not happen on the render thread.
        schedule(filler)
        _ = pending.popFirst(before: .max)
    }

    /// Back to `gain` at once with nothing waiting (a new input). Allocates nothing.
    mutating func reset(to gain: StereoGain) {
        current = gain
        remaining = 0
        pending.removeAll()
    }

    /// Whether the gain is exactly `gain` all through `time ..< time + frames`.
    func isSteady(at gain: StereoGain, from time: SampleTime, frames: Int) -> Bool {
        remaining == 0 && current == gain && (pending.first.map { $0.time >= time + SampleTime(frames) } ?? true)
    }

    /// Adds a change in time order (a later one at the same time comes after). When the list
    /// is full the change starts at once, so a flood of changes still ends where it was sent.
    mutating func schedule(_ change: Change) {
        if !pending.insert(change) { begin(change) }
    }

    /// Walks `time ..< time + frames` in runs of steady gain or of one ramp, calling `apply`
    /// with each run's frame range, its gain at the first frame and the change per frame.
    mutating func process(from time: SampleTime, frames: Int, _ apply: (Range<Int>, StereoGain, StereoGain) -> Void) {
        var frame = 0
        while frame < frames {
            while let change = pending.popFirst(before: time + SampleTime(frame) + 1) { begin(change) }
            var end = frames
            if let next = pending.first { end = min(end, Int(next.time - time)) }
            if remaining > 0 {
                end = min(end, frame + remaining)
                apply(frame..<end, current, step)
                remaining -= end - frame
                if remaining == 0 {
                    current = target
                } else {
                    current.left += step.left * Float(end - frame)
                    current.right += step.right * Float(end - frame)
                }
            } else {
                apply(frame..<end, current, .silent)
            }
            frame = end
        }
    }

    /// Multiplies `audio` (whose first frame is `time`) by the gain, frame by frame.
    mutating func scale(_ audio: StereoSlice, from time: SampleTime) {
        process(from: time, frames: audio.frames) { range, gain, step in
            if gain == .unity && step == .silent { return }
            for i in range {
                let k = Float(i - range.lowerBound)
                audio.left[i] *= gain.left + step.left * k
                audio.right[i] *= gain.right + step.right * k
            }
        }
    }

    private mutating func begin(_ change: Change) {
        guard change.ramp > 0 else {
            current = change.gain
            remaining = 0
            return
        }
        target = change.gain
        remaining = change.ramp
        step = StereoGain(left: (target.left - current.left) / Float(change.ramp), right: (target.right - current.right) / Float(change.ramp))
    }
}
