/// libfluidsynth's default interpolation: four points (Catmull-Rom), the phase's fraction
/// quantised to 256 steps, the coefficients tabled once, each times 1/32768 so that a 16-bit
/// point times it is full scale (a power of two: the product rounds as it would with the
/// point scaled first, one multiplication fewer a point). Any thread.
enum Interpolation {
    /// Steps of the fraction between two sample points.
    static let steps = 256

    /// The four coefficients (for the points before, at, after and two after the phase) of
    /// each step, one SIMD4 per step. Made on first use (a voice's making touches it, off
    /// the render thread); read-only after.
    nonisolated(unsafe) static let coefficients: UnsafePointer<SIMD4<Float>> = {
        let table = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: steps)
        for i in 0..<steps {
            let x = Double(i) / Double(steps)
            table[i] = SIMD4(Float(x * (-0.5 + x * (1 - 0.5 * x))), Float(1 + x * x * (1.5 * x - 2.5)),
                             Float(x * (0.5 + x * (2 - 1.5 * x))), Float(0.5 * x * x * (x - 1))) * (1 / 32_768)
        }
        return UnsafePointer(table)
    }()
}
