#if canImport(Glibc)
import Glibc
#endif

/// A feed-forward compressor (Giannoulis, Massberg and Reiss, "Digital Dynamic Range
/// Compressor Design", JAES 2012): the key's peak level over the last 10 ms (`holdSeconds`: a
/// held peak, so a tone's own waveform does not ripple the gain), in dB; the gain the static
/// curve asks for (above the threshold, `ratio` dB in for 1 dB out, a soft knee around it),
/// smoothed in dB by a branching one-pole that reaches 90 % of a fall in `attack` and 90 % of
/// a rise in `release` (which starts when the peak leaves the hold), then the makeup gain. Keyed by its own input, or by another bus through a
/// `SideChain` (the music ducking under dialogue). Render thread only, after `prepare`.
public final class CompressorEffect: EffectUnit {
    /// Threshold, ratio, knee, attack, release, makeup. Any thread.
    public let parameters = [
        EffectParameter(name: "threshold", minimum: -80, maximum: 0, defaultValue: -20, unit: "dB", summary: "the level above which it compresses"),
        EffectParameter(name: "ratio", minimum: 1, maximum: 50, defaultValue: 4, summary: "dB over the threshold in for each dB out (50: a limiter)"),
        EffectParameter(name: "knee", minimum: 0, maximum: 24, defaultValue: 0, unit: "dB", summary: "width of the soft bend around the threshold"),
        EffectParameter(name: "attack", minimum: 0.0001, maximum: 1, defaultValue: 0.01, unit: "s", summary: "time to 90 % of a gain fall"),
        EffectParameter(name: "release", minimum: 0.001, maximum: 5, defaultValue: 0.2, unit: "s", summary: "time to 90 % of a gain rise"),
        EffectParameter(name: "makeup", minimum: -24, maximum: 24, defaultValue: 0, unit: "dB", summary: "gain after compressing"),
    ]
    /// None: no lookahead. Any thread.
    public let latencyFrames = 0
    /// None: it adds no sound of its own. Any thread.
    public let tailFrames = 0
    /// The bus whose level drives it, nil for its own input. Any thread.
    public let sideChain: SideChain?
    private var values: [ParameterGlide]
    private var sampleRate = 48_000.0
    private var reduction = 0.0               // dB, ≤ 0, smoothed
    private var attackCoefficient = 0.0
    private var releaseCoefficient = 0.0
    private var lowestGain: Float = 1
    private var keyWrites = -1                            // the side chain's slice being read, and where
    private var keyFrame = 0
    private var blockPeaks: UnsafeMutablePointer<Float>?   // the last complete blocks' peaks, a ring
    private var blockCount = 0
    private var blockIndex = 0
    private var blockPeak: Float = 0                       // the block being filled
    private var blockFilled = 0

    /// How long a peak of the key holds the level up. Any thread.
    public static let holdSeconds = 0.01
    /// Frames in each block of the hold's running maximum. Any thread.
    public static let holdBlock = 16

    /// A compressor at its parameters' defaults, keyed by `sideChain` (its own input when nil). Control thread.
    public init(sideChain: SideChain? = nil) {
        self.sideChain = sideChain
        values = []
        values = parameters.map { ParameterGlide($0.defaultValue, glide: .linear) }
    }

    deinit { blockPeaks?.deallocate() }

    /// Works out the smoothing and takes the hold's memory at `sampleRate`. Control thread.
    public func prepare(sampleRate: Int, maxFrames: Int) {
        self.sampleRate = Double(sampleRate)
        updateTimes()
        blockPeaks?.deallocate()
        blockCount = max(1, Int((Self.holdSeconds * Double(sampleRate)).rounded()) / Self.holdBlock)
        blockPeaks = .allocate(capacity: blockCount)
        blockPeaks!.initialize(repeating: 0, count: blockCount)
    }

    /// `key` taken into the hold; the peak over the hold's blocks and the block being filled.
    @inline(__always) private func held(_ key: Float, in peaks: UnsafeMutablePointer<Float>) -> Float {
        blockPeak = max(blockPeak, key)
        blockFilled += 1
        var peak = blockPeak
        for k in 0..<blockCount { peak = max(peak, peaks[k]) }
        if blockFilled == Self.holdBlock {
            peaks[blockIndex] = blockPeak
            blockIndex = (blockIndex + 1) % blockCount
            blockPeak = 0
            blockFilled = 0
        }
        return peak
    }

    /// Moves threshold (0), ratio (1), knee (2), attack (3), release (4) or makeup (5). Render thread only.
    public func setParameter(_ index: Int, to value: Double, rampFrames: Int) {
        guard values.indices.contains(index) else { return }
        values[index].move(to: min(max(value, parameters[index].minimum), parameters[index].maximum), frames: index == 3 || index == 4 ? 0 : rampFrames)
        updateTimes()
    }

    /// The gain the static curve gives a level of `level` dB: 0 below the knee, the ratio's
    /// line above it, a quadratic between. Any thread.
    public static func staticGain(level: Double, threshold: Double, ratio: Double, knee: Double) -> Double {
        let over = level - threshold
        if 2 * over < -knee { return 0 }
        if knee > 0 && 2 * abs(over) <= knee {
            let x = over + knee / 2
            return (1 / ratio - 1) * x * x / (2 * knee)
        }
        return (1 / ratio - 1) * over
    }

    /// The smallest gain it applied since the last call (how far it ducked). Render thread only.
    public func takeLowestGain() -> Float {
        defer { lowestGain = 1 }
        return lowestGain
    }

    /// Compresses `audio` in place. Render thread only.
    public func process(_ audio: StereoSlice) {
        guard let peaks = blockPeaks else { return }
        let left = audio.left, right = audio.right
        for i in 0..<audio.frames {
            let threshold = values[0].advance(), ratio = values[1].advance(), knee = values[2].advance(), makeup = values[5].advance()
            let key = held(keyLevel() ?? max(abs(left[i]), abs(right[i])), in: peaks)
            let level = key > 1e-9 ? 20 * log10(Double(key)) : -180
            let target = Self.staticGain(level: level, threshold: threshold, ratio: ratio, knee: knee)
            let coefficient = target < reduction ? attackCoefficient : releaseCoefficient
            reduction = coefficient * reduction + (1 - coefficient) * target
            if reduction > -1e-9 && target == 0 { reduction = 0 }
            let gain = Float(pow(10, (reduction + makeup) / 20))
            lowestGain = min(lowestGain, gain)
            left[i] *= gain
            right[i] *= gain
        }
    }

    /// The side chain's next frame (its slices may be read in several parts), nil without one.
    @inline(__always) private func keyLevel() -> Float? {
        guard let sideChain else { return nil }
        if sideChain.writes != keyWrites {
            keyWrites = sideChain.writes
            keyFrame = 0
        }
        defer { keyFrame += 1 }
        return sideChain.level(at: keyFrame)
    }

    /// Back to no reduction, nothing held. Render thread only.
    public func reset() {
        reduction = 0
        blockPeaks?.update(repeating: 0, count: blockCount)
        blockPeak = 0
        blockFilled = 0
    }

    /// One-pole coefficients reaching 90 % of a step in the attack and release times.
    private func updateTimes() {
        attackCoefficient = exp(-log(10) / (values[3].value * sampleRate))
        releaseCoefficient = exp(-log(10) / (values[4].value * sampleRate))
    }
}
