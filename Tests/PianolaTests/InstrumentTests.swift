import Foundation
@testable import Pianola
import TestSupport
import Testing

@Suite("The game API's LV2 instruments")
struct InstrumentTests {
    /// A song whose track "Keys" plays the first `count` of A4, C5, E5, A5, a quarter note
    /// apart from tick 240, each held an eighth; 120 bpm, 480 ticks a quarter.
    static func song(notes count: Int) -> MusicSequence {
        var track = MusicTrack(name: "Keys", events: [])
        for (key, tick) in [(UInt8(69), 240), (72, 720), (76, 1_200), (81, 1_680)].prefix(count) {
            track.insert(MIDIEvent(tick: tick, .noteOn(channel: 0, note: key, velocity: 100)))
            track.insert(MIDIEvent(tick: tick + 240, .noteOff(channel: 0, note: key, velocity: 0)))
        }
        track.length = 2_400
        return MusicSequence(division: .ticksPerQuarter(480), tracks: [track])
    }

    /// The left side of the song with `count` notes, played by MDA Piano through a soundtrack
    /// pulled in uneven slices from its first frame.
    static func render(notes count: Int, _ fixture: SoundtrackFixture) async throws -> [Float] {
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(song(notes: count), as: "keys\(count).mid"), soundFontPath: SoundtrackFixture.testFont)
        description.instruments = ["keys": try InstrumentSpec("mda piano,random_detuning=0")]
        let song = try await soundtrack.load(description)
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(120_000)
        return pull.left
    }

    @Test("MDA Piano plays a song's track: each note from its exact frame, its fundamental at the note's pitch")
    func onsetsAndPitches() async throws {
        let fixture = try SoundtrackFixture()
        var renders: [[Float]] = []
        for count in 0...4 { renders.append(try await Self.render(notes: count, fixture)) }
        #expect(renders[0].allSatisfy { $0 == 0 }, "no note, no sound")
        for (k, (key, tick)) in [(69, 240), (72, 720), (76, 1_200), (81, 1_680)].enumerated() {
            let (with, without) = (renders[k + 1], renders[k])
            let onset = with.indices.first { with[$0] != without[$0] }!
            let expected = 440 * pow(2, (Double(key) - 69) / 12)
            let heard = strongestPartial((onset..<onset + 9_600).map { with[$0] - without[$0] }, near: expected)
            let cents = 1_200 * log2(heard / expected)
            print("soundtrack, mda piano, key \(key): onset frame \(onset) (the song's \(tick * 50)), \(String(format: "%+.1f", cents)) cents")
            #expect(onset == tick * 50)
            #expect(abs(cents) < 10)
        }
    }

    @Test("An instrument for a track the song has not is refused at load in one line; an effect plugin is no instrument")
    func refusals() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(Self.song(notes: 1), as: "keys.mid"), soundFontPath: SoundtrackFixture.testFont)
        description.instruments = ["Drums": try InstrumentSpec("mda piano")]
        await #expect(throws: SoundtrackError.self) { try await soundtrack.load(description) }
        do { _ = try await soundtrack.load(description) } catch { #expect(error.description.hasSuffix("keys.mid: no track is named 'Drums'")) }
        #expect(throws: EffectSpecError.self) { try InstrumentSpec("mda delay") }
    }
}
