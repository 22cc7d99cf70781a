/// A lookahead peak limiter: the sum never leaves the ceiling, and the gain glides instead of
/// stepping. Each frame's required gain (ceiling / peak) goes through a running minimum over
/// the lookahead, then a running average over the same span, so the gain has reached what a
/// peak needs by the time that peak, delayed by the lookahead, passes; it recovers with an
/// exponential release. Adds `latency` frames of delay. Allocates only at init. Render thread only.
public struct PeakLimiter {
    /// The highest level let out (linear; 1 is 0 dBFS). Render thread only.
    public let ceiling: Float
    /// Frames of delay the limiter adds (its lookahead less one). Any thread.
    public var latency: Int { lookahead - 1 }
    private let lookahead: Int
    private let releasePerFrame: Float
    private var required: [Float]        // the last `lookahead` required gains
    private var averaged: [Float]        // the last `lookahead` running minimums
    private var delayLeft: [Float]
    private var delayRight: [Float]
    private var sum: Float
    private var index = 0
    private var gain: Float = 1
    private var lowest: Float = 1

    /// The lookahead a limiter has unless told otherwise: 1 ms at 48 kHz. Any thread.
    public static let defaultLookahead = 48

    /// A limiter to `ceiling` with `lookahead` frames and a release of `releaseFrames` (time
    /// constant; 50 ms at 48 kHz). Control thread.
    public init(ceiling: Float = 0.999, lookahead: Int = defaultLookahead, releaseFrames: Int = 2_400) {
        self.ceiling = ceiling
        self.lookahead = max(1, lookahead)
        releasePerFrame = 1 / Float(max(1, releaseFrames))
        required = Array(repeating: 1, count: self.lookahead)
        averaged = Array(repeating: 1, count: self.lookahead)
        delayLeft = Array(repeating: 0, count: self.lookahead)
        delayRight = Array(repeating: 0, count: self.lookahead)
        sum = Float(self.lookahead)
    }

    /// The smallest gain applied since the last call: how hard it limited. Render thread only.
    public mutating func takeLowestGain() -> Float {
        defer { lowest = 1 }
        return lowest
    }

    /// Limits `output` in place (delayed by `latency`). Render thread only.
    public mutating func process(_ output: StereoSlice) {
        for i in 0..<output.frames {
            let l = output.left[i], r = output.right[i]
            let peak = max(abs(l), abs(r))
            required[index] = peak > ceiling ? ceiling / peak : 1
            var minimum: Float = 1
            for k in 0..<lookahead { minimum = min(minimum, required[k]) }
            sum += minimum - averaged[index]
            averaged[index] = minimum
            let attack = sum / Float(lookahead)
            gain = min(attack, gain + (1 - gain) * releasePerFrame)
            lowest = min(lowest, gain)
            // In goes this frame; out goes the one that came in `lookahead - 1` frames ago.
            delayLeft[index] = l
            delayRight[index] = r
            let out = (index + 1) % lookahead
            output.left[i] = delayLeft[out] * gain
            output.right[i] = delayRight[out] * gain
            index = out
            if index == 0 {
                // Add the span up afresh now and then, so rounding never drifts.
                sum = 0
                for k in 0..<lookahead { sum += averaged[k] }
            }
        }
    }
}
