#if canImport(Glibc)
import Glibc
#endif

/// A stereo reverb for a mono send: Jot's feedback delay network. Two allpass diffusers smear
/// the input, eight delay lines of mutually prime lengths feed back through a Householder
/// matrix (lossless: it only mixes), each line losing the gain that makes the tail fall 60 dB
/// in the room's decay time and passing a one-pole low-pass that damps the highs faster;
/// two orthogonal sums of the lines make the left and right outputs, crossed by the width as
/// Freeverb crosses its outputs. The parameters are libfluidsynth's (room size, damping,
/// width, level), and at its defaults the tail falls as long as its reverb's does (0.8 s to
/// −60 dB, measured). Allocates only at init; every frame is processed alone, so where a
/// render is split changes nothing. Render thread only, after `init`.
public final class Reverb {
    /// The reverb's settings, libfluidsynth's four. Any thread.
    public struct Settings: Equatable, Sendable {
        /// 0...1: the decay time, from 0.2 s to 3.2 s to −60 dB.
        public var roomSize: Double = 0.2
        /// 0...1: how much faster the highs decay.
        public var damping: Double = 0
        /// 0...1: how far apart the two outputs are (1 the widest).
        public var width: Double = 0.5
        /// 0...1: the output's level.
        public var level: Double = 0.9

        /// libfluidsynth's defaults. Any thread.
        public init() {}

        /// Seconds the tail takes to fall 60 dB. Any thread.
        public var decaySeconds: Double { 0.2 + 3 * min(max(roomSize, 0), 1) }
    }

    private static let lines = 8
    /// The delay lines' lengths at 44.1 kHz (mutually prime), and the diffusers'.
    private static let lineLengths: [Int] = [1_116, 1_188, 1_277, 1_356, 1_422, 1_491, 1_557, 1_617]
    private static let diffuserLengths: [Int] = [225, 556]
    /// The output's scale: the wet level at libfluidsynth's defaults, measured.
    private static let outputScale: Float = 0.35

    private let memory: UnsafeMutablePointer<Float>
    private let memorySize: Int
    private var lineStart = SIMD8<Int32>(), lineLength = SIMD8<Int32>(), linePosition = SIMD8<Int32>()
    private var lineGain = SIMD8<Float>(repeating: 0)
    private var damped = SIMD8<Float>(repeating: 0)
    private var damping: Float = 0
    private var diffuserStart: (Int, Int) = (0, 0), diffuserLength: (Int, Int) = (1, 1), diffuserPosition: (Int, Int) = (0, 0)
    private var wetSame: Float = 0, wetCrossed: Float = 0
    private let sampleRate: Double
    /// The settings in force. Render thread only.
    public private(set) var settings = Settings()

    /// A reverb at `sampleRate` with `settings`. Control thread.
    public init(sampleRate: Double, settings: Settings = Settings()) {
        self.sampleRate = sampleRate
        let scale = sampleRate / 44_100
        var offset = 0
        var starts = SIMD8<Int32>(), lengths = SIMD8<Int32>()
        for line in 0..<Self.lines {
            let length = max(2, Int((Double(Self.lineLengths[line]) * scale).rounded()))
            (starts[line], lengths[line]) = (Int32(offset), Int32(length))
            offset += length
        }
        let first = max(1, Int((Double(Self.diffuserLengths[0]) * scale).rounded()))
        let second = max(1, Int((Double(Self.diffuserLengths[1]) * scale).rounded()))
        diffuserStart = (offset, offset + first)
        diffuserLength = (first, second)
        offset += first + second
        memorySize = offset
        memory = .allocate(capacity: offset)
        memory.initialize(repeating: 0, count: offset)
        lineStart = starts
        lineLength = lengths
        set(settings)
    }

    deinit { memory.deallocate() }

    /// Changes the settings; the tail goes on from where it is. Render thread only.
    public func set(_ settings: Settings) {
        self.settings = settings
        let decay = settings.decaySeconds
        for line in 0..<Self.lines {
            // The gain that takes this line's round trip to −60 dB over `decay` seconds.
            lineGain[line] = Float(pow(10, -3 * Double(lineLength[line]) / (sampleRate * decay)))
        }
        damping = Float(min(max(settings.damping, 0), 1) * 0.4)
        let width = Float(min(max(settings.width, 0), 1)), level = Float(min(max(settings.level, 0), 1)) * Self.outputScale
        wetSame = level * (width / 2 + 0.5)
        wetCrossed = level * ((1 - width) / 2)
    }

    /// Empties the tail. Render thread only.
    public func clear() {
        memory.update(repeating: 0, count: memorySize)
        damped = SIMD8(repeating: 0)
    }

    /// Adds the reverb of `frames` frames of the mono `input` to `left` and `right`. Render thread only.
    public func process(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) {
        let memory = self.memory
        var position = linePosition, damped = self.damped
        let start = lineStart, length = lineLength, gain = lineGain, damping = self.damping
        var (p1, p2) = diffuserPosition
        let (s1, s2) = diffuserStart, (l1, l2) = diffuserLength
        // The two outputs' signs over the lines: orthogonal, so the two sides decorrelate.
        let leftSigns = SIMD8<Float>(1, 1, 1, 1, -1, -1, -1, -1), rightSigns = SIMD8<Float>(1, -1, 1, -1, 1, -1, 1, -1)
        // The input goes into the lines with a third pattern of signs, orthogonal to both.
        let inputSigns = SIMD8<Float>(1, 1, -1, -1, 1, 1, -1, -1)
        let householder = Float(2) / Float(Self.lines)
        for frame in 0..<frames {
            // Two Schroeder allpasses (gain 0.5) diffuse the input.
            var x = input[frame]
            let d1 = memory[s1 + p1]
            let y1 = d1 - 0.5 * x
            memory[s1 + p1] = x + 0.5 * y1
            p1 = p1 + 1 == l1 ? 0 : p1 + 1
            x = y1
            let d2 = memory[s2 + p2]
            let y2 = d2 - 0.5 * x
            memory[s2 + p2] = x + 0.5 * y2
            p2 = p2 + 1 == l2 ? 0 : p2 + 1
            // The lines' outputs, damped and attenuated, mixed by the Householder matrix.
            let at = start &+ position
            var out = SIMD8<Float>()
            for line in 0..<Self.lines { out[line] = memory[Int(at[line])] }
            damped = out + damping * (damped - out)   // one-pole low-pass: (1 − d)·x + d·y
            let decayed = damped * gain
            let mixed = decayed - householder * decayed.sum() + inputSigns * y2
            for line in 0..<Self.lines { memory[Int(at[line])] = mixed[line] }
            position &+= 1
            position.replace(with: 0, where: position .== length)
            let l = (decayed * leftSigns).sum(), r = (decayed * rightSigns).sum()
            left[frame] += wetSame * l + wetCrossed * r
            right[frame] += wetSame * r + wetCrossed * l
        }
        linePosition = position
        self.damped = damped
        diffuserPosition = (p1, p2)
    }
}
