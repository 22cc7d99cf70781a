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
/// −60 dB, measured). Allocates only at init; each frame is worked out with the same
/// operations wherever a render is split, so that changes nothing. Render thread only, after `init`.
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
    /// The most frames worked out in one stretch (see `process`).
    private static let stretchCapacity = 256
    /// A stretch's lines' outputs, damped and attenuated, a row of `stretchCapacity` per line,
    /// then a row of the diffused input.
    private let rows: UnsafeMutablePointer<Float>
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
        rows = .allocate(capacity: (Self.lines + 1) * Self.stretchCapacity)
        rows.initialize(repeating: 0, count: (Self.lines + 1) * Self.stretchCapacity)
        lineStart = starts
        lineLength = lengths
        set(settings)
    }

    deinit {
        memory.deallocate()
        rows.deallocate()
    }

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

    /// Adds the reverb of `frames` frames of the mono `input` to `left` and `right`, in
    /// stretches in which no delay wraps round: each line and diffuser is read and written at
    /// consecutive places then, and none reads what the stretch writes (a stretch is shorter
    /// than the shortest delay), so the lines' mixing goes four frames a vector. Every frame
    /// is worked out with the same operations in the same order wherever the stretches end.
    /// Render thread only.
    public func process(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) {
        var done = 0
        while done < frames {
            var count = min(frames - done, Self.stretchCapacity, diffuserLength.0 - diffuserPosition.0, diffuserLength.1 - diffuserPosition.1)
            let room = lineLength &- linePosition
            for line in 0..<Self.lines { count = min(count, Int(room[line])) }
            processStretch(input + done, addingTo: left + done, right + done, frames: count)
            done += count
            diffuserPosition.0 = diffuserPosition.0 + count == diffuserLength.0 ? 0 : diffuserPosition.0 + count
            diffuserPosition.1 = diffuserPosition.1 + count == diffuserLength.1 ? 0 : diffuserPosition.1 + count
            linePosition &+= Int32(count)
            linePosition.replace(with: 0, where: linePosition .== lineLength)
        }
    }

    /// `process` for `frames` frames in which no delay wraps round.
    private func processStretch(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) {
        let memory = self.memory, rows = self.rows, capacity = Self.stretchCapacity
        // Two Schroeder allpasses (gain 0.5) diffuse the input.
        let first = memory + diffuserStart.0 + diffuserPosition.0, second = memory + diffuserStart.1 + diffuserPosition.1
        let diffused = rows + Self.lines * capacity
        for n in 0..<frames {
            let x = input[n]
            let y1 = first[n] - 0.5 * x
            first[n] = x + 0.5 * y1
            let y2 = second[n] - 0.5 * y1
            second[n] = y1 + 0.5 * y2
            diffused[n] = y2
        }
        // The lines' outputs, damped (a one-pole low-pass each: (1 − d)·x + d·y) and attenuated, into the rows.
        let at = lineStart &+ linePosition
        let line0 = memory + Int(at[0]), line1 = memory + Int(at[1]), line2 = memory + Int(at[2]), line3 = memory + Int(at[3])
        let line4 = memory + Int(at[4]), line5 = memory + Int(at[5]), line6 = memory + Int(at[6]), line7 = memory + Int(at[7])
        let row0 = rows, row1 = rows + capacity, row2 = rows + 2 * capacity, row3 = rows + 3 * capacity
        let row4 = rows + 4 * capacity, row5 = rows + 5 * capacity, row6 = rows + 6 * capacity, row7 = rows + 7 * capacity
        var damped = self.damped
        let damping = self.damping, gain = lineGain
        for n in 0..<frames {
            let out = SIMD8(line0[n], line1[n], line2[n], line3[n], line4[n], line5[n], line6[n], line7[n])
            damped = out + damping * (damped - out)
            let decayed = damped * gain
            (row0[n], row1[n], row2[n], row3[n]) = (decayed[0], decayed[1], decayed[2], decayed[3])
            (row4[n], row5[n], row6[n], row7[n]) = (decayed[4], decayed[5], decayed[6], decayed[7])
        }
        self.damped = damped
        // Mixed by the Householder matrix (less 2/8 of their sum each) with the input (its
        // signs orthogonal to both outputs') back into the lines; two orthogonal sums of them
        // make the left and the right, crossed by the width. Four frames a vector, the last
        // ones as many as are left.
        let householder = Float(2) / Float(Self.lines), wetSame = self.wetSame, wetCrossed = self.wetCrossed
        var n = 0
        while n < frames {
            let lanes = min(4, frames - n)
            @inline(__always) func load(_ row: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
                guard lanes < 4 else { return UnsafeRawPointer(row + n).loadUnaligned(as: SIMD4<Float>.self) }
                var v = SIMD4<Float>()
                for k in 0..<lanes { v[k] = row[n + k] }
                return v
            }
            @inline(__always) func store(_ v: SIMD4<Float>, _ row: UnsafeMutablePointer<Float>) {
                guard lanes < 4 else { return UnsafeMutableRawPointer(row + n).storeBytes(of: v, as: SIMD4<Float>.self) }
                for k in 0..<lanes { row[n + k] = v[k] }
            }
            let d0 = load(row0), d1 = load(row1), d2 = load(row2), d3 = load(row3)
            let d4 = load(row4), d5 = load(row5), d6 = load(row6), d7 = load(row7)
            let y = load(diffused)
            // Each sum in lane order, as a vector's sum() adds its lanes.
            let share = householder * (((((((d0 + d1) + d2) + d3) + d4) + d5) + d6) + d7)
            store(d0 - share + y, line0)
            store(d1 - share + y, line1)
            store(d2 - share - y, line2)
            store(d3 - share - y, line3)
            store(d4 - share + y, line4)
            store(d5 - share + y, line5)
            store(d6 - share - y, line6)
            store(d7 - share - y, line7)
            let l = ((((((d0 + d1) + d2) + d3) - d4) - d5) - d6) - d7
            let r = ((((((d0 - d1) + d2) - d3) + d4) - d5) + d6) - d7
            store(load(left) + (wetSame * l + wetCrossed * r), left)
            store(load(right) + (wetSame * r + wetCrossed * l), right)
            n += lanes
        }
    }
}
