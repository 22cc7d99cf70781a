import Foundation
@testable import Pianola
import Testing
import TestSupport

@Suite("A song's synthesis split over threads by channel", .cpuHeavy)
struct SplitSamplerTests {
    static let root = SharedSoundFontTests.root
    static let font = SharedSoundFontTests.font

    /// The render of `song` on `threads` threads, as float samples (left then right of each
    /// slice), and its labels.
    static func render(_ song: String, threads: Int, engine: SynthesisEngine = .fluidsynth) throws -> ([Float], [NoteLabel]) {
        var settings = SongGraph.Settings()
        settings.threads = threads
        settings.engine = engine
        let renderer = try SongRenderer(sequence: MusicSequence(file: try MIDIFile(contentsOf: root.appendingPathComponent("songs/\(song).mid").path)),
                                        soundFontPath: font, settings: settings)
        renderer.recordLabels()
        #expect(engine == .pianola ? renderer.songGraph.ownSynths.count == 1 : renderer.songGraph.samplers.count == threads)
        return (SharedSoundFontTests.samples(renderer), renderer.labels)
    }

    @Test("Pianola's synthesizer on 2 and 4 threads: the song rendered on one thread, bit for bit, and the same notes")
    func ownSynthesizerOnThreads() throws {
        for song in ["greensleeves", "battle"] {
            let (one, oneLabels) = try Self.render(song, threads: 1, engine: .pianola)
            for threads in [2, 4] {
                let (many, manyLabels) = try Self.render(song, threads: threads, engine: .pianola)
                let differing = zip(one, many).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(many.count == one.count && differing == 0, "\(song), \(threads) threads: \(differing) of \(one.count) samples differ")
                #expect(manyLabels == oneLabels, "\(song): the same notes on the same frames")
            }
            #expect((one.map(abs).max() ?? 0) > 0.05)
        }
    }

    @Test("two threads: the same bytes on every run, the notes one thread plays, and its samples to float rounding")
    func matchesOneThread() throws {
        for song in ["greensleeves", "battle"] {
            let (one, oneLabels) = try Self.render(song, threads: 1)
            let (two, twoLabels) = try Self.render(song, threads: 2)
            let (again, _) = try Self.render(song, threads: 2)
            #expect(two == again, "\(song): reproducible")
            #expect(two.count == one.count, "\(song)")
            // Apart only by float rounding, but in the first block of some notes: libfluidsynth
            // glides a new voice's filter over its first 64 frames from what its voice slot
            // played before, and the slots differ between one synthesizer and two.
            let apart = zip(one, two).enumerated().filter { abs($1.0 - $1.1) > 1e-6 }.map(\.offset)
            var runs: [ClosedRange<Int>] = []
            for index in apart {
                if let last = runs.last, index - last.upperBound <= 64 { runs[runs.count - 1] = last.lowerBound...index } else { runs.append(index...index) }
            }
            #expect(runs.allSatisfy { $0.count <= 64 }, "\(song): \(runs.filter { $0.count > 64 })")
            #expect(runs.count <= oneLabels.count / 4, "\(song): \(runs.count) note starts apart")
            #expect((one.map(abs).max() ?? 0) > 0.05)
            #expect(twoLabels == oneLabels, "\(song): the same notes on the same frames")
        }
    }

    @Test("channels are shared out by their notes, the busiest first, each to the least loaded part")
    func channelParts() {
        // Notes per channel: 1 → 10, 2 → 6, 3 → 5, 10 → 4; channel 5 has only a program change.
        var events: [MIDIEvent] = []
        for (channel, count) in [(0, 10), (1, 6), (2, 5), (9, 4)] {
            for i in 0..<count { events.append(MIDIEvent(tick: i * 10, .noteOn(channel: UInt8(channel), note: 60, velocity: 90))) }
        }
        events.append(MIDIEvent(tick: 0, .programChange(channel: 4, program: 3)))
        let sequence = MusicSequence(file: MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: events.sorted { $0.tick < $1.tick })]))
        let two = SongGraph.channelParts(of: sequence, parts: 2)
        #expect(two[0] == 0 && two[1] == 1 && two[2] == 1 && two[9] == 0 && two[4] == 0)   // 10 + 4 against 6 + 5
        #expect(SongGraph.channelParts(of: sequence, parts: 8).filter { $0 > 0 }.count == 3, "no more parts than busy channels")
        #expect(SongGraph.channelParts(of: sequence, parts: 1) == [Int](repeating: 0, count: 16))
    }
}
