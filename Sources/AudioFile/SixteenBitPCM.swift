/// Float samples made 16-bit PCM as libsndfile makes them for WAV and raw files when it clips
/// (measured: the sample times 2³¹ is t, rounded to the nearest integer, ties to even, and the
/// top 16 bits of that are the sample, so a step's range is about [n, n + 1) × 2⁻¹⁵; 32,767
/// from t = 2³¹ up, −32,768 for −2³¹ and below and for NaN), eight samples at a time where
/// libsndfile converts one at a time.
/// `AudioFileWriterTests` holds it to libsndfile bit for bit. Any thread.
enum SixteenBitPCM {
    /// `count` samples from `source` into `destination`.
    static func convert(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Int16>, count: Int) {
        var i = 0
        while i &+ 8 <= count {
            store(eight(UnsafeRawPointer(source + i).loadUnaligned(as: SIMD8<Float>.self)), destination + i)
            i &+= 8
        }
        convertRest(from: i, count: count, into: destination) { source[$0] }
    }

    /// `frames` frames of `left` and `right` into `destination`, interleaved (left, right, …).
    static func interleave(_ left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Int16>, frames: Int) {
        var i = 0
        while i &+ 4 <= frames {
            let l = UnsafeRawPointer(left + i).loadUnaligned(as: SIMD4<Float>.self), r = UnsafeRawPointer(right + i).loadUnaligned(as: SIMD4<Float>.self)
            store(eight(SIMD8(l[0], r[0], l[1], r[1], l[2], r[2], l[3], r[3])), destination + 2 &* i)
            i &+= 4
        }
        convertRest(from: 2 &* i, count: 2 &* frames, into: destination) { $0 & 1 == 0 ? left[$0 >> 1] : right[$0 >> 1] }
    }

    /// Samples `start..<count` (`sample` gives each) into `destination`, the same way: padded to eight.
    private static func convertRest(from start: Int, count: Int, into destination: UnsafeMutablePointer<Int16>, _ sample: (Int) -> Float) {
        guard start < count else { return }
        var values = SIMD8<Float>()
        for k in start..<count { values[k - start] = sample(k) }
        let converted = eight(values)
        for k in start..<count { destination[k] = converted[k - start] }
    }

    /// Writes `values` at `pointer`.
    @inline(__always) private static func store(_ values: SIMD8<Int16>, _ pointer: UnsafeMutablePointer<Int16>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: values, as: SIMD8<Int16>.self)
    }

    /// Eight samples converted, in float arithmetic throughout: a float vector's conversion
    /// to integers, `pointwiseMin` and `clamped` go lane by lane through calls.
    @inline(__always) static func eight(_ samples: SIMD8<Float>) -> SIMD8<Int16> {
        let y = samples * 32_768   // t / 2¹⁶, exact
        // NaN and what is below −32,768 to −32,768; from 32,768 up to 32,767.
        var v = y.replacing(with: -32_768, where: .!(y .>= -32_768))
        v.replace(with: 32_767, where: y .>= 32_768)
        // The floor of t rounded, over 2¹⁶: below 128 in size, where t may have a fraction,
        // the floor of y + 2⁻¹⁷ (exact there; a tie rounds up, to the even multiple of 2¹⁶);
        // above, t is whole, and it is the floor of y.
        v.replace(with: v + 0x1p-17, where: (v .< 128) .& (v .> -128))
        // The floor: the nearest whole number (adding 1.5 × 2²³ rounds to it), one less if
        // that is above; plus 1.5 × 2²³ again, its pattern's low bits are the number.
        let magic = SIMD8<Float>(repeating: 12_582_912)
        var floor = (v + magic) - magic
        floor.replace(with: floor - 1, where: floor .> v)
        let pattern = unsafeBitCast(floor + magic, to: SIMD8<Int32>.self) &- unsafeBitCast(magic, to: SIMD8<Int32>.self)
        return SIMD8<Int16>(truncatingIfNeeded: pattern)
    }
}
