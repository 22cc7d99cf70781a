#if canImport(Glibc)
import Glibc
#endif
import CBarrier
import Locks

/// The filter's cutoffs worked out once for an output rate: for each whole cent from 1,500 to
/// 13,500, the sine and cosine of the cookbook's ω (the cutoff in hertz kept within
/// 5 Hz...0.45 × the rate), which a voice whose cutoff moves would otherwise work out every
/// block. Each table is made once and kept for the process's life (192 KB a rate).
enum CutoffTable {
    /// The cutoffs it covers, in absolute cents (what the filter clamps to).
    static let cents: ClosedRange<Int32> = 1_500...13_500
    private static let tables = ControlLock<[Double: UnsafePointer<SIMD2<Double>>]>([:])

    /// The table for `sampleRate` (sine, cosine for each cent from the lowest), made on the
    /// first asking. Control thread: it may allocate and takes a lock.
    static func table(sampleRate: Double) -> UnsafePointer<SIMD2<Double>> {
        tables.withLock { tables in
            if let table = tables[sampleRate] { return table }
            let count = Int(cents.upperBound - cents.lowerBound) + 1
            let table = UnsafeMutablePointer<SIMD2<Double>>.allocate(capacity: count)
            for i in 0..<count {
                let frequency = min(max(8.175_798_915_6 * exp2(Double(cents.lowerBound + Int32(i)) / 1_200), 5), 0.45 * sampleRate)
                let omega = 2 * Double.pi * frequency / sampleRate
                table[i] = SIMD2(sin(omega), cos(omega))
            }
            tables[sampleRate] = UnsafePointer(table)
            return UnsafePointer(table)
        }
    }
}

/// A voice's resonant low-pass filter (generators 8 and 9) as libfluidsynth runs it: the
/// cookbook's biquad with the cutoff kept within 1500...13500 cents and 5 Hz...0.45 × the
/// rate, the Q in centibels over a non-resonant filter (0 cB is Q 0.707), and the passband
/// scaled by 1/sqrt(Q) as SF2.01 asks. Applied after the voice's gain. Render thread only.
struct LowPassFilter {
    /// The coefficients: b0 (which is b2), b1, a1, a2.
    private var a1: Float = 0, a2: Float = 0, b02: Float = 0, b1: Float = 0
    private var history1: Float = 0, history2: Float = 0
    /// A change after the filter has started glides over one control block, the coefficients
    /// stepping each frame (libfluidsynth's way of keeping a moving cutoff from clicking).
    private var a1Step: Float = 0, a2Step: Float = 0, b02Step: Float = 0, b1Step: Float = 0
    /// Frames of the glide still to go (0 when steady).
    private(set) var gliding = 0
    /// Whether the glide rescales the history at each step, as libfluidsynth's does when b0
    /// more than doubles or halves (a large jump of the cutoff would otherwise burst).
    private var compensates = false
    private var started = false
    /// The cutoff and Q the coefficients are for.
    private var cutoff: Int32 = .min, q: Int32 = .min
    /// The output rate's `CutoffTable`.
    private let cutoffs: UnsafePointer<SIMD2<Double>>
    /// The Q as a ratio, and the passband's gain for it (kept: the Q rarely moves with the cutoff).
    private var qLinear = 0.0, passbandGain = 0.0

    /// A filter at `cutoff` absolute cents with resonance `q` centibels, at the output rate
    /// whose `CutoffTable` is `cutoffs`.
    init(cutoff: Int32, q: Int32, cutoffs: UnsafePointer<SIMD2<Double>>) {
        self.cutoffs = cutoffs
        set(cutoff: cutoff, q: q)
    }

    /// Moves the filter to `cutoff` and `q`, keeping what it holds of the signal: at once
    /// before it has filtered anything, else gliding over a control block. Render thread only.
    mutating func set(cutoff: Int32, q: Int32) {
        guard cutoff != self.cutoff || q != self.q else { return }
        if q != self.q {
            qLinear = pow(10, (min(max(Double(q) / 10, 0), 96) - 3.01) / 20)
            passbandGain = 1 / qLinear.squareRoot()
        }
        (self.cutoff, self.q) = (cutoff, q)
        let (qLinear, gain) = (self.qLinear, passbandGain)
        let (sine, cosine) = Self.sineAndCosine(cutoff, cutoffs)
        let alpha = sine / (2 * qLinear)
        let a0Inverse = 1 / (1 + alpha)
        let newA1 = Float(-2 * cosine * a0Inverse), newA2 = Float((1 - alpha) * a0Inverse)
        let newB1 = Float((1 - cosine) * a0Inverse * gain), newB02 = newB1 * 0.5
        guard started else {
            (a1, a2, b1, b02) = (newA1, newA2, newB1, newB02)
            return
        }
        let frames = Float(Units.controlBlock)
        (a1Step, a2Step, b1Step, b02Step) = ((newA1 - a1) / frames, (newA2 - a2) / frames, (newB1 - b1) / frames, (newB02 - b02) / frames)
        gliding = Units.controlBlock
        let quota = newB02 / b02
        compensates = abs(b02) > 0.0001 && (quota < 0.5 || quota > 2)
    }

    /// The sine and cosine of ω for `cutoff` cents (clamped to the table's) from `table`.
    @inline(__always) private static func sineAndCosine(_ cutoff: Int32, _ table: UnsafePointer<SIMD2<Double>>) -> (Double, Double) {
        let entry = table[Int(min(max(cutoff, CutoffTable.cents.lowerBound), CutoffTable.cents.upperBound) - CutoffTable.cents.lowerBound)]
        return (entry[0], entry[1])
    }

    /// Four voices' filters run together, a voice a lane, so that each frame's four
    /// recursions wait on the frame before once, not four times in turn; the coefficients
    /// step each frame while a lane glides (every lane glides through all the frames of a
    /// run or none: a voice's run ends where its glide does). Lanes no voice fills hold
    /// zeros. Each lane's arithmetic is libfluidsynth's, frame by frame. The lanes are
    /// gathered in memory of their own (`size` floats, a field's four lanes side by side) and
    /// read into vectors once a run: a lane written into a vector in a register goes through
    /// memory each time, and waits for it. Render thread only.
    struct Lanes {
        /// The fields: the coefficients, their steps, the history, which lanes rescale it, and
        /// each lane's voice's gains for the mix at its block's start and their steps (a field
        /// a lane, lanes as `MixPlanes`'s planes).
        private enum Field: Int {
            case a1, a2, b02, b1, a1Step, a2Step, b02Step, b1Step, history1, history2, compensating
            case gains0, gains1, gains2, gains3, gainSteps0, gainSteps1, gainSteps2, gainSteps3
        }

        /// Floats of memory the lanes are gathered in.
        static let size = 19 * 4
        private let memory: UnsafeMutablePointer<Float>
        private var anyGlides = false, anyCompensates = false
        /// Whether some voice's gains ramp.
        private var ramps = false

        /// Empty lanes gathered in `memory` (`size` floats).
        init(memory: UnsafeMutablePointer<Float>) {
            self.memory = memory
            for field in 0..<Self.size / 4 { storeFour(.zero, memory + 4 &* field) }
        }

        /// The float of `field` in `lane`.
        @inline(__always) private func at(_ field: Field, _ lane: Int) -> UnsafeMutablePointer<Float> { memory + (field.rawValue &* 4 &+ lane) }

        /// The four lanes of `field`.
        @inline(__always) private func vector(_ field: Field) -> SIMD4<Float> { loadFour(memory + field.rawValue &* 4) }

        /// Writes `values` to the four lanes of `field`.
        @inline(__always) private func write(_ values: SIMD4<Float>, _ field: Field) { storeFour(values, memory + field.rawValue &* 4) }

        /// Puts `filter` in `lane`, with its voice's `gains` for the mix.
        @inline(__always) mutating func load(_ filter: LowPassFilter, lane: Int, gains: (start: SIMD4<Float>, step: SIMD4<Float>)) {
            storeFour(gains.start, at(.gains0, lane &* 4))
            storeFour(gains.step, at(.gainSteps0, lane &* 4))
            if gains.step != .zero { ramps = true }
            (at(.a1, lane).pointee, at(.a2, lane).pointee, at(.b02, lane).pointee, at(.b1, lane).pointee) = (filter.a1, filter.a2, filter.b02, filter.b1)
            (at(.history1, lane).pointee, at(.history2, lane).pointee) = (filter.history1, filter.history2)
            guard filter.gliding > 0 else { return }
            (at(.a1Step, lane).pointee, at(.a2Step, lane).pointee) = (filter.a1Step, filter.a2Step)
            (at(.b02Step, lane).pointee, at(.b1Step, lane).pointee) = (filter.b02Step, filter.b1Step)
            anyGlides = true
            if filter.compensates {
                at(.compensating, lane).pointee = 1
                anyCompensates = true
            }
        }

        /// Puts `lane` back in `filter`, which has run `frames` frames.
        @inline(__always) func store(lane: Int, into filter: inout LowPassFilter, frames: Int) {
            (filter.a1, filter.a2, filter.b02, filter.b1) = (at(.a1, lane).pointee, at(.a2, lane).pointee, at(.b02, lane).pointee, at(.b1, lane).pointee)
            (filter.history1, filter.history2) = (at(.history1, lane).pointee, at(.history2, lane).pointee)
            filter.gliding = max(filter.gliding - frames, 0)
            filter.started = true
        }

        /// Silences `lane` in the mix from here on (its voice's sample has ended).
        mutating func silence(lane: Int) {
            storeFour(.zero, at(.gains0, lane &* 4))
            storeFour(.zero, at(.gainSteps0, lane &* 4))
        }

        /// Filters frames `range` of each lane's `samples` and adds them to the planes of `mix`
        /// from its frame `offset` on (the range's first frame there), each times its voice's
        /// gains, the buffers' first frame at `place` in the synthesizer's block.
        func run(_ buffers: LaneBuffers, frames range: Range<Int>, into mix: MixPlanes, at offset: Int, place: Int) {
            let (frames, first) = (range.count, range.lowerBound)
            let samples = (buffers.0 + first, buffers.1 + first, buffers.2 + first, buffers.3 + first)
            let (offset, place) = (offset + first, place + first)
            var state = State(a1: vector(.a1), a2: vector(.a2), b02: vector(.b02), b1: vector(.b1),
                              a1Step: vector(.a1Step), a2Step: vector(.a2Step), b02Step: vector(.b02Step), b1Step: vector(.b1Step),
                              history1: vector(.history1), history2: vector(.history2), compensating: vector(.compensating) .> 0.5,
                              anyCompensates: anyCompensates)
            /// The run with the coefficients moving as `Glide` says, mixed to `Planes`.
            func run<Glide: GlideMode, Planes: PlaneMode>(_: Glide.Type, _: Planes.Type) {
                /// The four lanes' gains (or their steps, `steps`) of plane `plane`, from the voices' fields.
                func plane(_ plane: Int, steps: Bool) -> SIMD4<Float> {
                    let first = (steps ? Field.gainSteps0 : Field.gains0).rawValue &* 4 &+ plane
                    return SIMD4(memory[first], memory[first &+ 4], memory[first &+ 8], memory[first &+ 12])
                }
                let silent = SIMD4<Float>.zero
                let gains = (plane(0, steps: false), plane(1, steps: false), Planes.sends ? plane(2, steps: false) : silent, Planes.sends ? plane(3, steps: false) : silent)
                let steps = Planes.ramps ? (plane(0, steps: true), plane(1, steps: true), Planes.sends ? plane(2, steps: true) : silent, Planes.sends ? plane(3, steps: true) : silent)
                    : (silent, silent, silent, silent)
                let output = MixedLanes(left: mix.left + offset, stride: mix.stride, gains: gains, steps: steps, place: place)
                state.run(samples, frames: frames, Glide.self, into: output, Planes.self)
            }
            /// The run with the mix's planes and ramps as they are.
            func run<Glide: GlideMode>(_: Glide.Type) {
                switch (mix.sends, ramps) {
                case (false, false): run(Glide.self, TwoPlanes.self)
                case (true, false): run(Glide.self, FourPlanes.self)
                case (false, true): run(Glide.self, TwoRampingPlanes.self)
                case (true, true): run(Glide.self, FourRampingPlanes.self)
                }
            }
            if anyGlides { run(Gliding.self) } else { run(Steady.self) }
            write(state.a1, .a1)
            write(state.a2, .a2)
            write(state.b02, .b02)
            write(state.b1, .b1)
            write(state.history1, .history1)
            write(state.history2, .history2)
        }

        /// The lanes in vectors while they run.
        private struct State {
            var a1, a2, b02, b1: SIMD4<Float>
            let a1Step, a2Step, b02Step, b1Step: SIMD4<Float>
            var history1, history2: SIMD4<Float>
            let compensating: SIMDMask<SIMD4<Int32>>
            let anyCompensates: Bool

            /// `run` with the coefficients moving as `Glide` says, mixed to `Planes`.
            @inline(__always) mutating func run<Glide: GlideMode, Planes: PlaneMode>(_ samples: LaneBuffers, frames: Int, _: Glide.Type,
                                                                                  into output: MixedLanes, _: Planes.Type) {
                var i = 0
                while i &+ 4 <= frames {
                    // Four frames of each lane, turned into four frames of all the lanes. The outputs
                    // are kept where they are made (`barrier_float4_kept`), or the optimizer moves
                    // the mix's sums of their lanes ahead of their arithmetic, and doubles them.
                    let (f0, f1, f2, f3) = transpose(loadFour(samples.0 + i), loadFour(samples.1 + i), loadFour(samples.2 + i), loadFour(samples.3 + i))
                    let y0 = barrier_float4_kept(frame(f0, Glide.self)), y1 = barrier_float4_kept(frame(f1, Glide.self))
                    let y2 = barrier_float4_kept(frame(f2, Glide.self)), y3 = barrier_float4_kept(frame(f3, Glide.self))
                    output.put(y0, y1, y2, y3, at: i, Planes.self)
                    i &+= 4
                }
                while i < frames {
                    output.put(frame(SIMD4(samples.0[i], samples.1[i], samples.2[i], samples.3[i]), Glide.self), at: i, Planes.self)
                    i &+= 1
                }
            }

            /// One frame of the four filters: its outputs from its `inputs`, the history and the
            /// coefficients moved on. (input − a2·h2) − a1·h1 is libfluidsynth's sum, ordered so
            /// that only one multiply and one subtraction wait for the frame before.
            @inline(__always) mutating func frame<Glide: GlideMode>(_ inputs: SIMD4<Float>, _: Glide.Type) -> SIMD4<Float> {
                let centre = inputs - a2 * history2 - a1 * history1
                let output = b02 * (centre + history2) + b1 * history1
                history2 = history1
                history1 = centre
                if Glide.moves {
                    let before = b02
                    (a1, a2, b02, b1) = (a1 + a1Step, a2 + a2Step, b02 + b02Step, b1 + b1Step)
                    if anyCompensates {
                        let rescaled = compensating .& ((b02 .> 0.001) .| (b02 .< -0.001))   // |b0| > 0.001
                        let ratio = before / b02
                        history1.replace(with: history1 * ratio, where: rescaled)
                        history2.replace(with: history2 * ratio, where: rescaled)
                    }
                }
                return output
            }
        }
    }
}

/// Four voices' lane buffers, a control block each.
typealias LaneBuffers = (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)

/// Whether the coefficients of `LowPassFilter.Lanes` move through a run, as a type, so that
/// each kind of run is a loop of its own.
protocol GlideMode {
    /// Whether they step each frame.
    static var moves: Bool { get }
}

/// No lane glides.
enum Steady: GlideMode {
    static var moves: Bool { false }
}

/// Some lane glides.
enum Gliding: GlideMode {
    static var moves: Bool { true }
}

/// Which planes `MixedLanes` adds to and whether their gains ramp, as a type, so that each
/// kind of mix is a loop of its own.
protocol PlaneMode {
    /// Whether the sends are worked out (four planes, else two).
    static var sends: Bool { get }
    /// Whether some gain moves.
    static var ramps: Bool { get }
}

/// The left and right planes, steady.
enum TwoPlanes: PlaneMode {
    static var sends: Bool { false }
    static var ramps: Bool { false }
}

/// The four planes, steady.
enum FourPlanes: PlaneMode {
    static var sends: Bool { true }
    static var ramps: Bool { false }
}

/// The left and right planes, some gain ramping.
enum TwoRampingPlanes: PlaneMode {
    static var sends: Bool { false }
    static var ramps: Bool { true }
}

/// The four planes, some gain ramping.
enum FourRampingPlanes: PlaneMode {
    static var sends: Bool { true }
    static var ramps: Bool { true }
}

/// Filtered frames of four voices added to the planes of a mix, each lane times its voice's
/// gains, which ramp through the control block: a frame's gain is its voice's at the block's
/// start plus its step times the frame's place there. Each frame's lanes are summed as
/// (lane 0 + lane 1) + (lane 2 + lane 3), four frames at a time in three additions and six
/// shuffles a plane, and a plane's four frames are loaded and stored once. Render thread only.
struct MixedLanes {
    /// The left plane at the first frame, each next plane `stride` floats on.
    private let left: UnsafeMutablePointer<Float>, stride: Int
    /// Each plane's gains for the four lanes at the block's start, and their steps.
    private let gains: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>), steps: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
    /// The place in the block of the first frame.
    private let place: Int

    /// A mix from `left` (`stride` floats a plane) at each plane's `gains` and their `steps`
    /// (planes as `MixPlanes`'s, a lane a voice), the first frame at `place` in the block.
    init(left: UnsafeMutablePointer<Float>, stride: Int, gains: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>),
         steps: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>), place: Int) {
        (self.left, self.stride, self.gains, self.steps, self.place) = (left, stride, gains, steps, place)
    }

    /// Adds four frames from `index` on (`f0`...`f3`, a lane a voice), times their gains, to
    /// the planes `Planes` says.
    @inline(__always) func put<Planes: PlaneMode>(_ f0: SIMD4<Float>, _ f1: SIMD4<Float>, _ f2: SIMD4<Float>, _ f3: SIMD4<Float>,
                                                  at index: Int, _: Planes.Type) {
        let place = Float(self.place &+ index)
        /// Adds the frames times `gains` (moving by `steps`), each frame's lanes summed, to the plane at `plane`.
        @inline(__always) func add(_ gains: SIMD4<Float>, _ steps: SIMD4<Float>, _ plane: UnsafeMutablePointer<Float>) {
            let p0 = f0 * (Planes.ramps ? gains + steps * place : gains), p1 = f1 * (Planes.ramps ? gains + steps * (place + 1) : gains)
            let p2 = f2 * (Planes.ramps ? gains + steps * (place + 2) : gains), p3 = f3 * (Planes.ramps ? gains + steps * (place + 3) : gains)
            // (p0[0] + p0[1], p0[2] + p0[3], p1[0] + p1[1], p1[2] + p1[3]) and the same of p2 and p3 …
            let first = SIMD4(lowHalf: p0.evenHalf, highHalf: p1.evenHalf) + SIMD4(lowHalf: p0.oddHalf, highHalf: p1.oddHalf)
            let second = SIMD4(lowHalf: p2.evenHalf, highHalf: p3.evenHalf) + SIMD4(lowHalf: p2.oddHalf, highHalf: p3.oddHalf)
            // … then the two pairs of each frame.
            let sums = SIMD4(lowHalf: first.evenHalf, highHalf: second.evenHalf) + SIMD4(lowHalf: first.oddHalf, highHalf: second.oddHalf)
            storeFour(loadFour(plane) + sums, plane)
        }
        add(gains.0, steps.0, left + index)
        add(gains.1, steps.1, left + stride + index)
        if Planes.sends {
            add(gains.2, steps.2, left + 2 &* stride + index)
            add(gains.3, steps.3, left + 3 &* stride + index)
        }
    }

    /// Adds the lanes' frame `index` (a lane a voice), times their gains, to the planes
    /// `Planes` says: the same sums as the four frames' `put`.
    @inline(__always) func put<Planes: PlaneMode>(_ frame: SIMD4<Float>, at index: Int, _: Planes.Type) {
        let place = Float(self.place &+ index)
        /// Adds the lanes times `gains` (moving by `steps`), summed, to `value`.
        @inline(__always) func add(_ gains: SIMD4<Float>, _ steps: SIMD4<Float>, _ value: inout Float) {
            let products = frame * (Planes.ramps ? gains + steps * place : gains)
            value += (products[0] + products[1]) + (products[2] + products[3])
        }
        add(gains.0, steps.0, &left[index])
        add(gains.1, steps.1, &left[stride + index])
        if Planes.sends {
            add(gains.2, steps.2, &left[2 &* stride + index])
            add(gains.3, steps.3, &left[3 &* stride + index])
        }
    }
}

/// Four floats from `pointer`.
@inline(__always) private func loadFour(_ pointer: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
}

/// `values` written to the four floats at `pointer`.
@inline(__always) private func storeFour(_ values: SIMD4<Float>, _ pointer: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(pointer).storeBytes(of: values, as: SIMD4<Float>.self)
}

/// The 4×4 matrix whose rows are `r0`...`r3`, turned so that they are its columns.
@inline(__always) private func transpose(_ r0: SIMD4<Float>, _ r1: SIMD4<Float>, _ r2: SIMD4<Float>, _ r3: SIMD4<Float>)
    -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    let low01 = SIMD4(r0[0], r1[0], r0[1], r1[1]), low23 = SIMD4(r2[0], r3[0], r2[1], r3[1])
    let high01 = SIMD4(r0[2], r1[2], r0[3], r1[3]), high23 = SIMD4(r2[2], r3[2], r2[3], r3[3])
    return (SIMD4(lowHalf: low01.lowHalf, highHalf: low23.lowHalf), SIMD4(lowHalf: low01.highHalf, highHalf: low23.highHalf),
            SIMD4(lowHalf: high01.lowHalf, highHalf: high23.lowHalf), SIMD4(lowHalf: high01.highHalf, highHalf: high23.highHalf))
}
