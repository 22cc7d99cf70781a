#if canImport(Glibc)
import Glibc
#endif

/// A stereo chorus for a mono send: copies of the input read from one delay line at delays
/// that sweep with sine LFOs (their phases spread evenly), each copy on both sides, the right
/// one a 200th of a sweep behind and inverted, so that the sides move against each other as
/// libfluidsynth's chorus's do (their correlation measured near −0.9 on a held note). The parameters are libfluidsynth's (voices, level, speed,
/// depth). Allocates only at init; every frame is processed alone, so where a render is split
/// changes nothing. Render thread only, after `init`.
public final class Chorus {
    /// The chorus's settings, libfluidsynth's four (its sine type). Any thread.
    public struct Settings: Equatable, Sendable {
        /// 1...99: the copies of the input.
        public var voices = 3
        /// 0...10: the output's level.
        public var level = 2.0
        /// 0.1...5 Hz: how fast the delays sweep.
        public var speed = 0.3
        /// 0...256 ms: how far the delays sweep.
        public var depth = 8.0

        /// libfluidsynth's defaults. Any thread.
        public init() {}
    }

    /// The output's scale: the wet level at libfluidsynth's defaults, measured.
    private static let outputScale: Float = 3.1
    /// The shortest delay a copy reads at, in seconds.
    private static let minimumDelay = 0.001

    private let line: UnsafeMutablePointer<Float>
    private let mask: Int
    private var write = 0
    /// Frames of silent input up to the last one processed (counted up to the line's length,
    /// past which the line holds only zeros and the chorus adds nothing).
    private var silentFrames = 0
    private let sampleRate: Double
    private var voices = 0
    private var phases: UnsafeMutablePointer<Double>
    private let lfos: UnsafeMutablePointer<SIMD4<Double>>   // per voice, while processing: the phasors
    private var phaseStep = 0.0, centre = 0.0, sweep = 0.0
    private var gain: Float = 0
    /// The settings in force. Render thread only.
    public private(set) var settings = Settings()

    /// A chorus at `sampleRate` with `settings`. Control thread.
    public init(sampleRate: Double, settings: Settings = Settings()) {
        self.sampleRate = sampleRate
        let longest = Int((Self.minimumDelay + 0.256) * sampleRate) + 4
        var size = 1
        while size < longest { size <<= 1 }
        line = .allocate(capacity: size)
        line.initialize(repeating: 0, count: size)
        mask = size - 1
        silentFrames = size
        phases = .allocate(capacity: 99)
        phases.initialize(repeating: 0, count: 99)
        lfos = .allocate(capacity: 99)
        lfos.initialize(repeating: .zero, count: 99)
        set(settings)
    }

    deinit {
        line.deallocate()
        phases.deallocate()
        lfos.deallocate()
    }

    /// Changes the settings; the copies' LFOs restart spread evenly. Render thread only.
    public func set(_ settings: Settings) {
        self.settings = settings
        voices = min(max(settings.voices, 1), 99)
        for voice in 0..<voices { phases[voice] = Double(voice) / Double(voices) }
        phaseStep = min(max(settings.speed, 0.1), 5) / sampleRate
        sweep = min(max(settings.depth, 0), 256) * 0.001 * sampleRate / 2
        centre = Self.minimumDelay * sampleRate + sweep
        gain = Float(min(max(settings.level, 0), 10)) * Self.outputScale / Float(voices)
    }

    /// Empties the delay line. Render thread only.
    public func clear() {
        line.update(repeating: 0, count: mask + 1)
        silentFrames = mask + 1
    }

    /// Adds the chorus of `frames` frames of the mono `input` to `left` and `right`. Render
    /// thread only. Each LFO is a phasor turned by one step a frame (a complex multiplication,
    /// not a sine a frame), set afresh from its phase at the start of every call. While the
    /// input is silent and the line holds only zeros (most songs send nothing to the chorus),
    /// it only moves on: what it would add is zero.
    public func process(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) {
        var lastSound = frames - 1
        while lastSound >= 0 && input[lastSound] == 0 { lastSound -= 1 }
        defer {
            silentFrames = min(lastSound < 0 ? silentFrames + frames : frames - 1 - lastSound, mask + 1)
            for voice in 0..<voices {
                let next = phases[voice] + phaseStep * Double(frames)
                phases[voice] = next - next.rounded(.down)
            }
        }
        if lastSound < 0 && silentFrames > mask {
            write = (write + frames) & mask
            return
        }
        let line = self.line, mask = self.mask, phases = self.phases, voices = self.voices
        let turn = SIMD2(cos(2 * Double.pi * phaseStep), sin(2 * Double.pi * phaseStep))
        // Per voice: (cos, sin) of the left copy's phase and of the right's, a 200th of a sweep on.
        do {
            let lfos = self.lfos
            for voice in 0..<voices {
                let a = 2 * Double.pi * phases[voice], b = 2 * Double.pi * (phases[voice] + 0.005)
                lfos[voice] = SIMD4(cos(a), sin(a), cos(b), sin(b))
            }
            var write = self.write
            for frame in 0..<frames {
                line[write] = input[frame]
                var l: Float = 0, r: Float = 0
                for voice in 0..<voices {
                    let p = lfos[voice]
                    l += read(centre + sweep * p.y, write, line, mask)
                    r -= read(centre + sweep * p.w, write, line, mask)
                    // Turn both phasors by one step: (c, s) × (cos Δ, sin Δ).
                    lfos[voice] = SIMD4(p.x * turn.x - p.y * turn.y, p.y * turn.x + p.x * turn.y,
                                        p.z * turn.x - p.w * turn.y, p.w * turn.x + p.z * turn.y)
                }
                left[frame] += gain * l
                right[frame] += gain * r
                write = (write + 1) & mask
            }
            self.write = write
        }
    }

    /// The line `delay` frames behind `write`, between its two points linearly.
    @inline(__always) private func read(_ delay: Double, _ write: Int, _ line: UnsafeMutablePointer<Float>, _ mask: Int) -> Float {
        let back = Int(delay), fraction = Float(delay - Double(back))
        let a = line[(write - back) & mask], b = line[(write - back - 1) & mask]
        return a + fraction * (b - a)
    }
}
