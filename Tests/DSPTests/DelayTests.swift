import DSP
import Foundation
import Testing

@Suite("The built-in delay")
struct DelayTests {
    /// An impulse at frame 100 through a delay of `time` seconds, rendered in slices of 333 frames.
    static func impulseResponse(time: Double, feedback: Double, mix: Double, frames: Int) -> [Float] {
        let delay = DelayEffect()
        delay.prepare(sampleRate: 48_000, maxFrames: 333)
        delay.setParameter(0, to: time, rampFrames: 0)
        delay.setParameter(1, to: feedback, rampFrames: 0)
        delay.setParameter(2, to: mix, rampFrames: 0)
        let buffer = AudioBuffer(capacity: 333)
        var out: [Float] = []
        while out.count < frames {
            let slice = buffer.slice(frames: min(333, frames - out.count))
            slice.clear()
            if (out.count..<out.count + slice.frames).contains(100) {
                slice.left[100 - out.count] = 1
                slice.right[100 - out.count] = -1
            }
            delay.process(slice)
            out += (0..<slice.frames).map { slice.left[$0] }
            #expect((0..<slice.frames).allSatisfy { slice.right[$0] == -slice.left[$0] })
        }
        return out
    }

    @Test("Echoes land exactly time × rate frames apart, each feedback times the last; the dry sound keeps 1 − mix")
    func exactEchoes() {
        // 0.1234 s at 48 kHz is 5,923.2 frames: the echo is 5,923 frames after the sound.
        let out = Self.impulseResponse(time: 0.1234, feedback: 0.5, mix: 0.25, frames: 30_000)
        let loud = out.indices.filter { abs(out[$0]) > 1e-6 }
        #expect(loud == [100, 6_023, 11_946, 17_869, 23_792, 29_715], "\(loud)")
        #expect(out[100] == 0.75 && out[6_023] == 0.25 && out[11_946] == 0.125 && out[17_869] == 0.0625)
    }

    @Test("The tail lasts until the echoes have fallen 80 dB")
    func tail() {
        let delay = DelayEffect()
        delay.prepare(sampleRate: 48_000, maxFrames: 512)
        delay.setParameter(0, to: 0.25, rampFrames: 0)
        delay.setParameter(1, to: 0.5, rampFrames: 0)
        // 0.5^14 is below -80 dB, 0.5^13 is not: fourteen returns after the first echo.
        #expect(delay.tailFrames == 15 * 12_000)
        delay.setParameter(1, to: 0, rampFrames: 0)
        #expect(delay.tailFrames == 12_000)
    }

    @Test("A gliding time bends the echo without a click: its samples change smoothly")
    func glide() {
        let delay = DelayEffect()
        delay.prepare(sampleRate: 48_000, maxFrames: 480)
        delay.setParameter(1, to: 0, rampFrames: 0)
        delay.setParameter(2, to: 1, rampFrames: 0)
        let buffer = AudioBuffer(capacity: 480)
        var previous: Float = 0, largest: Float = 0, frame = 0
        for block in 0..<200 {
            if block == 50 { delay.setParameter(0, to: 0.1, rampFrames: 24_000) }
            for i in 0..<480 {
                let x = Float(0.5 * sin(2 * Double.pi * 220 * Double(frame + i) / 48_000))
                buffer.left[i] = x
                buffer.right[i] = x
            }
            delay.process(buffer.slice(frames: 480))
            for i in 0..<480 {
                if frame + i > 20_000 { largest = max(largest, abs(buffer.left[i] - previous)) }
                previous = buffer.left[i]
            }
            frame += 480
        }
        // A 220 Hz sine at 0.5 moves at most 0.0144 a frame; a glide shortening the delay by
        // 0.275 s over 0.5 s plays it 1.55 times faster (0.0223). A click would jump far more.
        #expect(largest < 0.025, "largest step \(largest)")
    }
}
