#if canImport(Glibc)
import Glibc
#endif

/// A voice's resonant low-pass filter (generators 8 and 9) as libfluidsynth runs it: the
/// cookbook's biquad with the cutoff kept within 1500...13500 cents and 5 Hz...0.45 × the
/// rate, the Q in centibels over a non-resonant filter (0 cB is Q 0.707), and the passband
/// scaled by 1/sqrt(Q) as SF2.01 asks. Applied after the voice's gain. Render thread only.
struct LowPassFilter {
    private var a1: Float = 0, a2: Float = 0, b02: Float = 0, b1: Float = 0
    private var history1: Float = 0, history2: Float = 0
    /// A change after the filter has started glides over one control block, the coefficients
    /// stepping each frame (libfluidsynth's way of keeping a moving cutoff from clicking).
    private var a1Step: Float = 0, a2Step: Float = 0, b02Step: Float = 0, b1Step: Float = 0
    private var glideFrames = 0
    private var started = false
    /// The input of a pair's even frame a call ended on, and the inner signal two frames
    /// before it; nil when the last frame filtered was not one.
    private var paired: (input: Float, history2: Float)?
    /// The cutoff and Q the coefficients are for.
    private var cutoff: Int32 = .min, q: Int32 = .min

    /// A filter at `cutoff` absolute cents with resonance `q` centibels, at `sampleRate`.
    init(cutoff: Int32, q: Int32, sampleRate: Double) {
        set(cutoff: cutoff, q: q, sampleRate: sampleRate)
    }

    /// Moves the filter to `cutoff` and `q`, keeping what it holds of the signal: at once
    /// before it has filtered anything, else gliding over a control block. Render thread only.
    mutating func set(cutoff: Int32, q: Int32, sampleRate: Double) {
        guard cutoff != self.cutoff || q != self.q else { return }
        (self.cutoff, self.q) = (cutoff, q)
        let cents = Double(min(max(cutoff, 1_500), 13_500))
        let frequency = min(max(8.175_798_915_6 * exp2(cents / 1_200), 5), 0.45 * sampleRate)
        let qLinear = pow(10, (min(max(Double(q) / 10, 0), 96) - 3.01) / 20)
        let gain = 1 / qLinear.squareRoot()
        let omega = 2 * Double.pi * frequency / sampleRate
        let alpha = sin(omega) / (2 * qLinear)
        let a0Inverse = 1 / (1 + alpha)
        let newA1 = Float(-2 * cos(omega) * a0Inverse), newA2 = Float((1 - alpha) * a0Inverse)
        let newB1 = Float((1 - cos(omega)) * a0Inverse * gain), newB02 = newB1 * 0.5
        guard started else {
            (a1, a2, b1, b02) = (newA1, newA2, newB1, newB02)
            return
        }
        paired = nil
        let frames = Float(Units.controlBlock)
        (a1Step, a2Step, b1Step, b02Step) = ((newA1 - a1) / frames, (newA2 - a2) / frames, (newB1 - b1) / frames, (newB02 - b02) / frames)
        glideFrames = Units.controlBlock
    }

    /// Filters `frames` frames, `input` giving each frame's input and `output` taking its
    /// output, in order, the coefficients (stepping while a glide lasts) and the history held
    /// in registers; `odd` when the first frame is an odd one of the voice's. With steady
    /// coefficients the voice's frames go in pairs, an even frame and the odd one after it,
    /// the odd one's inner signal worked out from the history before the pair (so that the
    /// next pair waits for one multiply and one addition, not two of each); a pair a call
    /// splits gives the same as a whole one. Render thread only.
    @inline(__always) mutating func run(frames: Int, odd: Bool, input: (Int) -> Float, output: (Int, Float) -> Void) {
        guard frames > 0 else { return }
        started = true
        var a1 = self.a1, a2 = self.a2, b02 = self.b02, b1 = self.b1
        var history1 = self.history1, history2 = self.history2
        var i = 0
        if glideFrames > 0 {
            let gliding = min(frames, glideFrames)
            let a1Step = self.a1Step, a2Step = self.a2Step, b02Step = self.b02Step, b1Step = self.b1Step
            while i < gliding {
                output(i, Self.biquad(input(i), a1: a1, a2: a2, b02: b02, b1: b1, history1: &history1, history2: &history2))
                a1 += a1Step
                a2 += a2Step
                b1 += b1Step
                b02 += b02Step
                i += 1
            }
            glideFrames -= gliding
            (self.a1, self.a2, self.b02, self.b1) = (a1, a2, b02, b1)
            paired = nil
        }
        guard i < frames else {
            (self.history1, self.history2) = (history1, history2)
            return
        }
        // The odd frame of a pair the last call began.
        if odd == (i % 2 == 0) {
            let x = input(i)
            if let (first, before2) = paired {
                let centre = Self.second(x, first: first, a1: a1, history1: history2, history2: before2, together: a1 * a2, squared: a1 * a1 - a2)
                output(i, b02 * (centre + history2) + b1 * history1)
                (history2, history1) = (history1, centre)
            } else {
                output(i, Self.biquad(x, a1: a1, a2: a2, b02: b02, b1: b1, history1: &history1, history2: &history2))
            }
            i += 1
        }
        let together = a1 * a2, squared = a1 * a1 - a2
        while i + 2 <= frames {
            let x0 = input(i), x1 = input(i + 1)
            let centre0 = x0 - a2 * history2 - a1 * history1
            let centre1 = Self.second(x1, first: x0, a1: a1, history1: history1, history2: history2, together: together, squared: squared)
            output(i, b02 * (centre0 + history2) + b1 * history1)
            output(i + 1, b02 * (centre1 + history1) + b1 * centre0)
            (history2, history1) = (centre0, centre1)
            i += 2
        }
        paired = nil
        if i < frames {   // an even frame: the pair's second frame comes in the next call
            let x = input(i)
            paired = (x, history2)
            output(i, Self.biquad(x, a1: a1, a2: a2, b02: b02, b1: b1, history1: &history1, history2: &history2))
        }
        (self.history1, self.history2) = (history1, history2)
    }

    /// The inner signal of a pair's odd frame from its input, the even frame's input `first`
    /// and the history before the pair: x1 − a1·x0 + a1·a2·h2 + (a1² − a2)·h1.
    @inline(__always) private static func second(_ input: Float, first: Float, a1: Float, history1: Float, history2: Float,
                                                 together: Float, squared: Float) -> Float {
        input - a1 * first + together * history2 + squared * history1
    }

    /// One frame of the filter with these coefficients and history (moved on a frame).
    @inline(__always) private static func biquad(_ input: Float, a1: Float, a2: Float, b02: Float, b1: Float,
                                                 history1: inout Float, history2: inout Float) -> Float {
        // (input − a2·h2) − a1·h1: the same sum as libfluidsynth's, ordered so that only one
        // multiply and one subtraction wait for the last frame (rounding differs below −130 dB).
        let centre = input - a2 * history2 - a1 * history1
        let output = b02 * (centre + history2) + b1 * history1
        history2 = history1
        history1 = centre
        return output
    }
}
