#if canImport(Glibc)
import Glibc
#endif

/// The SoundFont units (section 8.1.3) as libfluidsynth converts them, so that Pianola's
/// voices sound as its do. Any thread.
enum Units {
    /// libfluidsynth's control rate: envelopes and LFOs step once per this many frames, the
    /// amplitude ramping linearly between steps.
    static let controlBlock = 64

    /// The dB range the volume envelope's 0...1 spans after its attack (960 cB).
    static let peakAttenuation: Float = 960

    /// Seconds for a delay or hold time in timecents: 0 for −32768 and below, else
    /// 2^(tc/1200) with tc within −12000...5000.
    static func delaySeconds(_ timecents: Int32) -> Double {
        timecents <= -32_768 ? 0 : exp2(Double(min(max(timecents, -12_000), 5_000)) / 1_200)
    }

    /// Seconds for an attack, decay or release time in timecents: 2^(tc/1200) with tc within
    /// −12000...8000 (the shortest is about 1 ms).
    static func stageSeconds(_ timecents: Int32) -> Double {
        exp2(Double(min(max(timecents, -12_000), 8_000)) / 1_200)
    }

    /// Gain for an attenuation in centibels as libfluidsynth's table gives it: 10^(−cB/200)
    /// of the whole centibels (its table has a step each), 1 at 0 and below, 0 past 1440
    /// (144 dB down, where the table ends). `table` is `gains` (a caller on the render path
    /// keeps it: each read of a lazy global goes through `swift_once`).
    @inline(__always) static func gain(centibels: Float, in table: UnsafePointer<Float> = gains) -> Float {
        centibels <= 0 ? 1 : centibels >= 1_441 ? 0 : table[Int(centibels)]
    }

    /// 10^(−cB/200) for each whole centibel 0...1440, tabled once (on first use, which a
    /// voice's making does off the render thread).
    nonisolated(unsafe) static let gains: UnsafePointer<Float> = {
        let table = UnsafeMutablePointer<Float>.allocate(capacity: 1_441)
        for centibels in 0...1_440 { table[centibels] = powf(10, -Float(centibels) / 200) }
        return UnsafePointer(table)
    }()

    /// How many whole cents either way of 0 `centsRatios` holds (ten octaves).
    static let tabledCents = 12_000

    /// 2^(n/1200) for each whole number of cents n within ±`tabledCents`, from n = −`tabledCents`,
    /// each exactly what `exp2` gives for it, tabled once (on first use, which a voice's making
    /// does off the render thread): a voice whose pitch moves looks its step up every block.
    nonisolated(unsafe) static let centsRatios: UnsafePointer<Double> = {
        let table = UnsafeMutablePointer<Double>.allocate(capacity: 2 * tabledCents + 1)
        for cents in -tabledCents...tabledCents { table[cents + tabledCents] = exp2(Double(cents) / 1_200) }
        return UnsafePointer(table)
    }()

    /// 2^(`cents`/1200) for a whole number of cents: from `table` (`centsRatios`, kept by a
    /// caller on the render path) within its range, else worked out; the same value either way.
    @inline(__always) static func ratio(wholeCents cents: Int, in table: UnsafePointer<Double>) -> Double {
        abs(cents) <= tabledCents ? table[cents + tabledCents] : exp2(Double(cents) / 1_200)
    }

    /// The largest whole number not above `value` (within ±2³¹), as `rounded(.down)` gives it
    /// but without libm's call: truncated, then one less where that rounded up.
    @inline(__always) static func floor(_ value: Float) -> Int32 {
        let truncated = Int32(value)
        return Float(truncated) > value ? truncated &- 1 : truncated
    }

    /// The whole number of control blocks nearest `seconds` at `sampleRate`.
    static func nearestBlocks(_ seconds: Double, sampleRate: Double) -> Int32 {
        Int32(clamping: Int(sampleRate * seconds / Double(controlBlock) + 0.5))
    }

    /// How many whole control blocks `seconds` lasts at `sampleRate`.
    static func blocks(_ seconds: Double, sampleRate: Double) -> Int32 {
        Int32(clamping: Int(sampleRate * seconds / Double(controlBlock)))
    }
}
