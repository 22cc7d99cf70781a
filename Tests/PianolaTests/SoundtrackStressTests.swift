import Dispatch
import Locks
import Foundation
@testable import Pianola
import Synchronization
import Testing
import TestSupport

/// What the audio thread and the game threads share in the stress test.
final class Shared: Sendable {
    let running = Atomic<Bool>(true)
    let events = Atomic<Int>(0)
    let loudest = ControlLock<Float>(0)
}

/// Several game threads call the soundtrack at once while an audio thread pulls it. CI runs
/// this suite under ThreadSanitizer too (`swift test --sanitize=thread`, see .ci/run).
@Suite("The game API under several threads at once", .cpuHeavy)
struct SoundtrackStressTests {
    @Test("four threads play, crossfade, fade layers, change tempo, jump between sections, move by transition rules (through a segment), glide game parameters, play MIDI stingers, pause and poll while audio renders: no race, no stuck call, output finite and limited")
    func manyThreads() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack()   // the master limiter on: many songs at once still peak at or below 1
        var looped = Soundtrack.SongDescription(midiPath: try fixture.write(SoundtrackFixture.waltz(loop: (1, 4)), as: "a.mid"), soundFontPath: SoundtrackFixture.testFont)
        looped.trackLayers = ["Bass"]
        let songs = [try await soundtrack.load(looped),
                     try await soundtrack.load(.init(midiPath: fixture.write(SoundtrackFixture.entrance(), as: "b.mid"), soundFontPath: SoundtrackFixture.testFont))]
        let sting = try await soundtrack.loadSoundEffect(.path(try fixture.writeWAV([Float](repeating: 0.3, count: 480), as: "s.wav")))

        let shared = Shared()
        let audio = Thread {
            let buffer = AudioBuffer(capacity: 256)
            var peak: Float = 0
            while shared.running.load(ordering: .relaxed) {
                let slice = buffer.slice(frames: 256)
                soundtrack.render(into: slice)
                for i in 0..<slice.frames where !slice.left[i].isFinite || !slice.right[i].isFinite { peak = .infinity }
                for i in 0..<slice.frames { peak = max(peak, abs(slice.left[i]), abs(slice.right[i])) }
            }
            shared.loudest.withLock { $0 = peak }
        }
        audio.start()

        // A game switching faster than its fades end, while paused (the clock stands
        // still, and the paused graph still takes its queued changes):
        // the oldest fading songs are cut rather than filling the mixer's 64 inputs.
        try soundtrack.setTransition(.init(name: "via", leave: .nextBeat, segment: .init(songs[1]), fadeOut: 0.05), from: .song(songs[0]), to: .song(songs[1]))
        try soundtrack.setTransition(.init(name: "cue", leave: .now, fadeIn: 0.02, entry: .samePosition), from: .song(songs[1]), to: .song(songs[0]))
        try soundtrack.defineParameter("intensity")
        try soundtrack.mapParameter("intensity", to: .layerVolume("bass"), curve: .linear(from: 0, to: 1))
        try soundtrack.mapParameter("intensity", to: .controller(74, channels: [1]), curve: .linear(from: 0, to: 127))
        try soundtrack.mapParameter("intensity", to: .tempo, curve: .linear(from: 80, to: 120))
        try soundtrack.mapParameter("intensity", to: .nextSection(["verse"]), curve: .linear(from: 0, to: 0))
        soundtrack.pause()
        for i in 0..<100 { try soundtrack.crossfade(to: songs[i % 2], seconds: 1) }
        soundtrack.resume()


        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for step in 0..<150 {
                        switch (worker + step) % 10 {
                        case 0: try soundtrack.play(songs[step % 2], at: .nextBeat)
                        case 1: try soundtrack.crossfade(to: songs[(step + 1) % 2], seconds: 0.05, at: .nextBar)
                        case 2: try? soundtrack.setLayer("bass", volume: Float(step % 3) / 2, seconds: 0.02)
                        case 3: try soundtrack.setTempo(percent: 50 + step % 100)
                        case 4: try soundtrack.setTranspose(semitones: step % 5 - 2)
                        case 5: try soundtrack.playSoundEffect(sting, at: step % 2 == 0 ? .now : .nextBeat, volume: 0.5)
                        case 6: if step % 4 == 2 { soundtrack.pause() } else { soundtrack.resume() }
                        case 7 where step % 3 == 0: try soundtrack.transition(to: songs[step % 2])
                        case 7: try? soundtrack.jump(to: "verse", at: step % 2 == 0 ? .nextBar : .now)   // the waltz's section; the other song has none
                        case 8 where step % 3 == 1: try soundtrack.setParameter("intensity", to: Double(step % 7) / 6, seconds: Double(step % 3) * 0.05)
                        case 8: try? soundtrack.playStinger(songs[1], at: .nextBeat, priority: step % 3)   // busy when four of higher priority sound
                        default: shared.events.add(soundtrack.pollEvents().count, ordering: .relaxed)
                        }
                        if step % 20 == 19 { try soundtrack.stop(fadeOut: 0.01) }
                        try await Task.sleep(nanoseconds: 200_000)
                    }
                }
            }
            try await group.waitForAll()
        }
        soundtrack.resume()
        try soundtrack.play(songs[0])
        try await Task.sleep(nanoseconds: 300_000_000)
        shared.running.store(false, ordering: .relaxed)
        while !audio.isFinished { try await Task.sleep(nanoseconds: 1_000_000) }
        let peak = shared.loudest.withLock { $0 }
        #expect(peak.isFinite && peak > 0 && peak <= 1, "peak \(peak)")
        #expect(soundtrack.pollEvents().count + shared.events.load(ordering: .relaxed) > 0)
    }
}
