import Testing
import MIDI
import Playback
import Sequencing
import TestSupport

@Suite("Score: the tracks merged for playing, each event read from its track")
struct ScoreTests {
    /// Four tracks of random notes, controllers, markers and parameter events on a 480-tick
    /// grid (many on the same tick in several tracks), under three tempo changes.
    static func sequence() -> MusicSequence {
        var random = SplitMix(seed: 29)
        var tempo = MusicTrack()
        for (tick, microseconds) in [(0, 500_000), (1_000, 350_000), (4_321, 900_000)] {
            tempo.insert(MIDIEvent(tick: tick, .meta(.tempo(microsecondsPerQuarter: UInt32(microseconds)))))
        }
        let tracks = (0..<4).map { track in
            MusicTrack(events: (0..<400).map { _ in
                let tick = Int.random(in: 0..<40, using: &random) * 120
                switch Int.random(in: 0..<10, using: &random) {
                case 0: return MIDIEvent(tick: tick, .meta(ParameterEvent(target: .input(track), parameter: .volume,
                                                                          value: Float.random(in: 0...1, using: &random), curve: .linear).meta))
                case 1: return MIDIEvent(tick: tick, .meta(.text(.marker, Array("m\(tick)".utf8))))
                case 2: return MIDIEvent(tick: tick, .controlChange(channel: UInt8(track), controller: 7, value: UInt8.random(in: 0...127, using: &random)))
                default: return MIDIEvent(tick: tick, .noteOn(channel: UInt8(track), note: UInt8.random(in: 0...127, using: &random), velocity: 100))
                }
            }.sorted { $0.tick < $1.tick })
        }
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: tracks)
    }

    @Test("every event once, by tick, then track, then track order, with its track's tick and message and the tempo map's frame; exactly the parameter events have an automation step, which points back at them")
    func mergedFromTracks() {
        let sequence = Self.sequence()
        let score = MusicPlayer.Score(sequence, sampleRate: 48_000)
        // The order worked out on its own: (tick, track, place in the track) sorted.
        let expected = sequence.tracks.enumerated().flatMap { track, t in
            t.events.enumerated().map { (tick: $0.element.tick, track: track, place: $0.offset, message: $0.element.message) }
        }.sorted { ($0.tick, $0.track, $0.place) < ($1.tick, $1.track, $1.place) }
        #expect(score.events.count == expected.count && expected.count == 1_600)
        var steps = 0
        for (i, event) in score.events.enumerated() {
            #expect(event.tick == expected[i].tick && event.track == expected[i].track && event.message == expected[i].message)
            #expect(event.frame == ScoreFrame(sequence.tempoMap.sampleFrame(atTick: event.tick, sampleRate: 48_000)))
            let step = score.automationStep(atEvent: i)
            #expect((step != nil) == (event.message.parameterEvent != nil))
            if let step {
                #expect(score.automation[step].index == i && score.automation[step].frame == event.frame)
                steps += 1
            }
        }
        #expect(steps == score.automation.count && steps > 100)
    }

    @Test("the first event at or after a tick or a frame, for ticks and frames on, between, before and after the events")
    func lookups() {
        let score = MusicPlayer.Score(Self.sequence(), sampleRate: 48_000)
        let events = Array(score.events)
        for tick in [-1, 0, 1, 119, 120, 2_400, 4_679, 4_680, 4_681, 100_000] {
            #expect(score.firstIndex(atOrAfterTick: tick) == (events.firstIndex { $0.tick >= tick } ?? events.count))
        }
        for frames: Int64 in [-1, 0, 1, 59_999, 60_000, 250_000, 1_000_000, 10_000_000] {
            let frame = ScoreFrame(frames)
            #expect(score.firstIndex(atOrAfter: frame) == (events.firstIndex { $0.frame >= frame } ?? events.count))
        }
    }
}
