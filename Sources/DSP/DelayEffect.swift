#if canImport(Glibc)
import Glibc
#endif

/// A feedback delay (an echo): what comes in returns after `time`, each return fed back at
/// `feedback`, mixed with the dry sound by `mix`. The delay is a whole number of frames (exact
/// to the frame) while it stands, and read between frames while it glides, so a moving time
/// bends the pitch as a tape delay does instead of clicking. Memory for the longest time is
/// taken in `prepare`. Render thread only, after `prepare`.
public final class DelayEffect: EffectUnit {
    /// Time (s), feedback, mix. Any thread.
    public let parameters = [
        EffectParameter(name: "time", minimum: 0.001, maximum: DelayEffect.longest, defaultValue: 0.375, unit: "s",
                        summary: "from the sound to its echo; a note value (1/8, 1/8. dotted, 1/8t triplet) follows the song's tempo"),
        EffectParameter(name: "feedback", minimum: 0, maximum: 0.95, defaultValue: 0.35, summary: "how much of each echo returns again"),
        EffectParameter(name: "mix", minimum: 0, maximum: 1, defaultValue: 0.3, summary: "the echoes' share of the output (0 dry, 1 echoes only)"),
    ]
    /// None: the dry sound passes at once. Any thread.
    public let latencyFrames = 0
    /// Longest delay time, seconds. Any thread.
    public static let longest = 4.0
    private var time: ParameterGlide
    private var feedback: ParameterGlide
    private var mix: ParameterGlide
    private var sampleRate = 48_000.0
    private var left: UnsafeMutablePointer<Float>?
    private var right: UnsafeMutablePointer<Float>?
    private var mask = 0
    private var write = 0

    /// A delay at its parameters' defaults. Control thread.
    public init() {
        time = ParameterGlide(parameters[0].defaultValue, glide: .linear)
        feedback = ParameterGlide(parameters[1].defaultValue, glide: .linear)
        mix = ParameterGlide(parameters[2].defaultValue, glide: .linear)
    }

    deinit {
        left?.deallocate()
        right?.deallocate()
    }

    /// Until the echoes have fallen 80 dB: one time per 1/feedback of the fall. Render thread,
    /// or the control thread between renders.
    public var tailFrames: Int {
        let returns = feedback.value > 0.0001 ? (-4 / log10(feedback.value)).rounded(.up) : 0
        return Int((1 + returns) * time.value * sampleRate)
    }

    /// Takes the memory for the longest time at `sampleRate`. Control thread.
    public func prepare(sampleRate: Int, maxFrames: Int) {
        self.sampleRate = Double(sampleRate)
        var size = 1
        while size < Int(Self.longest * Double(sampleRate)) + 2 { size *= 2 }
        left?.deallocate()
        right?.deallocate()
        left = .allocate(capacity: size)
        right = .allocate(capacity: size)
        left!.initialize(repeating: 0, count: size)
        right!.initialize(repeating: 0, count: size)
        mask = size - 1
        write = 0
    }

    /// Moves time (0), feedback (1) or mix (2). Render thread only.
    public func setParameter(_ index: Int, to value: Double, rampFrames: Int) {
        guard parameters.indices.contains(index) else { return }
        let held = min(max(value, parameters[index].minimum), parameters[index].maximum)
        switch index {
        case 0: time.move(to: held, frames: rampFrames)
        case 1: feedback.move(to: held, frames: rampFrames)
        default: mix.move(to: held, frames: rampFrames)
        }
    }

    /// Echoes `audio` in place. Render thread only.
    public func process(_ audio: StereoSlice) {
        guard let left = self.left, let right = self.right else { return }
        for i in 0..<audio.frames {
            let frames = time.advance() * sampleRate
            let back = max(1, frames.rounded())
            let echo: SIMD2<Float>
            if time.isGliding && frames != back {
                // Between two frames while it glides (linear interpolation).
                let whole = Int(max(1, frames.rounded(.down))), part = Float(max(1, frames) - Double(whole))
                let a = (write - whole) & mask, b = (write - whole - 1) & mask
                echo = SIMD2(left[a] + part * (left[b] - left[a]), right[a] + part * (right[b] - right[a]))
            } else {
                let at = (write - Int(back)) & mask
                echo = SIMD2(left[at], right[at])
            }
            let dry = SIMD2(audio.left[i], audio.right[i])
            let gain = Float(feedback.advance()), wet = Float(mix.advance())
            left[write] = dry.x + gain * echo.x
            right[write] = dry.y + gain * echo.y
            let out = (1 - wet) * dry + wet * echo
            audio.left[i] = out.x
            audio.right[i] = out.y
            write = (write + 1) & mask
        }
    }

    /// Forgets every echo. Render thread only.
    public func reset() {
        left?.update(repeating: 0, count: mask + 1)
        right?.update(repeating: 0, count: mask + 1)
    }
}
