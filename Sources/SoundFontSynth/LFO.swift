import CBarrier
#if canImport(Glibc)
import Glibc
#endif

/// A voice's modulation or vibrato LFO (section 8.1.2, generators 21-24) as libfluidsynth runs
/// it: a triangle from 0 rising first, between −1 and 1, stepped once per 64-frame control
/// block once its delay has passed (counted in frames from the note's first). Render thread
/// only, after `init` on any thread.
struct LFO {
    /// Where the triangle is, −1...1: read alone (`barrier_float_kept`), as `step` has just
    /// written it, where the optimizer read the whole LFO in one load and waited for the store.
    var value: Float { barrier_float_kept(position) }
    private var position: Float = 0
    private var increment: Float
    private let delayFrames: Int

    /// An LFO delayed by `delay` timecents at `frequency` absolute cents, at `sampleRate`.
    init(delay: Int32, frequency: Int32, sampleRate: Double) {
        delayFrames = Int(sampleRate * Units.delaySeconds(delay))
        let hertz = 8.175_798_915_6 * exp2(Double(min(max(frequency, -16_000), 4_500)) / 1_200)
        increment = Float(4 * Double(Units.controlBlock) * hertz / sampleRate)
    }

    /// One control block on, the voice having played `elapsed` frames before it.
    mutating func step(elapsed: Int) {
        guard elapsed >= delayFrames else { return }
        position += increment
        if position > 1 {
            increment = -increment
            position = 2 - position
        } else if position < -1 {
            increment = -increment
            position = -2 - position
        }
    }
}
