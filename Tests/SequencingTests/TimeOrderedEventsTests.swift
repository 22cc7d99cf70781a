import MIDI
import Sequencing
import Testing

@Suite("Tracks merged into time order as they are read")
struct TimeOrderedEventsTests {
    @Test("the merge equals a stable sort by tick then track, for few tracks and for thousands")
    func matchesStableSort() {
        var generator = SystemRandomNumberGenerator()
        for trackCount in [0, 1, 3, 40, 3_000] {
            let tracks = (0..<trackCount).map { track -> [MIDIEvent] in
                var tick = 0
                return (0..<Int.random(in: 0...30, using: &generator)).map { i in
                    tick += Int.random(in: 0...3, using: &generator)   // repeated ticks: ties inside a track keep their order
                    return MIDIEvent(tick: tick, .controlChange(channel: UInt8(track % 16), controller: UInt8(i % 120), value: UInt8(track % 128)))
                }
            }
            let expected = tracks.enumerated().flatMap { track, events in events.enumerated().map { (track, $0.offset, $0.element) } }
                .sorted { ($0.2.tick, $0.0, $0.1) < ($1.2.tick, $1.0, $1.1) }
            let merged = Array(TimeOrderedEvents(tracks: tracks))
            #expect(merged.count == expected.count, "\(trackCount) tracks")
            #expect(zip(merged, expected).allSatisfy { $0.track == $1.0 && $0.event == $1.2 }, "\(trackCount) tracks")
        }
    }
}
