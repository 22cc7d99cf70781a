import Dispatch
import Foundation
@testable import Pianola
import Testing
import TestSupport

@Suite("One SoundFont loaded once and lent to songs rendering at once on several threads", .cpuHeavy)
struct SharedSoundFontTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let font = root.appendingPathComponent("soundfonts/pianola-gm.sf2").path
    static let songs = ["ode-to-joy", "twinkle", "town", "battle", "greensleeves"].map { root.appendingPathComponent("songs/\($0).mid").path }

    /// The whole render of `renderer`, left then right samples of each slice, appended.
    static func samples(_ renderer: SongRenderer) -> [Float] {
        var out: [Float] = []
        renderer.render { slice, _ in
            out.append(contentsOf: UnsafeBufferPointer(start: slice.left, count: slice.frames))
            out.append(contentsOf: UnsafeBufferPointer(start: slice.right, count: slice.frames))
        }
        return out
    }

    /// Renders every song with `makeRenderer` on `threads` threads, each taking the next song.
    static func renderAll(threads: Int, _ makeRenderer: @escaping @Sendable (MusicSequence) throws -> SongRenderer) throws -> [[Float]] {
        let sequences = try songs.map { MusicSequence(file: try MIDIFile(contentsOf: $0)) }
        nonisolated(unsafe) var results = [[Float]?](repeating: nil, count: sequences.count)
        nonisolated(unsafe) var reads = 0
        let lock = NSLock()
        nonisolated(unsafe) var next = 0
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while true {
                let index: Int = lock.withLock { defer { next += 1 }; return next }
                guard index < sequences.count else { return }
                let before = FluidSynthesizer.fontReadsOnThisThread
                let rendered = (try? makeRenderer(sequences[index])).map(samples)
                let read = FluidSynthesizer.fontReadsOnThisThread - before
                lock.withLock {
                    results[index] = rendered
                    reads += read
                }
            }
        }
        #expect(reads == 0, "a borrowed font is never read again")
        return results.map { $0 ?? [] }
    }

    @Test("songs rendered at once with one shared font are bit-identical to songs rendered one by one with their own, loaded whole")
    func sharedMatchesOwn() throws {
        var whole = SongGraph.Settings()
        whole.engine = .fluidsynth   // as the shared font plays
        whole.loadWholeFont = true
        let own = try Self.songs.map { song -> [Float] in
            let renderer = try SongRenderer(sequence: MusicSequence(file: try MIDIFile(contentsOf: song)), soundFontPath: Self.font, settings: whole)
            return Self.samples(renderer)
        }
        let before = FluidSynthesizer.fontReadsOnThisThread
        let shared = try SharedSoundFont(path: Self.font)
        #expect(FluidSynthesizer.fontReadsOnThisThread > before)
        for threads in [2, 5] {
            let together = try Self.renderAll(threads: threads) { try SongRenderer(sequence: $0, soundFont: shared) }
            for (index, song) in Self.songs.enumerated() {
                #expect(together[index].count == own[index].count, "\(song) with \(threads) threads")
                let differing = zip(together[index], own[index]).filter { $0 != $1 }.count
                #expect(differing == 0, "\(song) with \(threads) threads: \(differing) samples differ")
                #expect((together[index].map(abs).max() ?? 0) > 0.05, "\(song) sounds")
            }
        }
    }

    @Test("the font outlives every borrower, and a borrower outlives the font's own handle")
    func lifetimes() throws {
        let sequence = MusicSequence(file: try MIDIFile(contentsOf: Self.songs[0]))
        var shared: SharedSoundFont? = try SharedSoundFont(path: Self.font)
        let first = try SongRenderer(sequence: sequence, soundFont: shared!)
        let firstSamples = Self.samples(first)
        let second = try SongRenderer(sequence: sequence, soundFont: shared!)
        shared = nil
        #expect(Self.samples(second) == firstSamples, "the second render matches the first")
    }

    @Test("a font that cannot load fails in one line that names it")
    func badFont() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-shared-bad-\(getpid()).sf2").path
        _ = FileManager.default.createFile(atPath: path, contents: Data("RIFF\u{4}\0\0\0sfbk".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect { try SharedSoundFont(path: path) } throws: { "\($0)".hasPrefix("\(path): cannot load SoundFont") && !"\($0)".contains("\n") }
    }
}
