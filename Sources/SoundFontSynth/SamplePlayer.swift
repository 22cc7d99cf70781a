import CBarrier

/// Where a voice is in its sample, and how it moves: a 32.32 fixed-point phase in sample
/// points from the data's start, the increment per output frame, and the loop (section
/// 8.1.2, sample modes 0 no loop, 1 loop, 3 loop until release). Reads four points around
/// the phase (the guard points past a sample's ends are the file's zeros, or the loop's other
/// side inside a loop). Render thread only, after `init` on any thread.
struct SamplePlayer {
    /// The sample's points, and how many can be read from there (to the end of the font's).
    let data: UnsafePointer<Int16>, readable: Int
    /// The sample's first point and one past its last.
    let start: Int, end: Int
    /// The loop's first point and one past its last.
    let loopStart: Int, loopEnd: Int
    /// Whether it loops now (cleared at the release for "until release").
    var looping: Bool
    /// Whether it stops looping at the release.
    let loopsUntilRelease: Bool
    private(set) var phase: UInt64
    /// Sample points per output frame, 32.32 fixed point.
    var increment: UInt64
    /// Whether it has played past its end.
    private(set) var finished = false
    /// Whether it has gone round its loop once.
    private(set) var hasLooped = false

    /// A player of `data[start..<end]` with that loop and mode, from `start`; `data` has
    /// `readable` points (at least `end`).
    init(data: UnsafePointer<Int16>, readable: Int, start: Int, end: Int, loopStart: Int, loopEnd: Int, mode: Int32, increment: Double) {
        self.data = data
        self.readable = readable
        self.start = start
        self.end = end
        // The voice keeps the loop inside the sample, in order. It may begin before the start
        // or end after the end (an offset or a modulator moved them): libfluidsynth loops it
        // all the same, the end mattering only once it stops looping; a start past the loop's
        // end begins at the loop's start.
        let loopValid = loopEnd - loopStart >= 2
        self.loopStart = loopValid ? loopStart : start
        self.loopEnd = loopValid ? loopEnd : end
        looping = loopValid && (mode == 1 || mode == 3)
        loopsUntilRelease = mode == 3
        phase = UInt64(looping && start >= loopEnd ? loopStart : start) << 32
        self.increment = Self.fixedPoint(increment)
    }

    /// Points per frame in 32.32 fixed point, at most 2³¹ − 1: a phase within a sample's 2³¹
    /// points plus one step then stays under 2³², where the fixed point would wrap to 0.
    static func fixedPoint(_ increment: Double) -> UInt64 { UInt64(min(max(increment, 0), 2_147_483_647) * 4_294_967_296) }

    /// The point at `index`: within the loop when looping (so the points past its end are
    /// its start's), else 0 outside the sample.
    @inline(__always) private func point(_ index: Int) -> Float {
        var i = index
        if looping {
            while i >= loopEnd { i -= loopEnd - loopStart }
            if i < start { i = loopStart < start ? max(i, loopStart) : start }
        } else if i < start || i >= end {
            return 0
        }
        return Float(data[i])
    }

    /// The most sample points `render` converts to float at once (four points a frame of a
    /// control block: up to two octaves above the sample's own rate), eight at a time.
    static let spanCapacity = 4 * Units.controlBlock + 8

    /// Writes the next `frames` interpolated points into `output`, each times its gain on
    /// `ramp` (zeros from where the sample ends, `finished` then set), and returns how many it
    /// played before the end. Each point is the sum (`total`) of the four points around the
    /// phase times their coefficients (`table`'s, which carry the 1/32768 that makes a 16-bit
    /// point full scale). `span` has room for `spanCapacity` points.
    @inline(__always) mutating func render(into output: UnsafeMutablePointer<Float>, frames: Int,
                                           table: UnsafePointer<SIMD4<Float>>, span: UnsafeMutablePointer<Float>, ramp: GainRamp) -> Int {
        var done = 0
        while done < frames {
            done += renderInside(into: output + done, frames: frames - done, table: table, span: span, ramp: ramp.advanced(by: done))
            guard done < frames else { break }
            // Near an end or the loop's: points outside read as the file's zeros or across the loop.
            var index = Int(phase >> 32)
            if looping, index >= loopEnd {
                // As many whole loops back as it takes: a pitch far above the sample's moves
                // the phase millions of loops a frame, and one at a time would hang the render.
                let length = loopEnd - loopStart
                phase -= UInt64((index - loopEnd) / length + 1) * UInt64(length) << 32
                index = Int(phase >> 32)
                hasLooped = true
            }
            if !looping, index >= end {
                finished = true
                (output + done).update(repeating: 0, count: frames - done)
                return done
            }
            let points = SIMD4(point(index - 1), point(index), point(index + 1), point(index + 2))
            output[done] = Self.total(table[Int((phase >> 24) & 0xFF)] * points) * ramp.gain(at: done)
            phase &+= increment
            done += 1
        }
        return frames
    }

    /// `render` for as many of `frames` as have all four points inside the sample (and the
    /// loop): the points they read converted to float into `span` first when they fit there,
    /// then four frames at a time (`interpolate`). Returns how many frames it rendered.
    @inline(__always) private mutating func renderInside(into output: UnsafeMutablePointer<Float>, frames: Int,
                                                         table: UnsafePointer<SIMD4<Float>>, span: UnsafeMutablePointer<Float>, ramp: GainRamp) -> Int {
        // Inside: the point before the phase's is the sample's first or later, the one two
        // after it before the end (the loop's end while looping).
        let first = UInt64((looping ? min(start, loopStart) : start) + 1) << 32, last = UInt64(max((looping ? loopEnd : end) - 2, 0)) << 32
        let phase = self.phase
        guard phase >= first, phase < last else { return 0 }
        let increment = self.increment
        // The frames inside: the last one's phase is below `last` (all of them, as a rule:
        // worked out without a division then).
        let room = last - 1 - phase
        let (reach, overflow) = increment.multipliedReportingOverflow(by: UInt64(frames - 1))
        let inside = !overflow && reach <= room ? frames : Int(room / increment) + 1
        let lowest = Int(phase >> 32) - 1, highest = Int((phase &+ UInt64(inside - 1) &* increment) >> 32) + 2
        // Eight points at a time, so up to seven more than it reads (when the font has them).
        let converted = (highest - lowest + 8) & ~7
        if converted <= Self.spanCapacity && lowest + converted <= readable {
            let data = UnsafeRawPointer(self.data + lowest), floats = UnsafeMutableRawPointer(span)
            var i = 0
            repeat {
                let points = SIMD8<Int32>(truncatingIfNeeded: data.loadUnaligned(fromByteOffset: 2 &* i, as: SIMD8<Int16>.self))
                floats.storeBytes(of: SIMD8<Float>(points), toByteOffset: 4 &* i, as: SIMD8<Float>.self)
                i &+= 8
            } while i < converted
            let points = UnsafePointer(span) - lowest
            interpolate(into: output, frames: inside, table: table, ramp: ramp) { index in
                UnsafeRawPointer(points + index - 1).loadUnaligned(as: SIMD4<Float>.self)
            }
        } else {
            let data = self.data
            interpolate(into: output, frames: inside, table: table, ramp: ramp) { index in
                let p = data + index - 1
                return SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3]))
            }
        }
        return inside
    }

    /// A frame's four products summed as every path sums them: the outer pair and the inner
    /// pair, then those two.
    @inline(__always) private static func total(_ products: SIMD4<Float>) -> Float {
        (products[0] + products[2]) + (products[1] + products[3])
    }

    /// Writes `frames` interpolated points into `output`, moving the phase on, `points` giving
    /// the four points around a point's index. Four frames at a time, their products summed
    /// as `total` sums them in three vector additions and six shuffles; each product and pair
    /// of frames is kept where it is computed (`barrier_float4_kept`), or the optimizer would
    /// move the shuffles ahead of the multiplications and double them.
    @inline(__always) private mutating func interpolate(into output: UnsafeMutablePointer<Float>, frames: Int, table: UnsafePointer<SIMD4<Float>>, ramp: GainRamp,
                                                        points: (Int) -> SIMD4<Float>) {
        var phase = self.phase
        let increment = self.increment
        /// The four points around `phase` times their coefficients.
        @inline(__always) func products(_ phase: UInt64) -> SIMD4<Float> {
            barrier_float4_kept(table[Int((phase >> 24) & 0xFF)] * points(Int(phase >> 32)))
        }
        var i = 0
        var gains = ramp.fourGains(at: 0)
        while i &+ 4 <= frames {
            let q0 = products(phase), q1 = products(phase &+ increment), q2 = products(phase &+ 2 &* increment), q3 = products(phase &+ 3 &* increment)
            phase = phase &+ 4 &* increment
            // Each frame's outer and inner pairs: (q0[0] + q0[2], q0[1] + q0[3], q1[0] + q1[2], q1[1] + q1[3]) …
            let first = barrier_float4_kept(SIMD4(lowHalf: q0.lowHalf, highHalf: q1.lowHalf) + SIMD4(lowHalf: q0.highHalf, highHalf: q1.highHalf))
            let second = barrier_float4_kept(SIMD4(lowHalf: q2.lowHalf, highHalf: q3.lowHalf) + SIMD4(lowHalf: q2.highHalf, highHalf: q3.highHalf))
            // … then the two pairs of each frame.
            let sums = SIMD4(lowHalf: first.evenHalf, highHalf: second.evenHalf) + SIMD4(lowHalf: first.oddHalf, highHalf: second.oddHalf)
            UnsafeMutableRawPointer(output + i).storeBytes(of: sums * gains.values, as: SIMD4<Float>.self)
            gains.advance()
            i &+= 4
        }
        while i < frames {
            output[i] = Self.total(products(phase)) * ramp.gain(at: i)
            phase &+= increment
            i += 1
        }
        self.phase = phase
    }

    /// Note-off: a sample that loops until release plays on to its end.
    mutating func release() {
        if loopsUntilRelease { looping = false }
    }
}

/// A gain that moves in a straight line through a control block (the volume envelope's, from
/// one block's value to the next's): each frame's gain is `start + step × its place in the
/// block`, worked out from its place rather than added up, so that where a render call splits
/// the block changes no frame's gain. Render thread only.
struct GainRamp {
    /// The gain at the block's first frame, and its step a frame.
    let start: Float, step: Float
    /// The place in the block of the frame this ramp counts from.
    let frame: Int

    /// The ramp counted from `frames` frames later.
    @inline(__always) func advanced(by frames: Int) -> GainRamp { GainRamp(start: start, step: step, frame: frame + frames) }

    /// The gain of the frame `offset` frames on.
    @inline(__always) func gain(at offset: Int) -> Float { start + step * Float(frame + offset) }

    /// The gains of four frames from `offset` frames on, lane by lane the same as `gain(at:)`'s.
    @inline(__always) func fourGains(at offset: Int) -> FourGains {
        FourGains(start: start, step: step, places: SIMD4<Float>(0, 1, 2, 3) + Float(frame + offset))
    }

    /// Four consecutive frames' gains, moved on four frames at a time.
    struct FourGains {
        let start: Float, step: Float
        var places: SIMD4<Float>
        /// The four gains.
        @inline(__always) var values: SIMD4<Float> { start + step * places }
        /// On to the next four frames.
        @inline(__always) mutating func advance() { places += 4 }
    }
}
