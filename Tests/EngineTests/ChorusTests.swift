import AllocationCounter
import DSP
import Foundation
import Testing

/// The chorus Pianola's synthesizer feeds: its copies sweep the pitch of what goes in by the
/// depth and speed it is given, its sides move against each other, its level follows the
/// setting, a silent send changes nothing, and it allocates nothing on the render thread.
@Suite("The chorus")
struct ChorusTests {
    /// Four seconds of a 1 kHz sine through a chorus with `settings`, in uneven slices.
    static func sine(_ settings: Chorus.Settings) -> (left: [Float], right: [Float]) {
        let chorus = Chorus(sampleRate: 48_000, settings: settings)
        let input = (0..<192_000).map { Float(sin(2 * Double.pi * 1_000 * Double($0) / 48_000)) * 0.5 }
        var left = [Float](repeating: 0, count: input.count), right = left
        input.withUnsafeBufferPointer { x in left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            var done = 0
            for slice in [1, 63, 500] + Array(repeating: 4_096, count: 47) where done < input.count {
                let count = min(slice, input.count - done)
                chorus.process(x.baseAddress! + done, addingTo: l.baseAddress! + done, r.baseAddress! + done, frames: count)
                done += count
            }
        } } }
        return (left, right)
    }

    /// Frequency from upward zero crossings, interpolated.
    static func frequency(_ x: ArraySlice<Float>) -> Double {
        var crossings: [Double] = []
        var previous = x.first!
        for (i, s) in zip(x.indices.dropFirst(), x.dropFirst()) {
            if previous < 0 && s >= 0 { crossings.append(Double(i - 1) + Double(-previous / (s - previous))) }
            previous = s
        }
        return Double(crossings.count - 1) / (crossings.last! - crossings.first!) * 48_000
    }

    @Test("a 1 kHz sine comes out swept in pitch as an 8 ms sweep at 0.3 Hz sweeps it (about ±13 cents), and not at all with no depth")
    func sweep() {
        for (depth, expected) in [(8.0, 13.0), (0.0, 0.0)] {
            var settings = Chorus.Settings()
            settings.voices = 1
            settings.depth = depth
            let left = Self.sine(settings).left
            let cents = stride(from: 9_600, to: left.count - 2_400, by: 2_400).map { 1_200 * log2(Self.frequency(left[$0 ..< $0 + 2_400]) / 1_000) }
            let swing = (cents.max()! - cents.min()!) / 2
            print(String(format: "depth %.0f ms: the pitch swings ±%.1f cents", depth, swing))
            #expect(abs(swing - expected) <= max(2, 0.25 * expected))
        }
    }

    @Test("the sides move against each other (correlation below −0.8), and the level follows the setting (6 dB for twice the level)")
    func sidesAndLevel() {
        var settings = Chorus.Settings()
        let loud = Self.sine(settings)
        settings.level = 1
        let quiet = Self.sine(settings)
        func rms(_ x: ArraySlice<Float>) -> Double { (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot() }
        let l = loud.left[9_600...], r = loud.right[9_600...]
        let correlation = zip(l, r).reduce(0.0) { $0 + Double($1.0) * Double($1.1) } / (rms(l) * rms(r) * Double(l.count))
        let gain = 20 * log10(rms(l) / rms(quiet.left[9_600...]))
        print(String(format: "sides' correlation %.2f; level 2 over level 1: %.2f dB", correlation, gain))
        #expect(correlation < -0.8 && abs(gain - 6.02) < 0.1)
    }

    @Test("a silent send adds exactly nothing once the line has emptied, and the sweep moves on through it: a burst after a second of silence comes out as after a second of a send too quiet to hear (within 10⁻¹⁸)")
    func silence() {
        /// Half a second of a 1 kHz sine, a second of `gap`, half a second of the sine, in 512-frame calls.
        func chorused(gap: Float) -> [Float] {
            let chorus = Chorus(sampleRate: 48_000)
            let input = (0..<96_000).map { i -> Float in
                (24_000..<72_000).contains(i) ? gap : Float(sin(2 * Double.pi * 1_000 * Double(i) / 48_000)) * 0.5
            }
            var left = [Float](repeating: 0, count: input.count), right = left
            input.withUnsafeBufferPointer { x in left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
                for start in stride(from: 0, to: input.count, by: 512) {
                    chorus.process(x.baseAddress! + start, addingTo: l.baseAddress! + start, r.baseAddress! + start, frames: min(512, input.count - start))
                }
            } } }
            return left
        }
        let silent = chorused(gap: 0), quiet = chorused(gap: 1e-30)
        // The line (16,384 frames at 48 kHz) has emptied 0.35 s into the gap.
        #expect(silent[41_000..<72_000].allSatisfy { $0 == 0 })
        let after = zip(silent[72_000...], quiet[72_000...]).map { abs($0 - $1) }.max()!
        let level = silent[72_000...].map(abs).max()!
        print(String(format: "after the gap: largest difference %.1e at a peak of %.2f", Double(after), Double(level)))
        #expect(level > 0.1 && after < 1e-18)
    }

    @Test("processing allocates nothing on the render thread")
    func noAllocations() {
        let chorus = Chorus(sampleRate: 48_000)
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 512), left = UnsafeMutablePointer<Float>.allocate(capacity: 512), right = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { input.deallocate(); left.deallocate(); right.deallocate() }
        input.initialize(repeating: 0.1, count: 512)
        left.initialize(repeating: 0, count: 512)
        right.initialize(repeating: 0, count: 512)
        chorus.process(input, addingTo: left, right, frames: 512)
        pianola_allocations_start()
        for _ in 0..<100 { chorus.process(input, addingTo: left, right, frames: 512) }
        var settings = Chorus.Settings()
        settings.voices = 5
        chorus.set(settings)
        chorus.clear()
        #expect(pianola_allocations_stop() == 0)
    }
}
