#if canImport(Glibc)
import Glibc
#endif

/// A voice's volume envelope (section 8.1.2, generators 33-40) or modulation envelope
/// (generators 25-32), stepped as libfluidsynth steps them: once per 64-frame control block,
/// counted from the note's own first frame (not a global grid), a value rising linearly from 0
/// to 1 over the attack, held, falling linearly toward the sustain level over the decay, and
/// falling from where it is to 0 over the release. The volume's gain is the value itself during
/// the attack and 960 cB × (1 − value) below full scale after it (so a full-scale fall of
/// 96 dB takes the decay time); the modulation envelope's value is used as it is. Render
/// thread only, after `init` on any thread.
struct Envelope {
    /// Which of a voice's two envelopes.
    enum Kind {
        /// Volume: released from the attack, its value is carried into the dB domain.
        case volume
        /// Modulation (pitch and filter): released from where it is, as it is.
        case modulation
    }

    /// Where the envelope is.
    enum Stage: Int {
        case delay, attack, hold, decay, sustain, release, finished
    }

    /// The generators' values for one note, in their units.
    struct Times {
        var delay: Int32 = -12_000
        var attack: Int32 = -12_000
        var hold: Int32 = -12_000
        var decay: Int32 = -12_000
        /// Sustain attenuation in centibels.
        var sustain: Int32 = 0
        var release: Int32 = -12_000
        var keyToHold: Int32 = 0
        var keyToDecay: Int32 = 0
    }

    private let kind: Kind
    private(set) var stage = Stage.delay
    private(set) var value: Float = 0
    private var count: Int32 = 0              // blocks spent in the stage
    // Per stage, in SIMD lanes (no heap, no reference counting on the render thread).
    private var blocks = SIMD8<Int32>(repeating: 0)
    private var increment = SIMD8<Float>(repeating: 0)
    private var minimum = SIMD8<Float>(repeating: -1)
    private var maximum = SIMD8<Float>(repeating: 2)

    /// An envelope of `kind` for `key` with `times`, at `sampleRate` (a modulation envelope's
    /// sustain is in 0.1 % units where the volume's is in centibels: the same 1/1000 of full scale).
    init(_ kind: Kind, _ times: Times, key: Int, sampleRate: Double) {
        self.kind = kind
        blocks[Stage.delay.rawValue] = Units.blocks(Units.delaySeconds(times.delay), sampleRate: sampleRate)
        let attack: Int32 = 1 + Units.blocks(Units.stageSeconds(times.attack), sampleRate: sampleRate)
        blocks[Stage.attack.rawValue] = attack
        increment[Stage.attack.rawValue] = 1 / Float(attack)
        maximum[Stage.attack.rawValue] = 1
        setHoldAndDecay(times, key: key, sampleRate: sampleRate)
        minimum[Stage.decay.rawValue] = min(max(1 - 0.001 * Float(times.sustain), 0), 1)
        blocks[Stage.sustain.rawValue] = .max
        setRelease(times.release, sampleRate: sampleRate)
        minimum[Stage.release.rawValue] = 0
        maximum[Stage.release.rawValue] = 1
        blocks[Stage.finished.rawValue] = .max
        minimum[Stage.finished.rawValue] = 0
        maximum[Stage.finished.rawValue] = 0
    }

    /// The gain a volume envelope gives now with a voice's `attenuation` and the modulation
    /// LFO's `tremolo`, both in centibels, as libfluidsynth combines them: the value times
    /// their gains in the attack, after it the attenuation's gain times the gain of the
    /// envelope's fall plus the tremolo (each table clamps at 0 cB: the tremolo only takes
    /// away). 0 while delayed or finished. `gains` is `Units.gains`.
    @inline(__always) func gain(attenuation: Float, tremolo: Float = 0, gains: UnsafePointer<Float> = Units.gains) -> Float {
        switch stage {
        case .delay, .finished: 0
        case .attack: value * Units.gain(centibels: attenuation, in: gains) * Units.gain(centibels: tremolo, in: gains)
        default: Units.gain(centibels: attenuation, in: gains) * Units.gain(centibels: Units.peakAttenuation * (1 - value) + tremolo, in: gains)
        }
    }

    /// What a modulation envelope gives the pitch and the filter: its value, through
    /// libfluidsynth's convex curve during the attack (its 128-step table at 127 × value,
    /// interpolated), so that the attack rises by 40 dB a decade of time as section 8.1.2
    /// draws it (measured: the same value as libfluidsynth's to 0.001 at every time).
    @inline(__always) var modulation: Float {
        guard stage == .attack else { return stage == .delay ? 0 : value }
        let x = min(max(127 * value, 0), 126.999), i = Int(x)
        return ModulatorSources.convex[i] + (ModulatorSources.convex[i + 1] - ModulatorSources.convex[i]) * (x - Float(i))
    }

    /// Steps one control block and returns the gain the block ramps to (a volume envelope).
    mutating func nextBlockGain(attenuation: Float = 0) -> Float {
        step()
        return gain(attenuation: attenuation)
    }

    /// One control block on: the next stage when the stage's blocks are spent or the value
    /// leaves its bounds.
    mutating func step() {
        while count >= Self.entry(&blocks, stage) {
            if stage == .decay { value = minimum[Stage.decay.rawValue] }
            stage = Stage(rawValue: stage.rawValue + 1)!
            count = 0
        }
        let next = (stage == .delay ? 0 : value) + Self.entry(&increment, stage)
        let (low, high) = (Self.entry(&minimum, stage), Self.entry(&maximum, stage))
        if next < low {
            value = low
            advance()
        } else if next > high {
            value = high
            advance()
        } else {
            value = next
            count += 1
        }
    }

    /// The hold and the decay of `times` for `key` (the key-to-hold and key-to-decay
    /// generators move them), as libfluidsynth counts them: the nearest whole number of
    /// blocks (so the shortest hold, 1 ms, is one block at 48 kHz), a hold of −32768 none.
    /// Render thread only, after `init`.
    mutating func setHoldAndDecay(_ times: Times, key: Int, sampleRate: Double) {
        let keyOffset = Int32(60 - key)
        blocks[Stage.hold.rawValue] = Units.nearestBlocks(Units.delaySeconds(times.hold &+ times.keyToHold &* keyOffset), sampleRate: sampleRate)
        let decay: Int32 = max(1, Units.nearestBlocks(Units.stageSeconds(times.decay &+ times.keyToDecay &* keyOffset), sampleRate: sampleRate))
        blocks[Stage.decay.rawValue] = decay
        increment[Stage.decay.rawValue] = -1 / Float(decay)
    }

    /// A legato note takes the voice over (libfluidsynth's multi-retrigger legato): back to
    /// the attack from where the envelope is, its value past the attack carried out of the dB
    /// domain first, then times `scale` (the old attenuation's gain over the new one's, so the
    /// volume does not jump); the attack then runs from there to 1, up or down. Render thread only.
    mutating func retriggerAttack(scale: Float = 1) {
        guard stage != .finished else { return }
        if stage.rawValue >= Stage.hold.rawValue {
            value = min(max(Units.gain(centibels: Units.peakAttenuation * (1 - value)), 0), 1)
        }
        stage = .attack
        count = 0
        value *= scale
        let attack = Stage.attack.rawValue
        if value <= 1 {
            (increment[attack], minimum[attack], maximum[attack]) = (1 / Float(blocks[attack]), -1, 1)
        } else {
            (increment[attack], minimum[attack], maximum[attack]) = (-value / Float(blocks[attack]), 1, value)
        }
    }

    /// Makes the release last `timecents` (from full scale), a volume's 16 ms at least. Render thread only.
    mutating func setRelease(_ timecents: Int32, sampleRate: Double) {
        // A volume release is at least 16 ms (−7200 timecents), as libfluidsynth holds it (its
        // FLUID_MIN_VOLENVRELEASE, against clicks); a modulation release is not held.
        let held = kind == .volume ? max(timecents, -7_200) : timecents
        let release: Int32 = 1 + Units.blocks(Units.stageSeconds(held), sampleRate: sampleRate)
        blocks[Stage.release.rawValue] = release
        increment[Stage.release.rawValue] = -1 / Float(release)
    }

    /// Note-off: from the volume's attack, the value is carried into the dB domain so that the
    /// gain does not jump; then the release. Nothing once finished.
    mutating func release() {
        guard stage != .finished, stage != .release else { return }
        if stage == .attack && kind == .volume {
            let gain = max(value, 1e-6)
            value = min(max(1 + 200 * log10f(gain) / Units.peakAttenuation, 0), 1)
        } else if stage == .attack {
            // The modulation envelope's attack gives its value through the convex curve: the
            // release falls from what it gave, as libfluidsynth's does, not from the line under it.
            value = modulation
        } else if stage == .delay {
            value = 0
        }
        stage = .release
        count = 0
    }

    /// `stage`'s entry of `table`, read where it lies: indexing a vector by a run-time value
    /// copies the vector to the stack first and reads the entry back from there.
    @inline(__always) private static func entry<Table: SIMD>(_ table: inout Table, _ stage: Stage) -> Table.Scalar {
        withUnsafeBytes(of: &table) { $0.load(fromByteOffset: stage.rawValue &* MemoryLayout<Table.Scalar>.stride, as: Table.Scalar.self) }
    }

    private mutating func advance() {
        stage = Stage(rawValue: min(stage.rawValue + 1, Stage.finished.rawValue))!
        count = 0
    }
}
