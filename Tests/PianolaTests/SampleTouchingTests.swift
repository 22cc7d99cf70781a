import FluidSynth
import Foundation
import MIDI
@testable import Pianola
import SF2
import SoundFontModel
import SoundFontSynth
import Testing

/// Pianola's synthesizer maps a font's samples from the file; before a song plays it reads the
/// pages of the samples the song's notes play (so the render thread never waits for the file)
/// and no others (so what the song does not play costs no memory).
@Suite("Pianola's synthesizer reads the samples a song plays before it plays, and only those")
struct SampleTouchingTests {
    /// A font whose one preset has three 4 MB samples: keys 0-59 loud, keys 0-59 soft
    /// (velocities 1-63), keys 60-127. Its path; the caller removes it.
    static func writeFont() throws -> String {
        var font = SF2File(name: "split")
        let points = 2_048 * 1_024
        let samples = (0..<3).map { n in
            font.add(SF2Sample(name: "s\(n)", data: (0..<points).map { Int16(truncatingIfNeeded: $0 &* (n + 3)) }, sampleRate: 48_000, rootKey: 60, loop: (0, points)))
        }
        let instrument = font.add(SF2Instrument(name: "split", zones: [
            .init(sample: samples[0], generators: [.keyRange(0, 59), .velocityRange(64, 127), .sampleModes(1)]),
            .init(sample: samples[1], generators: [.keyRange(0, 59), .velocityRange(1, 63), .sampleModes(1)]),
            .init(sample: samples[2], generators: [.keyRange(60, 127), .sampleModes(1)]),
        ]))
        font.presets.append(SF2Preset(name: "split", bank: 0, program: 0, zones: [.init(instrument: instrument)]))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("split-\(UUID().uuidString).sf2").path
        try Data(font.serialized()).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// How many of the pages of each of `font`'s samples this process has mapped in
    /// (/proc/self/pagemap's present bit), and how many pages each has.
    static func residentPages(_ font: SoundFont) throws -> [(resident: Int, pages: Int)] {
        let pagemap = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/pagemap"))
        defer { try? pagemap.close() }
        return try font.samples.map { header in
            let data = font.data(of: header)
            let first = UInt(bitPattern: data.baseAddress!) / 4_096, last = (UInt(bitPattern: data.baseAddress! + data.count) - 1) / 4_096
            try pagemap.seek(toOffset: UInt64(first) * 8)
            let entries = try pagemap.read(upToCount: Int(last - first + 1) * 8) ?? Data()
            let resident = stride(from: 0, to: entries.count, by: 8).filter { entries[entries.startIndex + $0 + 7] & 0x80 != 0 }.count
            return (resident, Int(last - first + 1))
        }
    }

    /// The pages resident after a synthesizer for `messages` was made, touching as `touching` says.
    static func resident(after messages: [MIDIMessage], touching: SoundFontSynthesizer.Touching, font path: String) throws -> [(resident: Int, pages: Int)] {
        let font = try SoundFont(path: path)   // a mapping of its own: nothing of it resident yet
        _ = try SoundFontSource.model(font).makeSongSynthesizer(configurations: EngineConfigurations(pianola: .init(), fluidSynth: .init()), selectedBy: messages, touching: touching)
        return try residentPages(font)
    }

    @Test("a note reads every page of the samples its key and velocity play and not the others'; transposed, the transposed key's; for the game API, the whole preset's")
    func zonesOfTheNotes() throws {
        let path = try Self.writeFont()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let song: [MIDIMessage] = [.programChange(channel: 0, program: 0), .noteOn(channel: 0, note: 40, velocity: 100), .noteOff(channel: 0, note: 40, velocity: 0)]
        // The kernel maps the pages around a page read from a cached file (16, or a whole
        // large folio, up to 2 MB with ext4 on Linux 6.18): a neighbour of a sample read may
        // show that many.
        let nearby = 512 + 16
        let played = try Self.resident(after: song, touching: .notes(transposedBy: 0), font: path)
        print("key 40 at velocity 100: \(played.map { "\($0.resident)/\($0.pages)" }) pages resident (loud low, soft low, high)")
        #expect(played[0].resident == played[0].pages)
        #expect(played[1].resident <= nearby && played[2].resident <= nearby)

        let transposed = try Self.resident(after: song, touching: .notes(transposedBy: 24), font: path)
        #expect(transposed[2].resident == transposed[2].pages)
        #expect(transposed[0].resident <= nearby && transposed[1].resident <= nearby)

        let preset = try Self.resident(after: song, touching: .presets, font: path)
        #expect(preset.allSatisfy { $0.resident == $0.pages })
        let none = try Self.resident(after: [.programChange(channel: 0, program: 0)], touching: .presets, font: path)
        #expect(none.allSatisfy { $0.resident <= nearby }, "a preset no note plays is not read")
        let live = try Self.resident(after: [], touching: .font, font: path)
        #expect(live.allSatisfy { $0.resident == $0.pages }, "for notes played live, every sample")
    }
}
