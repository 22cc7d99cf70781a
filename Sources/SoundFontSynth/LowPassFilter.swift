#if canImport(Glibc)
import Glibc
#endif
import CBarrier
import Locks

/// Where `LowPassFilter.run` puts the frames it has filtered (back in place, or added to a
/// voice's mix as it goes). Render thread only.
protocol FilteredFrames {
    /// Puts the output of frame `index`.
    mutating func put(_ value: Float, at index: Int)
    /// Puts the outputs of the four frames from frame `index` on.
    mutating func put(_ values: SIMD4<Float>, at index: Int)
    /// Puts the outputs `samples` holds for frames `range`.
    mutating func put(_ samples: UnsafePointer<Float>, _ range: Range<Int>)
}

extension FilteredFrames {
    /// Puts the outputs `samples` holds for frames `range`, four at a time while it can.
    @inline(__always) mutating func put(_ samples: UnsafePointer<Float>, _ range: Range<Int>) {
        var i = range.lowerBound
        while i &+ 4 <= range.upperBound {
            put(UnsafeRawPointer(samples + i).loadUnaligned(as: SIMD4<Float>.self), at: i)
            i &+= 4
        }
        while i < range.upperBound {
            put(samples[i], at: i)
            i &+= 1
        }
    }
}

/// Filtered frames written back over the frames they came from. Render thread only.
struct InPlace: FilteredFrames {
    /// The frames filtered.
    let samples: UnsafeMutablePointer<Float>

    /// Writes `value` over frame `index`.
    @inline(__always) func put(_ value: Float, at index: Int) { samples[index] = value }

    /// Writes `values` over the four frames from `index` on.
    @inline(__always) func put(_ values: SIMD4<Float>, at index: Int) {
        UnsafeMutableRawPointer(samples + index).storeBytes(of: values, as: SIMD4<Float>.self)
    }

    /// Nothing: the outputs for `range` are in place already.
    @inline(__always) func put(_ samples: UnsafePointer<Float>, _ range: Range<Int>) {}
}

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
    private var a1: Float = 0, a2: Float = 0, b02: Float = 0, b1: Float = 0
    private var history1: Float = 0, history2: Float = 0
    /// A change after the filter has started glides over one control block, the coefficients
    /// stepping each frame (libfluidsynth's way of keeping a moving cutoff from clicking).
    private var a1Step: Float = 0, a2Step: Float = 0, b02Step: Float = 0, b1Step: Float = 0
    private var glideFrames = 0
    /// Whether the glide rescales the history at each step, as libfluidsynth's does when b0
    /// more than doubles or halves (a large jump of the cutoff would otherwise burst).
    private var compensates = false
    private var started = false
    /// The steady coefficients four frames at a time (`Group`), worked out when first needed
    /// after a glide (a cutoff that moves every block glides through every frame).
    private var group = Group(a1: 0, a2: 0)
    private var groupIsCurrent = true
    /// A group of four frames a call ended inside: its inputs so far (zeros after them), how
    /// many, and the history before the group; nil when the last call ended on a group's end.
    private var open: (inputs: SIMD4<Float>, count: Int, history1: Float, history2: Float)?
    /// The cutoff and Q the coefficients are for.
    private var cutoff: Int32 = .min, q: Int32 = .min
    /// The output rate's `CutoffTable`.
    private let cutoffs: UnsafePointer<SIMD2<Double>>
    /// The Q as a ratio, and the passband's gain for it (kept: the Q rarely moves with the cutoff).
    private var qLinear = 0.0, passbandGain = 0.0

    /// The inner signal of four frames as a sum of what each input and each history value
    /// adds to it: each frame's inner signal is its input less a1 and a2 times the two inner
    /// values before it, so a group's four are the inputs times the lower-triangular columns
    /// of that recursion's impulse response (`inputs`), plus the history times its responses
    /// to a unit in either (`history1`, `history2`). Worked out in double precision.
    private struct Group {
        let inputs: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
        let history1: SIMD4<Float>, history2: SIMD4<Float>

        /// The group's columns for these coefficients. Allocates nothing: any thread.
        init(a1: Float, a2: Float) {
            let (a1, a2) = (Double(a1), Double(a2))
            /// The recursion's four inner values from the two before them and the first frame's input.
            func response(first: Double, before1: Double, before2: Double) -> SIMD4<Float> {
                let c0 = first - a2 * before2 - a1 * before1
                let c1 = -a2 * before1 - a1 * c0
                let c2 = -a2 * c0 - a1 * c1
                let c3 = -a2 * c1 - a1 * c2
                return SIMD4(Float(c0), Float(c1), Float(c2), Float(c3))
            }
            let g = response(first: 1, before1: 0, before2: 0)
            inputs = (g, SIMD4(0, g[0], g[1], g[2]), SIMD4(0, 0, g[0], g[1]), SIMD4(0, 0, 0, g[0]))
            history1 = response(first: 0, before1: 1, before2: 0)
            history2 = response(first: 0, before1: 0, before2: 1)
        }
    }

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
            group = Group(a1: a1, a2: a2)
            return
        }
        open = nil
        let frames = Float(Units.controlBlock)
        (a1Step, a2Step, b1Step, b02Step) = ((newA1 - a1) / frames, (newA2 - a2) / frames, (newB1 - b1) / frames, (newB02 - b02) / frames)
        glideFrames = Units.controlBlock
        let quota = newB02 / b02
        compensates = abs(b02) > 0.0001 && (quota < 0.5 || quota > 2)
    }

    /// The sine and cosine of ω for `cutoff` cents (clamped to the table's) from `table`.
    @inline(__always) private static func sineAndCosine(_ cutoff: Int32, _ table: UnsafePointer<SIMD2<Double>>) -> (Double, Double) {
        let entry = table[Int(min(max(cutoff, CutoffTable.cents.lowerBound), CutoffTable.cents.upperBound) - CutoffTable.cents.lowerBound)]
        return (entry[0], entry[1])
    }

    /// Filters `frames` frames of `samples` (which it may overwrite) and puts them to `output`,
    /// `position` the first frame's place in its group of four (the voice's frame count modulo
    /// 4). While a glide lasts the frames go one by one, the coefficients stepping each frame,
    /// and are put four at a time after; steady, they go four at a time
    /// (`Group`), so that a group waits on the history once, not four times. A group a call
    /// splits is worked out again whole when the call that ends it comes, so where calls
    /// split the frames changes nothing. Render thread only.
    mutating func run<Output: FilteredFrames>(_ samples: UnsafeMutablePointer<Float>, frames: Int, position: Int, into output: inout Output) {
        guard frames > 0 else { return }
        started = true
        var history1 = self.history1, history2 = self.history2
        var i = 0
        if glideFrames > 0 {
            var a1 = self.a1, a2 = self.a2, b02 = self.b02, b1 = self.b1
            let gliding = min(frames, glideFrames)
            let a1Step = self.a1Step, a2Step = self.a2Step, b02Step = self.b02Step, b1Step = self.b1Step
            // One frame at a time, each output back in place (a frame's history waits on the
            // last), then put four at a time. The loop that rescales the history is a loop of its
            // own: in one loop the optimizer worked the rescaling's division out every frame and
            // chose after it, which put the division in the history's path (3× the frame's time).
            if compensates {
                while i < gliding {
                    samples[i] = Self.biquad(samples[i], a1: a1, a2: a2, b02: b02, b1: b1, history1: &history1, history2: &history2)
                    let before = b02
                    (a1, a2, b1, b02) = (a1 + a1Step, a2 + a2Step, b1 + b1Step, b02 + b02Step)
                    if abs(b02) > 0.001 {
                        history1 *= before / b02
                        history2 *= before / b02
                    }
                    i += 1
                }
            } else {
                while i < gliding {
                    samples[i] = Self.biquad(samples[i], a1: a1, a2: a2, b02: b02, b1: b1, history1: &history1, history2: &history2)
                    (a1, a2, b1, b02) = (a1 + a1Step, a2 + a2Step, b1 + b1Step, b02 + b02Step)
                    i += 1
                }
            }
            output.put(samples, 0..<gliding)
            glideFrames -= gliding
            (self.a1, self.a2, self.b02, self.b1) = (a1, a2, b02, b1)
            if glideFrames == 0 { groupIsCurrent = false }
            open = nil
        }
        guard i < frames else {
            (self.history1, self.history2) = (history1, history2)
            return
        }
        if !groupIsCurrent {
            group = Group(a1: a1, a2: a2)
            groupIsCurrent = true
        }
        let (b02, b1, group) = (self.b02, self.b1, self.group)
        let place = (position + i) & 3
        if i < frames, place != 0 {
            if let open = self.open, open.count == place {
                // The rest of the group the last call ended inside, worked out again whole.
                var inputs = open.inputs
                let end = min(4, place + frames - i)
                for k in place..<end { inputs[k] = samples[i + k - place] }
                let (filtered, centre) = Self.filter(inputs, previous: SIMD4(0, 0, open.history2, open.history1), group: group, b02: b02, b1: b1)
                for k in place..<end { output.put(filtered[k], at: i + k - place) }
                i += end - place
                self.open = end == 4 ? nil : (inputs, end, open.history1, open.history2)
                (history1, history2) = (centre[end - 1], end >= 2 ? centre[end - 2] : open.history1)
            } else {
                // Entered inside a group with none open (after a glide that ended there): one by one to its end.
                self.open = nil
                let end = min(frames, i + 4 - place)
                while i < end {
                    output.put(Self.biquad(samples[i], a1: a1, a2: a2, b02: b02, b1: b1, history1: &history1, history2: &history2), at: i)
                    i += 1
                }
            }
        }
        if i &+ 4 <= frames {
            var previous = SIMD4(0, 0, history2, history1)
            repeat {
                let inputs = UnsafeRawPointer(samples + i).loadUnaligned(as: SIMD4<Float>.self)
                let (filtered, centre) = Self.filter(inputs, previous: previous, group: group, b02: b02, b1: b1)
                output.put(filtered, at: i)
                previous = centre
                i &+= 4
            } while i &+ 4 <= frames
            (history1, history2) = (previous[3], previous[2])
        }
        if i < frames {   // a group the next call ends
            let count = frames - i
            var inputs = SIMD4<Float>()
            for k in 0..<count { inputs[k] = samples[i + k] }
            let (filtered, centre) = Self.filter(inputs, previous: SIMD4(0, 0, history2, history1), group: group, b02: b02, b1: b1)
            for k in 0..<count { output.put(filtered[k], at: i + k) }
            open = (inputs, count, history1, history2)
            (history1, history2) = (centre[count - 1], count >= 2 ? centre[count - 2] : history1)
        }
        (self.history1, self.history2) = (history1, history2)
    }

    /// Four frames of the steady filter from their `inputs` and the inner signal before them
    /// (`previous`: the frame before in lane 3, the one before that in lane 2): their outputs
    /// and inner signals. The history's share is added last, so that the next group waits on
    /// one multiply and two additions; the sums are kept where they are made
    /// (`barrier_float4_kept`), or the optimizer takes the lanes apart into scalar arithmetic.
    @inline(__always) private static func filter(_ inputs: SIMD4<Float>, previous: SIMD4<Float>, group: Group,
                                                 b02: Float, b1: Float) -> (output: SIMD4<Float>, centre: SIMD4<Float>) {
        /// `vector`'s `lane` in every lane.
        @inline(__always) func spread(_ vector: SIMD4<Float>, _ lane: Int) -> SIMD4<Float> { SIMD4(repeating: vector[lane]) }
        let fromInputs = barrier_float4_kept((spread(inputs, 0) * group.inputs.0 + spread(inputs, 1) * group.inputs.1)
                                             + (spread(inputs, 2) * group.inputs.2 + spread(inputs, 3) * group.inputs.3))
        let centre = barrier_float4_kept(fromInputs + (spread(previous, 3) * group.history1 + spread(previous, 2) * group.history2))
        let before1 = barrier_float4_kept(SIMD4(previous[3], centre[0], centre[1], centre[2]))
        let before2 = barrier_float4_kept(SIMD4(lowHalf: previous.highHalf, highHalf: centre.lowHalf))
        return (b02 * (centre + before2) + b1 * before1, centre)
    }

    /// One frame of the filter with these coefficients and history (moved on a frame).
    @inline(__always) private static func biquad(_ input: Float, a1: Float, a2: Float, b02: Float, b1: Float,
                                                 history1: inout Float, history2: inout Float) -> Float {
        // (input − a2·h2) − a1·h1: the same sum as libfluidsynth's, ordered so that only one
        // multiply and one subtraction wait for the last frame (rounding differs below −130 dB).
        let centre = input - a2 * history2 - a1 * history1
        let output = b02 * (centre + history2) + b1 * history1
        history2 = history1
        history1 = centre
        return output
    }
}
