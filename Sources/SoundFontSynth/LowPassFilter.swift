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

    /// A filter at `cutoff` absolute cents with resonance `q` centibels, at `sampleRate`.
    init(cutoff: Int32, q: Int32, sampleRate: Double) {
        set(cutoff: cutoff, q: q, sampleRate: sampleRate)
    }

    /// Moves the filter to `cutoff` and `q`, keeping what it holds of the signal. Render thread only.
    mutating func set(cutoff: Int32, q: Int32, sampleRate: Double) {
        let cents = Double(min(max(cutoff, 1_500), 13_500))
        let frequency = min(max(8.175_798_915_6 * exp2(cents / 1_200), 5), 0.45 * sampleRate)
        let qLinear = pow(10, (min(max(Double(q) / 10, 0), 96) - 3.01) / 20)
        let gain = 1 / qLinear.squareRoot()
        let omega = 2 * Double.pi * frequency / sampleRate
        let alpha = sin(omega) / (2 * qLinear)
        let a0Inverse = 1 / (1 + alpha)
        a1 = Float(-2 * cos(omega) * a0Inverse)
        a2 = Float((1 - alpha) * a0Inverse)
        b1 = Float((1 - cos(omega)) * a0Inverse * gain)
        b02 = b1 * 0.5
    }

    /// Filters `count` frames of `buffer` in place.
    @inline(__always) mutating func process(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        var h1 = history1, h2 = history2
        for i in 0..<count {
            let centre = buffer[i] - a1 * h1 - a2 * h2
            buffer[i] = b02 * (centre + h2) + b1 * h1
            h2 = h1
            h1 = centre
        }
        history1 = h1
        history2 = h2
    }
}
