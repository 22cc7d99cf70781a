import Foundation
import Pianola
import SongBook
import Testing
import TestSupport

/// Long looped playback, offline: the sample clock never drifts from the tempo map, and the
/// synth's voices do not pile up. (`pianola-bench soak 60` runs the hour and prints RSS.)
@Suite("Soak: looped playback with tempo changes", .cpuHeavy)
struct SoakTests {
    @Test("10 minutes looping bars 2–10 of a song with a tempo change on every bar: every wrap on its exact frame, voices steady")
    func loopedWithTempoChanges() throws {
        let sequence = MusicSequence(file: SongBook.odeToJoyWithTempoChanges())
        let meter = try #require(sequence.meterMap)
        var settings = SongGraph.Settings()
        settings.fromTick = meter.tick(at: BarBeatTick(bar: 2, beat: 1))
        settings.toTick = meter.tick(at: BarBeatTick(bar: 10, beat: 1))
        settings.plays = 1000
        settings.reverb = false
        let map = sequence.tempoMap
        let loopFrames = map.sampleFrame(atTick: settings.toTick!, sampleRate: 48_000) - map.sampleFrame(atTick: settings.fromTick, sampleRate: 48_000)
        let renderer = try SongRenderer(sequence: sequence, soundFontPath: SoundtrackFixture.testFont, settings: settings)
        var wraps: [Int64] = []
        var voicesAtWraps: [Int] = []
        var peakVoices = 0
        renderer.render(frames: 10 * 60 * 48_000) { _, _ in
            peakVoices = max(peakVoices, renderer.songGraph.activeVoiceCount)
            for case .loopWrapped(let time) in renderer.songGraph.player.pollEvents() {
                wraps.append(time)
                voicesAtWraps.append(renderer.songGraph.activeVoiceCount)
            }
        }
        let expected = (1...Int64(wraps.count)).map { $0 * loopFrames }
        #expect(wraps.count == Int(10 * 60 * 48_000 / loopFrames))
        #expect(wraps == expected, "wraps drifted from k × \(loopFrames) frames")
        // Each pass leaves the same voices ringing at the wrap as the one before it.
        #expect(Set(voicesAtWraps.dropFirst()).count == 1, "voices at the wraps: \(voicesAtWraps)")
        #expect(peakVoices <= 16, "peak voices \(peakVoices)")
    }
}
