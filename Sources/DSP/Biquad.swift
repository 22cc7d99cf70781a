#if canImport(Glibc)
import Glibc
#endif

/// A second-order filter with the responses of Robert Bristow-Johnson's Audio EQ Cookbook:
/// its seven shapes, each the bilinear transform of the cookbook's analog prototype prewarped
/// at the filter's frequency, so the same magnitude and phase as his biquads. It is built as
/// Andrew Simper's trapezoidal state-variable filter rather than a direct form, because its
/// two integrators hold the signal's state whatever the coefficients: a frequency that moves
/// every frame changes the sound smoothly, where a direct form's state would jump. Stereo, in
/// double precision. Render thread only, after `init`.
public struct Biquad {
    /// The cookbook's filter shapes. Any thread.
    public enum Shape: String, Hashable, Sendable, CaseIterable {
        /// Passes below the cutoff, falls 12 dB per octave above it.
        case lowpass
        /// Passes above the cutoff, falls 12 dB per octave below it.
        case highpass
        /// Passes a band around the frequency, 0 dB at its peak (the cookbook's constant 0 dB peak gain).
        case bandpass
        /// Removes a band around the frequency.
        case notch
        /// Raises or lowers a band around the frequency by the gain (a parametric EQ's band).
        case peaking
        /// Raises or lowers everything below the frequency by the gain.
        case lowShelf
        /// Raises or lowers everything above the frequency by the gain.
        case highShelf

        /// Whether the gain means anything to it. Any thread.
        public var hasGain: Bool { self == .peaking || self == .lowShelf || self == .highShelf }
    }

    /// The filter's coefficients: the integrators' gain `g`, the damping `k` (1/Q), and how the
    /// input (`m0`), band (`m1`) and low (`m2`) outputs mix into the shape. Any thread.
    public struct Coefficients: Hashable, Sendable {
        var a1 = 1.0, a2 = 0.0, a3 = 0.0
        var m0 = 1.0, m1 = 0.0, m2 = 0.0

        /// Passes everything unchanged. Any thread.
        public init() {}

        /// The coefficients for `shape` at `frequency` Hz with quality `q` and `gainDB`
        /// (peaking and shelves only) at `sampleRate`; the frequency is held below half the
        /// sample rate. Any thread.
        public init(_ shape: Biquad.Shape, frequency: Double, q: Double, gainDB: Double = 0, sampleRate: Double) {
            let prewarped = tan(Double.pi * min(max(frequency, 1e-3), 0.499 * sampleRate) / sampleRate)
            let a = pow(10, gainDB / 40)
            var g = prewarped, k = 1 / max(q, 1e-3)
            switch shape {
            case .lowpass: (m0, m1, m2) = (0, 0, 1)
            case .highpass: (m0, m1, m2) = (1, -k, -1)
            case .bandpass: (m0, m1, m2) = (0, k, 0)
            case .notch: (m0, m1, m2) = (1, -k, 0)
            case .peaking:
                k /= a
                (m0, m1, m2) = (1, k * (a * a - 1), 0)
            case .lowShelf:
                g /= a.squareRoot()
                (m0, m1, m2) = (1, k * (a - 1), a * a - 1)
            case .highShelf:
                g *= a.squareRoot()
                (m0, m1, m2) = (a * a, k * (1 - a) * a, 1 - a * a)
            }
            a1 = 1 / (1 + g * (g + k))
            a2 = g * a1
            a3 = g * a2
        }
    }

    /// The coefficients in use. Render thread only.
    public var coefficients = Coefficients()
    private var z1 = SIMD2<Double>.zero     // the integrators' states (Simper's ic1eq, ic2eq)
    private var z2 = SIMD2<Double>.zero

    /// A filter that passes everything until given coefficients. Any thread.
    public init() {}

    /// Forgets its state (silence before). Render thread only.
    public mutating func reset() {
        z1 = .zero
        z2 = .zero
    }

    /// Filters one stereo frame. Render thread only.
    @inline(__always) public mutating func process(_ x: SIMD2<Double>) -> SIMD2<Double> {
        let c = coefficients
        let v3 = x - z2
        let band = c.a1 * z1 + c.a2 * v3
        let low = z2 + c.a2 * z1 + c.a3 * v3
        z1 = 2 * band - z1
        z2 = 2 * low - z2
        return c.m0 * x + c.m1 * band + c.m2 * low
    }

    /// Zeroes a state too small to be heard, before it sinks into subnormal numbers (which
    /// cost a hundred times more to multiply). Render thread only.
    @inline(__always) public mutating func flushSubnormals() {
        let tiny = SIMD2<Double>(repeating: 1e-30)
        if all((z1 .< tiny) .& (z1 .> -tiny) .& (z2 .< tiny) .& (z2 .> -tiny)) { reset() }
    }

    /// Filters `audio` in place with the coefficients in use. Render thread only.
    public mutating func process(_ audio: StereoSlice) {
        let left = audio.left, right = audio.right
        for i in 0..<audio.frames {
            let y = process(SIMD2(Double(left[i]), Double(right[i])))
            left[i] = Float(y.x)
            right[i] = Float(y.y)
        }
        // A decaying state would sink into subnormal numbers, which cost a hundred times more.
        flushSubnormals()
    }
}
