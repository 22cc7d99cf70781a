/// Where a voice is in its sample, and how it moves: a 32.32 fixed-point phase in sample
/// points from the data's start, the increment per output frame, and the loop (section
/// 8.1.2, sample modes 0 no loop, 1 loop, 3 loop until release). Reads four points around
/// the phase (the guard points past a sample's ends are the file's zeros, or the loop's other
/// side inside a loop). Render thread only, after `init` on any thread.
struct SamplePlayer {
    /// The sample points of the whole font.
    let data: UnsafePointer<Int16>
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

    /// A player of `data[start..<end]` with that loop and mode, from `start`.
    init(data: UnsafePointer<Int16>, start: Int, end: Int, loopStart: Int, loopEnd: Int, mode: Int32, increment: Double) {
        self.data = data
        self.start = start
        self.end = end
        let loopValid = loopStart >= start && loopEnd <= end && loopEnd - loopStart >= 2
        self.loopStart = loopValid ? loopStart : start
        self.loopEnd = loopValid ? loopEnd : end
        looping = loopValid && (mode == 1 || mode == 3)
        loopsUntilRelease = mode == 3
        phase = UInt64(start) << 32
        self.increment = Self.fixedPoint(increment)
    }

    /// Points per frame in 32.32 fixed point.
    static func fixedPoint(_ increment: Double) -> UInt64 { UInt64(min(max(increment, 0), 4_294_967_295) * 4_294_967_296) }

    /// The point at `index`: within the loop when looping (so the points past its end are
    /// its start's), else 0 outside the sample.
    @inline(__always) private func point(_ index: Int) -> Float {
        var i = index
        if looping {
            if i >= loopEnd { i -= loopEnd - loopStart } else if i < start { i = start }
        } else if i < start || i >= end {
            return 0
        }
        return Float(data[i]) * (1 / 32_768)
    }

    /// Writes the next `frames` interpolated points into `output` (zeros from where the sample
    /// ends, `finished` then set) and returns how many it played before the end. Each point is
    /// the sum, in order, of the four points around the phase times their coefficients.
    @inline(__always) mutating func render(into output: UnsafeMutablePointer<Float>, frames: Int,
                                           table: UnsafePointer<SIMD4<Float>>) -> Int {
        var done = 0
        while done < frames {
            let run = min(insideFrames, frames - done)
            if run > 0 {
                renderInside(into: output + done, frames: run, table: table)
                done += run
                continue
            }
            // Near an end or the loop's: points outside read as the file's zeros or across the loop.
            var index = Int(phase >> 32)
            if looping, index >= loopEnd {
                phase -= UInt64(loopEnd - loopStart) << 32
                index = Int(phase >> 32)
            }
            if index >= end {
                finished = true
                (output + done).update(repeating: 0, count: frames - done)
                return done
            }
            let points = SIMD4(point(index - 1), point(index), point(index + 1), point(index + 2))
            output[done] = (table[Int((phase >> 24) & 0xFF)] * points).sum()
            phase &+= increment
            done += 1
        }
        return frames
    }

    /// Frames from here on whose four points all lie inside the sample (and the loop).
    private var insideFrames: Int {
        let index = Int(phase >> 32), limit = (looping ? loopEnd : end) - 2
        guard index > start, index < limit else { return 0 }
        guard increment > 0 else { return .max }
        let room = UInt64(limit) << 32 - phase
        return Int(min((room - 1) / increment + 1, UInt64(Int.max)))
    }

    /// `render` where every point is inside: four frames at a time, their products transposed
    /// so that four sums come out of three vector additions.
    @inline(__always) private mutating func renderInside(into output: UnsafeMutablePointer<Float>, frames: Int,
                                                         table: UnsafePointer<SIMD4<Float>>) {
        var phase = self.phase
        let increment = self.increment, data = self.data
        /// The four points around `phase` times their coefficients.
        @inline(__always) func products(_ phase: UInt64) -> SIMD4<Float> {
            let p = data + Int(phase >> 32) - 1
            return table[Int((phase >> 24) & 0xFF)] * (SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3])) * (1 / 32_768))
        }
        var i = 0
        while i + 4 <= frames {
            let q0 = products(phase), q1 = products(phase &+ increment)
            let q2 = products(phase &+ 2 &* increment), q3 = products(phase &+ 3 &* increment)
            phase &+= 4 &* increment
            let sums = SIMD4(q0[0], q1[0], q2[0], q3[0]) + SIMD4(q0[1], q1[1], q2[1], q3[1])
                + SIMD4(q0[2], q1[2], q2[2], q3[2]) + SIMD4(q0[3], q1[3], q2[3], q3[3])
            UnsafeMutableRawPointer(output + i).storeBytes(of: sums, as: SIMD4<Float>.self)
            i += 4
        }
        while i < frames {
            output[i] = products(phase).sum()
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
