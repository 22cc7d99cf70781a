import Dispatch
import Foundation
@testable import Pianola
import Testing

/// Runs `body` on a thread of its own and returns what it returned.
private func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: T?
    let thread = Thread {
        result = body()
        done.signal()
    }
    thread.start()
    done.wait()
    return result!
}

@Suite("libfluidsynth's lazy sample loading: every preset a song selects is loaded before it plays")
struct LazyLoadingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let font = root.appendingPathComponent("soundfonts/pianola-gm.sf2").path
    static let song = root.appendingPathComponent("songs/ode-to-joy.mid").path   // four programs and drums

    @Test("a whole offline render reads nothing from the font on the render thread; without the preload it would")
    func offlineRender() throws {
        let sequence = MusicSequence(file: try MIDIFile(contentsOf: Self.song))
        let before = FluidSynthesizer.fontReadsOnThisThread
        var settings = SongGraph.Settings()
        settings.engine = .fluidsynth
        let renderer = try SongRenderer(sequence: sequence, soundFontPath: Self.font, settings: settings)
        #expect(FluidSynthesizer.fontReadsOnThisThread > before, "the font is read through the counted loader")
        #expect(renderer.songGraph.synthesizer?.configuration.lazySampleLoading == true)
        nonisolated(unsafe) let shared = renderer
        let (reads, loudest) = onAnotherThread { () -> (Int, Float) in
            let start = FluidSynthesizer.fontReadsOnThisThread
            var loudest: Float = 0
            shared.render { slice, _ in for i in 0..<slice.frames { loudest = max(loudest, abs(slice.left[i])) } }
            return (FluidSynthesizer.fontReadsOnThisThread - start, loudest)
        }
        #expect(reads == 0)
        #expect(loudest > 0.05)

        // The same song through a synthesizer that was not preloaded reads on the render thread.
        let bare = try FluidSynthesizer()
        _ = try bare.loadSoundFont(path: Self.font)
        let unprepared = bare
        let unpreparedReads = onAnotherThread { () -> Int in
            let start = FluidSynthesizer.fontReadsOnThisThread
            for program in [73, 32, 48] { unprepared.programChange(channel: 0, program: program) }
            return FluidSynthesizer.fontReadsOnThisThread - start
        }
        #expect(unpreparedReads > 0)
    }

    @Test("a game-API run on libfluidsynth (two songs, layers, a switch) reads nothing from the font on the render thread")
    func gameRun() async throws {
        var configuration = Soundtrack.Configuration()
        configuration.engine = .fluidsynth
        let soundtrack = Soundtrack(configuration: configuration)
        var town = Soundtrack.SongDescription(midiPath: Self.root.appendingPathComponent("songs/town.mid").path, soundFontPath: Self.font)
        town.trackLayers = ["Strings"]
        let first = try await soundtrack.load(town)
        let second = try await soundtrack.load(.init(midi: .path(Self.song), soundFont: .bytes([UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.font))), name: "gm")))
        try soundtrack.play(first)
        let shared = soundtrack
        let reads = onAnotherThread { () -> Int in
            let start = FluidSynthesizer.fontReadsOnThisThread
            var puller = Puller(shared)
            puller.pull(200_000)
            try? shared.play(second, at: .nextBar)
            puller.pull(400_000)
            return FluidSynthesizer.fontReadsOnThisThread - start
        }
        #expect(reads == 0)
    }
}
