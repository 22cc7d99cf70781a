import MIDI
@testable import Sequencing
import Testing

@Suite("A track's notes: each key press paired with its release")
struct TrackNotesTests {
    @Test("note-off and velocity-0 note-on release; a key pressed again ends the earlier note; a key never released has no end; velocities kept")
    func pairs() {
        let track = MusicTrack(events: [
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 90)),
            MIDIEvent(tick: 10, .noteOn(channel: 9, note: 38, velocity: 80)),
            MIDIEvent(tick: 20, .noteOff(channel: 0, note: 60, velocity: 0)),
            MIDIEvent(tick: 30, .noteOn(channel: 9, note: 38, velocity: 0)),
            MIDIEvent(tick: 40, .noteOn(channel: 1, note: 64, velocity: 70)),
            MIDIEvent(tick: 50, .noteOn(channel: 1, note: 64, velocity: 70)),   // again, unreleased
            MIDIEvent(tick: 55, .noteOn(channel: 2, note: 64, velocity: 70)),
            MIDIEvent(tick: 60, .noteOff(channel: 2, note: 64, velocity: 0)),
            MIDIEvent(tick: 70, .noteOff(channel: 3, note: 1, velocity: 0)),    // released, never pressed
        ])
        #expect(track.notes == [
            NoteSpan(channel: 0, key: 60, velocity: 90, start: 0, end: 20), NoteSpan(channel: 9, key: 38, velocity: 80, start: 10, end: 30),
            NoteSpan(channel: 1, key: 64, velocity: 70, start: 40, end: 50), NoteSpan(channel: 1, key: 64, velocity: 70, start: 50, end: nil),
            NoteSpan(channel: 2, key: 64, velocity: 70, start: 55, end: 60),
        ])
    }
}
