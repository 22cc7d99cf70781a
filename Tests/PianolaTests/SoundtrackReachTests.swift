import Foundation
@testable import Pianola
import Testing

/// Both sides of the next `frames` frames of `soundtrack`, pulled in uneven slices.
func pullStereo(_ soundtrack: Soundtrack, frames: Int) -> (left: [Float], right: [Float]) {
    var puller = Puller(soundtrack)
    puller.pull(frames)
    return (puller.left, puller.right)
}

@Suite("The game API from memory, by handle and interleaved: what the C library needs")
struct SoundtrackReachTests {
    @Test("a song, font, stem and effect given as bytes sound exactly as the same files given by path")
    func bytesEqualPaths() async throws {
        let fixture = try SoundtrackFixture()
        let midi = try fixture.write(SoundtrackFixture.waltz(bars: 2), as: "waltz.mid")
        let stem = try fixture.writeWAV((0..<48_000).map { Float(sin(Double($0) * 0.03)) * 0.2 }, as: "pad.wav")
        let sting = try fixture.writeWAV([Float](repeating: 0.25, count: 4800), as: "sting.wav")
        func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
        var byPath = Soundtrack.SongDescription(midiPath: midi, soundFontPath: SoundtrackFixture.testFont)
        byPath.stems = ["pad": .path(stem)]
        byPath.trackLayers = ["Bass"]
        var byBytes = Soundtrack.SongDescription(midi: .bytes(try bytes(midi), name: "waltz"), soundFont: .bytes(try bytes(SoundtrackFixture.testFont), name: "font"))
        byBytes.stems = ["pad": .bytes(try bytes(stem), name: "pad")]
        byBytes.trackLayers = ["Bass"]

        func render(_ description: Soundtrack.SongDescription, effect: FileSource) async throws -> (left: [Float], right: [Float]) {
            let soundtrack = Soundtrack(configuration: dryConfiguration())
            let song = try await soundtrack.load(description)
            let effect = try await soundtrack.loadSoundEffect(effect)
            try soundtrack.play(song)
            try soundtrack.setLayer("Bass", volume: 0.5, seconds: 0.5, at: .nextBar)
            try soundtrack.playSoundEffect(effect, at: .nextBeat, volume: 0.8, pan: -0.5)
            return pullStereo(soundtrack, frames: 150_000)
        }
        let a = try await render(byPath, effect: .path(sting))
        let b = try await render(byBytes, effect: .bytes(try bytes(sting), name: "sting"))
        #expect(a.left.contains { abs($0) > 0.01 })
        #expect(a.left == b.left && a.right == b.right)
    }

    @Test("startLoading returns at once; loaded and failed loads are events naming the Song object; a failed song cannot play")
    func loadEvents() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let good = soundtrack.startLoading(.init(midiPath: try fixture.write(SoundtrackFixture.entrance(), as: "e.mid"), soundFontPath: SoundtrackFixture.testFont))
        let bad = soundtrack.startLoading(.init(midi: .bytes(Array("MThd junk".utf8), name: "level-3 music"), soundFont: .path(SoundtrackFixture.testFont)))
        let badFont = soundtrack.startLoadingSoundEffect(.bytes([1, 2, 3], name: "boom"))
        try good.wait()
        #expect(good.state == .ready && good.sequence != nil)
        #expect(throws: SoundtrackError.self) { try bad.wait() }
        guard case .failed(let error) = bad.state else { Issue.record("not failed: \(bad.state)"); return }
        #expect(error.description.hasPrefix("level-3 music: byte "), "\(error)")
        #expect(throws: SoundtrackError(.state, "level-3 music did not load: \(error)")) { try soundtrack.play(bad) }
        #expect(throws: SoundtrackError.self) { try badFont.wait() }

        var events: [Soundtrack.Event] = []
        for _ in 0..<200 where events.count < 3 {
            events += soundtrack.pollEvents()
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        #expect(events.contains(.songLoaded(song: good, sampleTime: 0)))
        #expect(events.contains(.songLoadFailed(song: bad, error: error, sampleTime: 0)))
        #expect(events.contains { if case .soundEffectLoadFailed(let effect, let why, _) = $0 { effect === badFont && why.description.hasPrefix("boom: ") } else { false } })
    }

    @Test("interleaved renders hold the same samples as the planar render; 16-bit is each sample × 32767, rounded")
    func interleaved() async throws {
        let fixture = try SoundtrackFixture()
        let midi = try fixture.write(SoundtrackFixture.waltz(bars: 2), as: "w.mid")
        func soundtrack() async throws -> Soundtrack {
            let soundtrack = Soundtrack(configuration: dryConfiguration())
            try soundtrack.play(try await soundtrack.load(.init(midiPath: midi, soundFontPath: SoundtrackFixture.testFont)))
            return soundtrack
        }
        let frames = 60_000
        let planar = pullStereo(try await soundtrack(), frames: frames)
        let floats = try await soundtrack(), shorts = try await soundtrack()
        var f = [Float](repeating: .nan, count: frames * 2), s = [Int16](repeating: 0, count: frames * 2)
        for start in stride(from: 0, to: frames, by: 7_000) {   // larger than maxFrames, and uneven
            let n = min(7_000, frames - start)
            f.withUnsafeMutableBufferPointer { #expect(floats.render(interleaved: $0.baseAddress! + 2 * start, frameCount: n)) }
            s.withUnsafeMutableBufferPointer { #expect(shorts.render(interleaved: $0.baseAddress! + 2 * start, frameCount: n)) }
        }
        let lefts = stride(from: 0, to: 2 * frames, by: 2).map { f[$0] }, rights = stride(from: 1, to: 2 * frames, by: 2).map { f[$0] }
        #expect(lefts == planar.left && rights == planar.right)
        let expected: [Int16] = planar.left.map { Int16(($0 * 32767).rounded()) }
        #expect(stride(from: 0, to: 2 * frames, by: 2).map { s[$0] } == expected)
        #expect(s.contains { abs(Int($0)) > 300 })
    }

    @Test("a marker the song has but has played past is a state error; a song without layers says it has none")
    func markerPassed() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        var plain = Soundtrack.SongDescription(midiPath: try fixture.write(SoundtrackFixture.waltz(bars: 5), as: "w.mid"), soundFontPath: SoundtrackFixture.testFont)
        plain.loopConventions = []
        let waltz = try await soundtrack.load(plain)
        let entrance = try await soundtrack.load(.init(midiPath: try fixture.write(SoundtrackFixture.entrance(), as: "e.mid"), soundFontPath: SoundtrackFixture.testFont))
        try soundtrack.play(waltz)
        _ = pullStereo(soundtrack, frames: 100_000)   // "verse" sounded at frame 72,000
        #expect(throws: SoundtrackError(.state, "\(waltz.name) does not reach a marker 'verse' again")) { try soundtrack.play(entrance, at: .marker("verse")) }
        #expect(throws: SoundtrackError(.argument, "\(waltz.name) has no layer 'Strings' (it has none)")) { try soundtrack.setLayer("Strings", volume: 1) }
    }

    @Test("a switch at a marker lands on the marker's frame, after a loop wrap when the loop comes first; a missing marker is a one-line error")
    func atMarker() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        // "verse" is at bar 2 (tick 1440, frame 72,000); the loop runs bars 3–5 (ticks 2880–7200).
        var looped = Soundtrack.SongDescription(midiPath: try fixture.write(SoundtrackFixture.waltz(bars: 5, loop: (2, 5)), as: "w.mid"), soundFontPath: SoundtrackFixture.testFont)
        looped.loopConventions = [.markers]
        let waltz = try await soundtrack.load(looped)
        let entrance = try await soundtrack.load(.init(midiPath: try fixture.write(SoundtrackFixture.entrance(), as: "e.mid"), soundFontPath: SoundtrackFixture.testFont))
        try soundtrack.play(waltz)
        #expect(throws: SoundtrackError(.argument, "\(waltz.name) has no marker 'chorus' (markers: verse, loopStart, loopEnd)")) { try soundtrack.play(entrance, at: .marker("chorus")) }
        try soundtrack.play(entrance, at: .marker("VERSE"))
        _ = pullStereo(soundtrack, frames: 100_000)
        let first = soundtrack.pollEvents().first { if case .beat(let song, let beat) = $0 { song === entrance && beat.bar == 1 && beat.beat == 1 } else { false } }
        #expect(first?.sampleTime == SampleTime(waltzFrame(1440)))

        // Past "verse", the loop's start marker comes next only after the wrap at tick 7200.
        let again = Soundtrack(configuration: dryConfiguration())
        #expect(throws: SoundtrackError(.argument, "\(waltz.name) was loaded by another soundtrack")) { try again.play(waltz) }
        let (waltz2, entrance2) = (try await again.load(looped), try await again.load(entrance.description))
        try again.play(waltz2)
        _ = pullStereo(again, frames: waltzFrame(4000))
        try again.play(entrance2, at: .marker("loopStart"))
        _ = pullStereo(again, frames: waltzFrame(7200) + 50_000 - waltzFrame(4000))
        let entered = again.pollEvents().first { if case .beat(let song, let beat) = $0 { song === entrance2 && beat.bar == 1 && beat.beat == 1 } else { false } }
        #expect(entered?.sampleTime == SampleTime(waltzFrame(7200)))
    }

    @Test("a song switched away keeps its last events until they are polled, however late")
    func oldSongsEvents() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let waltz = try await soundtrack.load(.init(midiPath: try fixture.write(SoundtrackFixture.waltz(bars: 4), as: "w.mid"), soundFontPath: SoundtrackFixture.testFont))
        let entrance = try await soundtrack.load(.init(midiPath: try fixture.write(SoundtrackFixture.entrance(), as: "e.mid"), soundFontPath: SoundtrackFixture.testFont))
        try soundtrack.play(waltz)
        _ = pullStereo(soundtrack, frames: 100_000)
        try soundtrack.play(entrance, fadeOut: 0.1)
        _ = pullStereo(soundtrack, frames: 200_000)   // long past the old song's fade: it has left the mix
        let waltzBeats = soundtrack.pollEvents().filter { if case .beat(let song, _) = $0 { song === waltz } else { false } }
        // Beats every 24,000 frames until it stops at 104,096 + 4,800 (the fade): 0 … 96,000.
        #expect(waltzBeats.map(\.sampleTime) == [0, 24_000, 48_000, 72_000, 96_000])
    }

    @Test("pollEvents(limit:) hands out at most that many, oldest first; the rest wait for the next call")
    func pollLimit() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        try soundtrack.play(try await soundtrack.load(.init(midiPath: try fixture.write(SoundtrackFixture.waltz(bars: 2), as: "w.mid"), soundFontPath: SoundtrackFixture.testFont)))
        _ = pullStereo(soundtrack, frames: 48_000 * 4)
        var polled: [Soundtrack.Event] = []
        while true {
            let some = soundtrack.pollEvents(limit: 2)
            #expect(some.count <= 2)
            if some.isEmpty { break }
            polled += some
        }
        let beats = polled.filter { if case .beat = $0 { true } else { false } }
        #expect(beats.count == 6 && polled.map(\.sampleTime) == polled.map(\.sampleTime).sorted())
    }
}
