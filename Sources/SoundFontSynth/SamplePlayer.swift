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

    /// Writes `frames` interpolated points times a gain ramping from `gain` by `step` a
    /// frame into `output`, leaving `gain` where the ramp got to (so a block rendered in two
    /// calls is the same as in one); returns how many it wrote before the sample ended.
    @inline(__always) mutating func render(into output: UnsafeMutablePointer<Float>, frames: Int, gain: inout Float, step: Float) -> Int {
        let table = Interpolation.coefficients   // once, not per frame (a global's first-use check)
        var g = gain, phase = self.phase
        var written = frames
        for frame in 0..<frames {
            var index = Int(phase >> 32)
            if looping, index >= loopEnd {
                phase -= UInt64(loopEnd - loopStart) << 32
                index = Int(phase >> 32)
            }
            if index >= end {
                finished = true
                written = frame
                break
            }
            let c = table[Int((phase >> 24) & 0xFF)]
            let points: SIMD4<Float>
            if index > start && index + 2 < (looping ? loopEnd : end) {
                // All four points inside the sample (and the loop): read them as they are.
                let p = data + index - 1
                points = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3])) * (1 / 32_768)
            } else {
                points = SIMD4(point(index - 1), point(index), point(index + 1), point(index + 2))
            }
            output[frame] = (c * points).sum() * g
            g += step
            phase &+= increment
        }
        self.phase = phase
        gain = g
        return written
    }

    /// Note-off: a sample that loops until release plays on to its end.
    mutating func release() {
        if loopsUntilRelease { looping = false }
    }
}
