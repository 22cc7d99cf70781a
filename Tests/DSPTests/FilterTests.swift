import DSP
import Foundation
import Testing

/// The built-in filters measured as a user would: sines through them, their level read back.
@Suite("Built-in filters")
struct FilterTests {
    static let sampleRate = 48_000

    /// The cookbook's analog prototype of `shape`, H(s), at s = jΩ (Ω in units of the filter's
    /// frequency), whose bilinear transform prewarped at that frequency the digital filter is.
    static func prototype(_ shape: Biquad.Shape, omega: Double, q: Double, gainDB: Double) -> Double {
        let a = pow(10, gainDB / 40), s = Complex(0, omega), one = Complex(1, 0)
        func ratio(_ n: Complex, _ d: Complex) -> Double { n.magnitude / d.magnitude }
        let denominator = s * s + s * (1 / q) + one
        switch shape {
        case .lowpass: return ratio(one, denominator)
        case .highpass: return ratio(s * s, denominator)
        case .bandpass: return ratio(s * (1 / q), denominator)
        case .notch: return ratio(s * s + one, denominator)
        case .peaking: return ratio(s * s + s * (a / q) + one, s * s + s * (1 / (a * q)) + one)
        case .lowShelf:
            return a * ratio(s * s + s * (a.squareRoot() / q) + Complex(a, 0), s * s * a + s * (a.squareRoot() / q) + one)
        case .highShelf:
            return a * ratio(s * s * a + s * (a.squareRoot() / q) + one, s * s + s * (a.squareRoot() / q) + Complex(a, 0))
        }
    }

    /// The level in dB at which a `frequency` Hz sine comes out of `unit`: 0.5 s to settle,
    /// then one second (a whole number of cycles) read by its projection on sine and cosine.
    static func measuredGainDB(of unit: any EffectUnit, at frequency: Int) -> Double {
        unit.reset()
        let settle = sampleRate / 2, length = sampleRate
        let buffer = AudioBuffer(capacity: settle + length)
        for i in 0..<buffer.capacity {
            let x = Float(0.5 * sin(2 * Double.pi * Double(frequency) * Double(i) / Double(sampleRate)))
            buffer.left[i] = x
            buffer.right[i] = x
        }
        var done = 0
        while done < buffer.capacity {
            let n = min(512, buffer.capacity - done)
            unit.process(buffer.slice(frames: done + n).dropFirst(done, count: n))
            done += n
        }
        var s = 0.0, c = 0.0
        for i in settle..<settle + length {
            let phase = 2 * Double.pi * Double(frequency) * Double(i) / Double(sampleRate)
            s += Double(buffer.left[i]) * sin(phase)
            c += Double(buffer.left[i]) * cos(phase)
            #expect(buffer.left[i] == buffer.right[i])
        }
        let amplitude = 2 * (s * s + c * c).squareRoot() / Double(length)
        return 20 * log10(amplitude / 0.5)
    }

    /// Frequencies from 20 Hz to 20 kHz, a third of an octave apart, in whole hertz.
    static let frequencies: [Int] = (0...30).map { Int((20 * pow(2, Double($0) / 3)).rounded()) }

    @Test("Every shape's response is the cookbook's within 0.1 dB, 20 Hz to 20 kHz",
          arguments: [
              (Biquad.Shape.lowpass, 800.0, 0.7071, 0.0), (.lowpass, 5_000, 4, 0), (.highpass, 150, 0.7071, 0), (.highpass, 2_000, 2, 0),
              (.bandpass, 1_000, 1, 0), (.notch, 3_000, 2, 0), (.peaking, 500, 1.4, 9), (.peaking, 4_000, 0.7, -12),
              (.lowShelf, 200, 0.7071, 6), (.lowShelf, 300, 0.7071, -15), (.highShelf, 6_000, 0.7071, -9), (.highShelf, 2_500, 1, 12),
          ])
    func responses(shape: Biquad.Shape, frequency: Double, q: Double, gain: Double) {
        let unit = FilterEffect(shape)
        unit.prepare(sampleRate: Self.sampleRate, maxFrames: 512)
        unit.setParameter(0, to: frequency, rampFrames: 0)
        unit.setParameter(1, to: q, rampFrames: 0)
        if shape.hasGain { unit.setParameter(2, to: gain, rampFrames: 0) }
        var worst = 0.0
        let prewarp = tan(Double.pi * frequency / Double(Self.sampleRate))
        for f in Self.frequencies {
            let omega = tan(Double.pi * Double(f) / Double(Self.sampleRate)) / prewarp
            let expected = 20 * log10(max(1e-12, Self.prototype(shape, omega: omega, q: q, gainDB: gain)))
            guard expected > -80 else { continue }       // deeper than the float signal can show
            let measured = Self.measuredGainDB(of: unit, at: f)
            worst = max(worst, abs(measured - expected))
            #expect(abs(measured - expected) <= 0.1, "\(shape) \(frequency) Hz q \(q) \(gain) dB at \(f) Hz: \(measured) dB, cookbook \(expected) dB")
        }
        print("\(shape) \(frequency) Hz q \(q) gain \(gain) dB: largest difference from the cookbook \(String(format: "%.4f", worst)) dB")
    }

    @Test("The parametric EQ's response is its five bands' (the cookbook's) in series, within 0.1 dB; flat at its defaults")
    func parametricEQ() {
        let flat = ParametricEQ()
        flat.prepare(sampleRate: Self.sampleRate, maxFrames: 512)
        #expect(Self.frequencies.allSatisfy { abs(Self.measuredGainDB(of: flat, at: $0)) < 0.001 })
        let eq = ParametricEQ()
        eq.prepare(sampleRate: Self.sampleRate, maxFrames: 512)
        let bands: [(name: String, shape: Biquad.Shape, frequency: Double, q: Double, gain: Double)] = [
            ("low", .lowShelf, 120, 0.7071, 6), ("mid1", .peaking, 400, 2, -4), ("mid2", .peaking, 1_500, 1, 3),
            ("mid3", .peaking, 5_000, 4, -8), ("high", .highShelf, 9_000, 0.7071, -6),
        ]
        func set(_ name: String, _ value: Double) { eq.setParameter(eq.parameters.firstIndex { $0.name == name }!, to: value, rampFrames: 0) }
        for band in bands {
            set("\(band.name)_freq", band.frequency)
            set("\(band.name)_gain", band.gain)
            if band.shape == .peaking { set("\(band.name)_q", band.q) }
        }
        var worst = 0.0
        for f in Self.frequencies {
            let expected = bands.reduce(0.0) { sum, band in
                let omega = tan(Double.pi * Double(f) / Double(Self.sampleRate)) / tan(Double.pi * band.frequency / Double(Self.sampleRate))
                return sum + 20 * log10(Self.prototype(band.shape, omega: omega, q: band.q, gainDB: band.gain))
            }
            let measured = Self.measuredGainDB(of: eq, at: f)
            worst = max(worst, abs(measured - expected))
            #expect(abs(measured - expected) <= 0.1, "\(f) Hz: \(measured) dB, the bands' \(expected) dB")
        }
        print("parametric EQ: largest difference from its bands' product \(String(format: "%.4f", worst)) dB")
    }

    /// A 100 Hz sine at −6 dBFS through a low-pass gliding over `rampFrames` from 20 kHz to
    /// 500 Hz, and the loudest of what an 8th-order 2 kHz high-pass finds in it after: the
    /// sine and its slow changes are far below that; any step of the filter's is not.
    static func stepsAfterGlide(rampFrames: Int) -> Double {
        let unit = FilterEffect(.lowpass)
        unit.prepare(sampleRate: sampleRate, maxFrames: 256)
        unit.setParameter(0, to: 20_000, rampFrames: 0)
        var ear = [Biquad](repeating: Biquad(), count: 4)
        for k in ear.indices { ear[k].coefficients = Biquad.Coefficients(.highpass, frequency: 2_000, q: 0.7071, sampleRate: Double(sampleRate)) }
        let buffer = AudioBuffer(capacity: 256)
        var loudest = 0.0
        for block in 0..<(3 * sampleRate / 256) {
            let start = block * 256
            for i in 0..<256 {
                let x = Float(0.5 * sin(2 * Double.pi * 100 * Double(start + i) / Double(sampleRate)))
                buffer.left[i] = x
                buffer.right[i] = x
            }
            if (start..<start + 256).contains(sampleRate) { unit.setParameter(0, to: 500, rampFrames: rampFrames) }
            unit.process(buffer.slice(frames: 256))
            for i in 0..<256 {
                var y = SIMD2(Double(buffer.left[i]), Double(buffer.right[i]))
                for k in ear.indices { y = ear[k].process(y) }
                if start + i >= sampleRate / 2 { loudest = max(loudest, abs(y.x), abs(y.y)) }
            }
        }
        return 20 * log10(max(loudest, 1e-20))
    }

    @Test("A low-pass gliding from 20 kHz to 500 Hz over a second makes no step louder than -90 dBFS")
    func glideWithoutZipper() {
        let glide = Self.stepsAfterGlide(rampFrames: Self.sampleRate)
        let jump = Self.stepsAfterGlide(rampFrames: 0)
        print("low-pass 20 kHz -> 500 Hz: above 2 kHz, gliding over 1 s \(String(format: "%.1f", glide)) dBFS; jumping \(String(format: "%.1f", jump)) dBFS")
        #expect(glide < -90)
        #expect(jump > -90, "the measurement hears a jump (else it proves nothing)")
    }

    @Test("A glide reaches its target on its last frame, by equal ratios for a frequency")
    func glideShape() {
        var glide = ParameterGlide(20_000, glide: .exponential)
        glide.move(to: 500, frames: 4)
        let values = (0..<5).map { _ in glide.advance() }
        #expect(values[3] == 500 && values[4] == 500)
        #expect(abs(values[1] / values[0] - values[2] / values[1]) < 1e-12)
        var linear = ParameterGlide(0, glide: .linear)
        linear.move(to: -12, frames: 3)
        #expect((0..<3).map { _ in linear.advance() } == [-4, -8, -12])
    }
}

/// Just enough complex arithmetic for a transfer function.
struct Complex {
    var re: Double, im: Double
    init(_ re: Double, _ im: Double) { (self.re, self.im) = (re, im) }
    var magnitude: Double { (re * re + im * im).squareRoot() }
    static func + (a: Complex, b: Complex) -> Complex { Complex(a.re + b.re, a.im + b.im) }
    static func * (a: Complex, b: Complex) -> Complex { Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) }
    static func * (a: Complex, k: Double) -> Complex { Complex(a.re * k, a.im * k) }
}
