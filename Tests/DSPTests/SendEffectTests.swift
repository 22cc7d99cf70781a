import DSP
import Foundation
import Testing

@Suite("The reverb and chorus as inserts")
struct SendEffectTests {
    @Test("The insert is the send's processor on the sides' sum, added to the dry sound as set", arguments: [SendEffect.Kind.reverb, .chorus])
    func insertIsTheSend(kind: SendEffect.Kind) {
        let insert = SendEffect(kind)
        insert.prepare(sampleRate: 48_000, maxFrames: 480)
        insert.setParameter(insert.parameters.count - 1, to: 0.5, rampFrames: 0)     // dry at half
        let reverb = Reverb(sampleRate: 48_000), chorus = Chorus(sampleRate: 48_000)
        let audio = AudioBuffer(capacity: 480), expected = AudioBuffer(capacity: 480), mono = AudioBuffer(capacity: 480)
        var seed: UInt64 = 5, largest: Float = 0
        for _ in 0..<200 {
            for i in 0..<480 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                audio.left[i] = Float(Int64(bitPattern: seed) >> 40) / Float(1 << 23) * 0.3
                audio.right[i] = audio.left[i] * 0.5
                mono.left[i] = 0.5 * (audio.left[i] + audio.right[i])
                expected.left[i] = audio.left[i] * 0.5
                expected.right[i] = audio.right[i] * 0.5
            }
            if kind == .reverb { reverb.process(mono.left, addingTo: expected.left, expected.right, frames: 480) }
            else { chorus.process(mono.left, addingTo: expected.left, expected.right, frames: 480) }
            insert.process(audio.slice(frames: 480))
            for i in 0..<480 {
                largest = max(largest, abs(audio.left[i] - expected.left[i]), abs(audio.right[i] - expected.right[i]))
            }
        }
        #expect(largest == 0, "\(kind): off by \(largest)")
        if kind == .reverb {
            insert.setParameter(0, to: 0.8, rampFrames: 0)
            var settings = Reverb.Settings()
            settings.roomSize = 0.8
            #expect(insert.tailFrames == Int(settings.decaySeconds(sampleRate: 48_000) * 48_000))
        }
    }
}
