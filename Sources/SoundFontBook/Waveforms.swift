#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SF2

/// Sample data the project's fonts are made of, computed (never recorded): looped tones built
/// from harmonics, and one-shot drum sounds from sines, sweeps and a seeded noise generator.
/// Deterministic, so the fonts are byte-for-byte reproducible.
enum Waveforms {
    /// Points per second of every sample.
    static let sampleRate = 44_000

    /// A looped tone: `cycles` periods of `pointsPerCycle` points (pitch = 44000 / points at
    /// the root key), the loop over all but the first and last period. `harmonics[n]` is the
    /// amplitude of harmonic n+1; the peak is normalized to `peak` of full scale.
    static func tone(_ name: String, harmonics: [Double], pointsPerCycle: Int, rootKey: UInt8, peak: Double = 0.8,
                     cycles: Int = 8) -> SF2Sample {
        var wave = [Double](repeating: 0, count: pointsPerCycle)
        for (index, amplitude) in harmonics.enumerated() where amplitude != 0 {
            let n = Double(index + 1)
            for i in 0..<pointsPerCycle {
                wave[i] += amplitude * sin(2 * Double.pi * n * Double(i) / Double(pointsPerCycle))
            }
        }
        let top = wave.map(abs).max() ?? 1
        let cycle = wave.map { Int16(($0 / top * peak * 32767).rounded()) }
        let data = (0..<cycles).flatMap { _ in cycle }
        return SF2Sample(name: name, data: data, sampleRate: sampleRate, rootKey: rootKey,
                         loop: (pointsPerCycle, pointsPerCycle * (cycles - 1)))
    }

    /// A naive square: `high` for the first half of each cycle, `-high` for the second.
    static func square(_ name: String, pointsPerCycle: Int, rootKey: UInt8, peak: Double = 0.8) -> SF2Sample {
        let cycle = (0..<pointsPerCycle).map { Int16(($0 < pointsPerCycle / 2 ? 1 : -1) * peak * 32767) }
        let data = (0..<8).flatMap { _ in cycle }
        return SF2Sample(name: name, data: data, sampleRate: sampleRate, rootKey: rootKey,
                         loop: (pointsPerCycle, pointsPerCycle * 7))
    }

    /// A one-shot of `seconds`, point by point from `value(t)` (t in seconds), clipped to ±1.
    static func oneShot(_ name: String, seconds: Double, rootKey: UInt8 = 60, _ value: (Double) -> Double) -> SF2Sample {
        let count = Int(seconds * Double(sampleRate))
        let data = (0..<count).map { i -> Int16 in
            let v = max(-1, min(1, value(Double(i) / Double(sampleRate))))
            return Int16((v * 32767).rounded())
        }
        return SF2Sample(name: name, data: data, sampleRate: sampleRate, rootKey: rootKey)
    }

    /// A sine whose frequency glides from `from` to `to` Hz, decaying with time constant `decay` s.
    static func sweep(from: Double, to: Double, decay: Double) -> (Double) -> Double {
        { t in
            // Phase of an exponential glide: ∫ f(t) dt with f(t) = to + (from − to)·e^(−t/0.04).
            let phase = 2 * Double.pi * (to * t + (from - to) * 0.04 * (1 - exp(-t / 0.04)))
            return sin(phase) * exp(-t / decay)
        }
    }

    /// White noise from a fixed seed, decaying with time constant `decay`; `brightness` 0...1
    /// mixes in the difference of successive values (a crude high-pass).
    static func noise(decay: Double, brightness: Double, seed: UInt64) -> (Double) -> Double {
        var state = seed
        var previous = 0.0
        return { t in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let white = Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
            let bright = (white - previous) / 2
            previous = white
            return ((1 - brightness) * white + brightness * bright) * exp(-t / decay)
        }
    }
}
