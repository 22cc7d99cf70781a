import AllocationCounter
import DSP
import Foundation
import Testing

/// The reverb Pianola's synthesizer feeds: its tail falls 60 dB in the decay time its room
/// size gives, its two sides differ as its width says, it never grows, and it allocates
/// nothing on the render thread.
@Suite("The reverb")
struct ReverbTests {
    /// The response of a reverb with `settings` to one impulse, `seconds` long.
    static func impulseResponse(_ settings: Reverb.Settings, seconds: Double, rate: Double = 48_000) -> (left: [Float], right: [Float]) {
        let reverb = Reverb(sampleRate: rate, settings: settings)
        let frames = Int(seconds * rate)
        var input = [Float](repeating: 0, count: frames)
        input[0] = 1
        var left = [Float](repeating: 0, count: frames), right = left
        input.withUnsafeBufferPointer { x in
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    var done = 0
                    for slice in [1, 63, 500, 4_096] + Array(repeating: 4_800, count: frames / 4_800 + 1) where done < frames {
                        let count = min(slice, frames - done)   // uneven slices: each frame is processed alone
                        reverb.process(x.baseAddress! + done, addingTo: l.baseAddress! + done, r.baseAddress! + done, frames: count)
                        done += count
                    }
                }
            }
        }
        return (left, right)
    }

    /// Energy (dB) of 20 ms windows of both sides.
    static func envelope(_ response: (left: [Float], right: [Float]), rate: Double = 48_000) -> [Double] {
        let window = Int(0.02 * rate)
        return stride(from: 0, to: response.left.count - window, by: window).map { start in
            var sum = 0.0
            for i in start ..< start + window { sum += Double(response.left[i] * response.left[i] + response.right[i] * response.right[i]) }
            return 10 * log10(sum / Double(window) + 1e-30)
        }
    }

    @Test("the tail falls 60 dB in the room's decay time (within 15 %), from 0.7 s at room size 0 to 12.5 s at 1, as libfluidsynth's", arguments: [0.0, 0.2, 0.5, 1.0])
    func decayTime(roomSize: Double) {
        var settings = Reverb.Settings()
        settings.roomSize = roomSize
        let envelope = Self.envelope(Self.impulseResponse(settings, seconds: settings.decaySeconds(sampleRate: 48_000) + 1))
        // The slope of the energy between 10 and 40 dB below its peak, as RT60 is measured (T30).
        let peak = envelope.max()!, top = envelope.firstIndex(of: peak)!
        let start = envelope[top...].firstIndex { $0 < peak - 10 }!, end = envelope[top...].firstIndex { $0 < peak - 40 }!
        let seconds = Double(end - start) * 0.02 * 60 / 30
        let asked = settings.decaySeconds(sampleRate: 48_000)
        print(String(format: "room size %.1f: %.2f s to -60 dB (%.2f s asked)", roomSize, seconds, asked))
        #expect(abs(seconds - asked) <= 0.15 * asked)
    }

    @Test("width 0 makes the two sides one; width 1 makes them nearly unrelated; libfluidsynth's 0.5 between")
    func width() {
        var correlations: [Double] = []
        for width in [0.0, 0.5, 1.0] {
            var settings = Reverb.Settings()
            settings.width = width
            let response = Self.impulseResponse(settings, seconds: 1)
            let l = response.left[4_800...].map(Double.init), r = response.right[4_800...].map(Double.init)
            let lr = zip(l, r).reduce(0) { $0 + $1.0 * $1.1 }, ll = l.reduce(0) { $0 + $1 * $1 }, rr = r.reduce(0) { $0 + $1 * $1 }
            correlations.append(lr / (ll * rr).squareRoot())
        }
        print("correlation of the sides at width 0, 0.5, 1:", correlations.map { String(format: "%.2f", $0) })
        #expect(correlations[0] > 0.99 && abs(correlations[2]) < 0.3 && correlations[1] > 0.5 && correlations[1] < 0.85)
    }

    @Test("it never grows: a second of loud noise into the longest room, damped or not, stays bounded and dies away")
    func stable() {
        for damping in [0.0, 1.0] {
            var settings = Reverb.Settings()
            settings.roomSize = 1
            settings.damping = damping
            settings.level = 1
            let reverb = Reverb(sampleRate: 48_000, settings: settings)
            var random = SystemRandomNumberGenerator()
            let noise = (0..<48_000).map { _ in Float.random(in: -1...1, using: &random) }
            let silence = [Float](repeating: 0, count: 48_000)
            var left = [Float](repeating: 0, count: 48_000), right = left
            var peaks: [Float] = []
            for second in 0..<6 {
                left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
                    l.update(repeating: 0)
                    r.update(repeating: 0)
                    (second == 0 ? noise : silence).withUnsafeBufferPointer { reverb.process($0.baseAddress!, addingTo: l.baseAddress!, r.baseAddress!, frames: 48_000) }
                } }
                peaks.append(max(left.map(abs).max()!, right.map(abs).max()!))
            }
            // Each second after the noise quieter than the one before (a 12.5 s decay takes 4.8 dB a second), 14 dB down in four.
            let falls = zip(peaks.dropFirst(), peaks.dropFirst(2)).allSatisfy { $1 < $0 * 0.8 }
            #expect(peaks.allSatisfy(\.isFinite) && falls && peaks[5] < 0.2 * peaks[1], "damping \(damping): peaks \(peaks)")
        }
    }

    @Test("where the calls split the frames changes no bit of the output (damped, three seconds of noise)")
    func splitsChangeNothing() {
        var settings = Reverb.Settings()
        settings.damping = 0.6
        let frames = 3 * 48_000
        var seed: UInt64 = 7
        let noise = (0..<frames).map { _ -> Float in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: seed >> 11) % 2_000 - 1_000) / 1_000
        }
        /// Both sides of the reverb of `noise`, processed in calls of `slices` frames in turn.
        func output(slices: [Int]) -> [Float] {
            let reverb = Reverb(sampleRate: 48_000, settings: settings)
            var left = [Float](repeating: 0, count: frames), right = left
            noise.withUnsafeBufferPointer { x in left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
                var done = 0, call = 0
                while done < frames {
                    let count = min(slices[call % slices.count], frames - done)
                    reverb.process(x.baseAddress! + done, addingTo: l.baseAddress! + done, r.baseAddress! + done, frames: count)
                    done += count
                    call += 1
                }
            } } }
            return left + right
        }
        let whole = output(slices: [frames])
        for slices in [[1], [3, 255, 2], [64], [257, 1_000, 13], [4_096]] {
            #expect(output(slices: slices) == whole, "calls of \(slices) frames")
        }
    }

    @Test("silence is exact: nothing is added before the first sound, nor once the tail has stayed below −140 dBFS for the longest line")
    func exactSilence() {
        let rate = 48_000.0, frames = 6 * 48_000
        var input = [Float](repeating: 0, count: frames)
        for i in 24_000 ..< 24_480 { input[i] = Float(sin(Double(i) * 0.05)) * 0.5 }   // a 10 ms burst at 0.5 s
        let reverb = Reverb(sampleRate: rate)
        var left = [Float](repeating: 0, count: frames), right = left
        input.withUnsafeBufferPointer { x in left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            for start in stride(from: 0, to: frames, by: 512) {
                reverb.process(x.baseAddress! + start, addingTo: l.baseAddress! + start, r.baseAddress! + start, frames: min(512, frames - start))
            }
        } } }
        let firstSound = left.firstIndex { $0 != 0 } ?? frames
        let lastSound = left.lastIndex { $0 != 0 } ?? 0
        let quietFrom = (0..<frames).last { abs(left[$0]) >= 1e-7 || abs(right[$0]) >= 1e-7 }! + 1
        print(String(format: "burst at 24000: first sound %d, below -140 dBFS from %d, exact silence from %d (%.2f s)", firstSound, quietFrom, lastSound + 1, Double(lastSound + 1) / rate))
        #expect(firstSound >= 24_000 && lastSound < frames - 48_000 && left[(lastSound + 1)...].allSatisfy { $0 == 0 } && right[(lastSound + 1)...].allSatisfy { $0 == 0 })
        #expect(lastSound + 1 - quietFrom < 6_000, "the silence follows the quiet tail within the longest line")
    }

    @Test("processing allocates nothing on the render thread")
    func noAllocations() {
        let reverb = Reverb(sampleRate: 48_000)
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 512), left = UnsafeMutablePointer<Float>.allocate(capacity: 512), right = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { input.deallocate(); left.deallocate(); right.deallocate() }
        input.initialize(repeating: 0.1, count: 512)
        left.initialize(repeating: 0, count: 512)
        right.initialize(repeating: 0, count: 512)
        reverb.process(input, addingTo: left, right, frames: 512)
        pianola_allocations_start()
        for _ in 0..<100 { reverb.process(input, addingTo: left, right, frames: 512) }
        var settings = Reverb.Settings()
        settings.roomSize = 0.7
        reverb.set(settings)
        reverb.clear()
        #expect(pianola_allocations_stop() == 0)
    }
}
