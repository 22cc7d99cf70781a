#if canImport(Glibc)
import Glibc
#endif
import CBarrier

/// A stereo reverb for a mono send, built as libfluidsynth 2's is (Jot's feedback delay
/// network): the input, scaled and passed through a tone corrector, feeds eight delay lines
/// whose outputs, each damped by a one-pole low-pass with the gain that makes the tail fall
/// 60 dB in the room's decay time, come back through a permuted Householder matrix; each line
/// is read at a delay a slow sine moves by a few frames (phases spread evenly, updated every
/// 50 frames, read between frames through a first-order all-pass interpolator), which keeps
/// the tail from ringing; the lines' outputs summed with two orthogonal sets of signs make the
/// left and right, crossed by the width. The lines are as long as libfluidsynth makes them
/// (sized for 96 kHz whatever the rate, as its synthesizer asks), so the echoes arrive on the
/// same frames. The parameters are libfluidsynth's (room size, damping, width, level).
/// Unlike libfluidsynth's, its output is exact silence where no sound was sent or once a tail
/// has stayed below −140 dBFS for as long as its longest line (what the lines keep against
/// denormals, about 10⁻⁹, is not added). Allocates only at init; every frame is processed
/// alone, so where a render is split changes nothing. Render thread only, after `init`.
public final class Reverb {
    /// The reverb's settings, libfluidsynth's four. Any thread.
    public struct Settings: Hashable, Sendable {
        /// 0...1: the decay time (0.2 is about a second to −60 dB).
        public var roomSize: Double = 0.2
        /// 0...1: how much faster the highs decay.
        public var damping: Double = 0
        /// 0...1: how far apart the two outputs are (1 the widest).
        public var width: Double = 0.5
        /// 0...1: the output's level.
        public var level: Double = 0.9

        /// libfluidsynth's defaults. Any thread.
        public init() {}

        /// Seconds the tail takes to fall 60 dB at `sampleRate` (libfluidsynth's decay time at
        /// 0 Hz: the room size moves the longest line's gain between those of 0.7 s and 12.5 s). Any thread.
        public func decaySeconds(sampleRate: Double) -> Double {
            let length = Double(Layout(sampleRate: sampleRate).dampedLength(7))
            return -3 * M_LN10 * length / (sampleRate * Double(logf(Float(longestLineGain(sampleRate: sampleRate)))))
        }

        /// The longest line's gain: between the gains that take it 60 dB down in 0.7 s and in 12.5 s, as the room size says.
        func longestLineGain(sampleRate: Double) -> Double {
            let length = Double(Layout(sampleRate: sampleRate).dampedLength(7))
            let shortest = pow(10, -3 * length / (Reverb.shortestDecay * sampleRate))
            let longest = pow(10, -3 * length / (Reverb.longestDecay * sampleRate))
            return shortest + min(max(roomSize, 0), 1) * (longest - shortest)
        }
    }

    /// The delay lines' nominal lengths at 44.1 kHz (libfluidsynth's, mutually prime).
    private static let nominalLengths = SIMD8<Double>(601, 691, 773, 839, 919, 997, 1_061, 1_129)
    /// The decay times room size 0 and 1 give, in seconds.
    private static let shortestDecay = 0.7, longestDecay = 12.5
    /// The sines move the read positions every `modulationRate` frames, at `modulationHertz`.
    private static let modulationRate = 50, modulationHertz = 1.0
    /// The input's gain, the output's scale, and how much the width lowers the output.
    private static let inputGain = 0.1, wetScale = 5.0, widthCompensation = 0.2
    /// Added to the input and taken from the output, so that the tail never falls to denormals.
    private static let offset = 1e-8
    /// Below this (−140 dBFS) for `gateFrames` frames of silent input, the output is not added.
    private static let quiet = 1e-7

    /// libfluidsynth's line sizes: made for the larger of 96 kHz and the rate (its synthesizer's
    /// highest rate), read at the delay the rate asks.
    struct Layout {
        /// How far the sines move the read positions: the frames, and the same before it is truncated.
        let depth: Int, exactDepth: Double
        private let lengthFactor: Double, largestDepth: Double

        init(sampleRate: Double) {
            let largest = max(sampleRate, 96_000)
            (lengthFactor, largestDepth) = (2 * largest / 44_100, 4 * largest / 44_100)
            exactDepth = 4 * max(sampleRate, 44_100) / 44_100
            depth = Int(exactDepth)
        }

        /// Delay line `line`'s size in frames.
        func size(_ line: Int) -> Int { Int(Double(Int(Reverb.nominalLengths[line] * lengthFactor)) + largestDepth + 1) }

        /// Delay line `line`'s length as its damping reckons it.
        func dampedLength(_ line: Int) -> Int { size(line) - depth - 1 }
    }

    private let memory: UnsafeMutablePointer<Double>
    private let memorySize: Int
    /// Each line's damped output of each frame of a stretch (`modulationRate` frames of
    /// eight lines), and a wrapping frame's two reads of each line.
    private let damped: UnsafeMutablePointer<Double>, gathered: UnsafeMutablePointer<Double>
    private let layout: Layout
    private var lineStart = SIMD8<Int>(), lineSize = SIMD8<Int>(), lineIn = SIMD8<Int>(), lineOut = SIMD8<Int>()
    /// Per line: the centre of its read position and the fraction between frames it reads at;
    /// the damping filter's coefficients.
    private var centre = SIMD8<Double>(), fraction = SIMD8<Double>()
    private var dampingGain = SIMD8<Double>(), dampingFeedback = SIMD8<Double>()
    /// What each frame carries to the next.
    private var state = FrameState()
    /// Per line: the sine's last two values (a two-pole oscillator), its coefficient and the value it restarts from at a peak.
    private var sine1 = SIMD8<Double>(), sine2 = SIMD8<Double>(), sineCoefficient = 0.0, sineRestart = 0.0
    /// Frames before the sines next move the read positions (0: on the next frame).
    private var untilModulation = 0
    /// The tone corrector's coefficients.
    private var toneCurrent = 1.0, tonePrevious = 0.0
    /// The wet gain of each side's own sum, and the share of the other side's added to it.
    private var wetSame = 0.0, crossed = 0.0
    /// The longest line's size: frames of silent input and quiet output after which none is added.
    private let gateFrames: Int
    private let sampleRate: Double
    /// The settings in force. Render thread only.
    public private(set) var settings = Settings()

    /// A reverb at `sampleRate` with `settings`. Control thread.
    public init(sampleRate: Double, settings: Settings = Settings()) {
        self.sampleRate = sampleRate
        layout = Layout(sampleRate: sampleRate)
        var offset = 0
        for line in 0..<8 {
            (lineStart[line], lineSize[line]) = (offset, layout.size(line))
            offset += layout.size(line)
        }
        memorySize = offset
        gateFrames = layout.size(7)
        memory = .allocate(capacity: offset)
        memory.initialize(repeating: 0, count: offset)
        damped = .allocate(capacity: 8 * Self.modulationRate)
        damped.initialize(repeating: 0, count: 8 * Self.modulationRate)
        gathered = .allocate(capacity: 16)
        gathered.initialize(repeating: 0, count: 16)
        let step = 2 * Double.pi * Self.modulationHertz * Double(Self.modulationRate) / sampleRate
        sineCoefficient = 2 * cos(step)
        sineRestart = sin(Double.pi / 2 - step)
        clear()
        set(settings)
    }

    deinit {
        memory.deallocate()
        damped.deallocate()
        gathered.deallocate()
    }

    /// Changes the settings; the tail goes on from where it is. Render thread only.
    public func set(_ settings: Settings) {
        self.settings = settings
        let decay = settings.decaySeconds(sampleRate: sampleRate)
        // The damping: how much shorter the decay is at half the sample rate.
        let longestGain = settings.longestLineGain(sampleRate: sampleRate)
        let damping = min(max(settings.damping, 0), 1)
        let alphaSquared = 1 / (1 - damping / (0.25 * Double(logf(Float(longestGain)))))
        let alpha = alphaSquared.squareRoot(), beta = (1 - alpha) / (1 + alpha)
        toneCurrent = 1 / (1 - beta)
        tonePrevious = beta * toneCurrent
        state.toneInput = 0
        for line in 0..<8 {
            let gain = pow(10, -3 * Double(layout.dampedLength(line)) / (sampleRate * decay))
            let feedback = 0.25 * Double(logf(Float(gain))) * (1 - 1 / alphaSquared)
            dampingGain[line] = gain * (1 - feedback)
            dampingFeedback[line] = feedback
        }
        let width = min(max(settings.width, 0), 1), level = min(max(settings.level, 0), 1)
        let wet = level * Self.wetScale / (1 + width * Self.widthCompensation)
        wetSame = wet * (width / 2 + 0.5)
        let wetCrossed = wet * ((1 - width) / 2)
        crossed = wetSame > 0 ? wetCrossed / wetSame : wetCrossed
    }

    /// Empties the tail and starts the sines again. Render thread only.
    public func clear() {
        memory.update(repeating: Self.offset, count: memorySize)
        lineIn = SIMD8(repeating: 0)
        lineOut = SIMD8(repeating: 1)
        centre = SIMD8(repeating: 1 + layout.exactDepth)
        fraction = SIMD8(repeating: 0)
        state = FrameState(toneInput: state.toneInput, quietFrames: gateFrames)
        untilModulation = 0
        let step = 2 * Double.pi * Self.modulationHertz * Double(Self.modulationRate) / sampleRate
        for line in 0..<8 {
            let phase = 2 * Double.pi * Double(line) / 8
            (sine1[line], sine2[line]) = (sin(phase), sin(phase - step))
        }
    }

    /// Moves every line's read position to its centre plus its sine's next value, and the
    /// centres on by the frames until the next move.
    @inline(__always)
    private func modulate() {
        var next = sineCoefficient * sine1 - sine2
        sine2 = sine1
        let top = next .>= 1, bottom = next .<= -1
        next.replace(with: 1, where: top)
        next.replace(with: -1, where: bottom)
        sine2.replace(with: sineRestart, where: top)
        sine2.replace(with: -sineRestart, where: bottom)
        sine1 = next
        let at = centre + next * Double(layout.depth)
        // Each line's whole place (truncated, one lower below 0) kept inside its line, and the
        // fraction: as vectors, since a lane written into a vector by a run-time index goes
        // through memory, the whole vector each time.
        // (SIMD8<Int>'s `replace(with:where:)` goes lane by lane through memory too, and its
        // `init(_:rounding:)` through the standard library's generic conversion, lane by
        // lane: the lines' places are made one by one and put together once.)
        let places = at.replacing(with: at - 1, where: at .< 0)
        let whole = SIMD8(Int(places[0]), Int(places[1]), Int(places[2]), Int(places[3]), Int(places[4]), Int(places[5]), Int(places[6]), Int(places[7]))
        @inline(__always) func inside(_ line: Int) -> Int {
            let (place, size) = (whole[line], lineSize[line])
            return place >= size ? place - size : (place < 0 ? place + size : place)
        }
        lineOut = SIMD8(inside(0), inside(1), inside(2), inside(3), inside(4), inside(5), inside(6), inside(7))
        fraction = at - SIMD8<Double>(whole)
        centre += Double(Self.modulationRate)
        centre.replace(with: centre - SIMD8<Double>(lineSize), where: centre .>= SIMD8<Double>(lineSize))
    }

    /// Adds the reverb of `frames` frames of the mono `input` to `left` and `right`, in
    /// stretches in which no sine moves a read position and no line wraps round: each line is
    /// then read and written at consecutive places (a stretch is far shorter than the shortest
    /// delay, so none reads what it writes). A frame where a read wraps round is worked out
    /// alone, its reads gathered first. Render thread only.
    public func process(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) {
        var done = 0
        while done < frames {
            if untilModulation == 0 {
                modulate()
                untilModulation = Self.modulationRate
            }
            // Reads at out and out + 1, writes at in: the frames before either wraps round
            // (line by line: SSE2 has no vector minimum of 64-bit integers).
            @inline(__always) func room(_ line: Int) -> Int { min(lineSize[line] &- 1 &- lineOut[line], lineSize[line] &- lineIn[line]) }
            let room = min(min(min(room(0), room(1)), min(room(2), room(3))), min(min(room(4), room(5)), min(room(6), room(7))))
            let count = min(frames - done, untilModulation, room)
            if count > 0 {
                run(reading: UnsafePointer(memory), at: lineStart &+ lineOut, input + done, left + done, right + done, count: count)
                lineOut &+= count
            } else {
                processWrappingFrame(input + done, left + done, right + done)
            }
            let advanced = max(count, 1)
            lineIn &+= advanced
            lineIn.replace(with: 0, where: lineIn .== lineSize)
            done += advanced
            untilModulation -= advanced
        }
    }

    /// One frame in which some line's second read (out + 1) wraps round to its start: each
    /// line's two reads gathered side by side, then run as a stretch of one frame.
    private func processWrappingFrame(_ input: UnsafePointer<Float>, _ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>) {
        var out = lineOut
        for line in 0..<8 {
            gathered[2 &* line] = memory[lineStart[line] + out[line]]
            out[line] = out[line] + 1 == lineSize[line] ? 0 : out[line] + 1
            gathered[2 &* line &+ 1] = memory[lineStart[line] + out[line]]
        }
        lineOut = out
        run(reading: UnsafePointer(gathered), at: SIMD8(0, 2, 4, 6, 8, 10, 12, 14), input, left, right, count: 1)
    }

    /// What a stretch leaves for the next: per line, the interpolator's and the damping
    /// filter's last outputs; the tone corrector's last input; and the frames in a row of
    /// silent input and quiet output (from `gateFrames` on, none is added). Render thread only.
    private struct FrameState {
        var interpolated = SIMD8<Double>(), damped = SIMD8<Double>()
        var toneInput = 0.0
        var quietFrames = 0
    }

    /// Two lines' interpolators and damping filters side by side, reading their lines from
    /// `first` and `second` and writing each frame's damped outputs to `out` (eight lines a frame).
    private struct LinePair {
        var interpolated, damped, read: SIMD2<Double>
        let fraction, gain, feedback: SIMD2<Double>
        let first, second: UnsafePointer<Double>, out: UnsafeMutableRawPointer

        /// Lines `line` and `line + 1`, their interpolators' and filters' last outputs, fraction,
        /// gain and feedback taken from the eight lines' vectors, writing to `out` from its frame 0.
        @inline(__always) init(_ line: Int, _ interpolated: SIMD8<Double>, _ damped: SIMD8<Double>, _ fraction: SIMD8<Double>, _ gain: SIMD8<Double>,
                               _ feedback: SIMD8<Double>, _ first: UnsafePointer<Double>, _ second: UnsafePointer<Double>, _ out: UnsafeMutablePointer<Double>) {
            @inline(__always) func two(_ v: SIMD8<Double>) -> SIMD2<Double> {
                let half = line < 4 ? v.lowHalf : v.highHalf
                return line & 2 == 0 ? half.lowHalf : half.highHalf
            }
            (self.interpolated, self.damped, self.read) = (two(interpolated), two(damped), SIMD2(first[0], second[0]))
            // (Kept whole: else the optimizer pairs a gain's lane with a feedback's and multiplies lane by lane.)
            (self.fraction, self.gain, self.feedback) = (barrier_double2_kept(two(fraction)), barrier_double2_kept(two(gain)), barrier_double2_kept(two(feedback)))
            (self.first, self.second, self.out) = (first, second, UnsafeMutableRawPointer(out + line))
        }

        /// Frame `k`: read between it and the next, damped, written out.
        @inline(__always) mutating func step(_ k: Int) {
            let following = SIMD2(first[k &+ 1], second[k &+ 1])
            interpolated = read + fraction * (following - interpolated)
            damped = barrier_double2_kept(interpolated * gain) + damped * feedback
            out.storeBytes(of: damped, toByteOffset: 64 &* k, as: SIMD2<Double>.self)
            read = following
        }
    }

    /// `count` frames (at most `modulationRate`), each line read at `reads` from `source`
    /// (its frame's place and the next) and written at its place `lineIn`, the outputs added to
    /// `left` and `right`. In two passes, with the same arithmetic, in the same order, as one
    /// frame of the whole network at a time: first each line's interpolation and damping,
    /// frame by frame, into `damped`; then the lines' sums, two frames to a vector: what goes
    /// back into the lines and the outputs.
    private func run(reading source: UnsafePointer<Double>, at reads: SIMD8<Int>, _ input: UnsafePointer<Float>,
                     _ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, count: Int) {
        let (r0, r1, r2, r3) = (source + reads[0], source + reads[1], source + reads[2], source + reads[3])
        let (r4, r5, r6, r7) = (source + reads[4], source + reads[5], source + reads[6], source + reads[7])
        let damped = self.damped
        // The state in a local, which the lines' writes cannot touch: in the object, each frame stores it and loads it back.
        var state = self.state
        defer { self.state = state }
        // Each line read between its frames (first-order all-pass), then damped: two lines to a
        // vector, the four pairs' frames in turn (each pair's waits on its frame before).
        let (low, high) = (state.interpolated, state.damped)
        var p01 = LinePair(0, low, high, fraction, dampingGain, dampingFeedback, r0, r1, damped)
        var p23 = LinePair(2, low, high, fraction, dampingGain, dampingFeedback, r2, r3, damped)
        var p45 = LinePair(4, low, high, fraction, dampingGain, dampingFeedback, r4, r5, damped)
        var p67 = LinePair(6, low, high, fraction, dampingGain, dampingFeedback, r6, r7, damped)
        for k in 0..<count {
            p01.step(k)
            p23.step(k)
            p45.step(k)
            p67.step(k)
        }
        state.interpolated = SIMD8(lowHalf: SIMD4(lowHalf: p01.interpolated, highHalf: p23.interpolated), highHalf: SIMD4(lowHalf: p45.interpolated, highHalf: p67.interpolated))
        state.damped = SIMD8(lowHalf: SIMD4(lowHalf: p01.damped, highHalf: p23.damped), highHalf: SIMD4(lowHalf: p45.damped, highHalf: p67.damped))
        let (w0, w1, w2, w3) = (memory + (lineStart[0] &+ lineIn[0]), memory + (lineStart[1] &+ lineIn[1]), memory + (lineStart[2] &+ lineIn[2]), memory + (lineStart[3] &+ lineIn[3]))
        let (w4, w5, w6, w7) = (memory + (lineStart[4] &+ lineIn[4]), memory + (lineStart[5] &+ lineIn[5]), memory + (lineStart[6] &+ lineIn[6]), memory + (lineStart[7] &+ lineIn[7]))
        /// The sums of frames `k` and `k + 1` (of frame `k` alone when not `pair`).
        @inline(__always) func sums(_ k: Int, pair: Bool) {
            /// Lines `line` and `line + 1`, each in a vector of the two frames.
            @inline(__always) func load(_ line: Int) -> (SIMD2<Double>, SIMD2<Double>) {
                let first = UnsafeRawPointer(damped + (8 &* k &+ line)).loadUnaligned(as: SIMD2<Double>.self)
                let second = pair ? UnsafeRawPointer(damped + (8 &* k &+ 8 &+ line)).loadUnaligned(as: SIMD2<Double>.self) : first
                return (SIMD2(first[0], second[0]), SIMD2(first[1], second[1]))
            }
            /// The two frames' `values` written from `p + k`.
            @inline(__always) func store(_ values: SIMD2<Double>, _ p: UnsafeMutablePointer<Double>) {
                if pair { UnsafeMutableRawPointer(p + k).storeBytes(of: values, as: SIMD2<Double>.self) } else { p[k] = values[0] }
            }
            let ((l0, l1), (l2, l3), (l4, l5), (l6, l7)) = (load(0), load(2), load(4), load(6))
            let x = SIMD2(Double(input[k]), Double(input[pair ? k &+ 1 : k]))
            let scaled = x * Self.inputGain + Self.offset
            let toned = scaled * toneCurrent - tonePrevious * SIMD2(state.toneInput, scaled[0])
            state.toneInput = scaled[pair ? 1 : 0]
            // The Householder matrix (less 2/8 of the sum each, the lines summed in turn) with the lines permuted by one.
            let share = ((((((l0 + l1) + l2) + l3) + l4) + l5) + l6 + l7) * (-2.0 / 8) + toned
            store(l1 + share, w0)
            store(l2 + share, w1)
            store(l3 + share, w2)
            store(l4 + share, w3)
            store(l5 + share, w4)
            store(l6 + share, w5)
            store(l7 + share, w6)
            store(l0 + share, w7)
            // The left and right sums: the lines with two orthogonal sets of signs (+−+−+−+− and
            // ++−−++−−), added in turn as a sum of the lines times their signs adds them.
            let l = ((((((l0 - l1) + l2) - l3) + l4) - l5) + l6 - l7) * wetSame - Self.offset
            let r = ((((((l0 + l1) - l2) - l3) + l4) + l5) - l6 - l7) * wetSame - Self.offset
            let outLeft = l + r * crossed, outRight = r + l * crossed
            // Two frames added alike while neither can close the gate (the quiet frames' count
            // below it), each frame alone otherwise.
            if pair && state.quietFrames &+ 2 < gateFrames {
                let quietLeft = (outLeft .< Self.quiet) .& (outLeft .> -Self.quiet), quietRight = (outRight .< Self.quiet) .& (outRight .> -Self.quiet)
                let quiet = (x .== 0) .& quietLeft .& quietRight
                state.quietFrames = quiet[1] ? (quiet[0] ? state.quietFrames &+ 2 : 1) : 0
                /// The two frames' `values` added from `p + k`.
                @inline(__always) func add(_ values: SIMD2<Double>, _ p: UnsafeMutablePointer<Float>) {
                    let sums = UnsafeRawPointer(p + k).loadUnaligned(as: SIMD2<Float>.self) + SIMD2<Float>(values)
                    UnsafeMutableRawPointer(p + k).storeBytes(of: sums, as: SIMD2<Float>.self)
                }
                add(outLeft, left)
                add(outRight, right)
                return
            }
            /// Frame `k + offset`'s input and outputs: its quiet frames counted, its outputs added unless the gate is closed.
            @inline(__always) func gate(_ x: Double, _ outLeft: Double, _ outRight: Double, _ offset: Int) {
                let quiet = x == 0 && abs(outLeft) < Self.quiet && abs(outRight) < Self.quiet
                state.quietFrames = quiet ? min(state.quietFrames + 1, gateFrames) : 0
                if state.quietFrames < gateFrames {
                    left[k &+ offset] += Float(outLeft)
                    right[k &+ offset] += Float(outRight)
                }
            }
            gate(x[0], outLeft[0], outRight[0], 0)
            if pair { gate(x[1], outLeft[1], outRight[1], 1) }
        }
        var k = 0
        while k &+ 2 <= count {
            sums(k, pair: true)
            k &+= 2
        }
        if k < count { sums(k, pair: false) }
    }
}
