import MIDI
import Testing
@testable import Sequencing

@Suite("Game loop markers: CC111, loopStart/loopEnd, EMIDI and Descent")
struct SongLoopTests {
    /// A one-track song, 8 beats of notes at 480 ticks per quarter ending on the bar line
    /// (tick 3840), plus `marks`.
    static func song(_ marks: [MIDIEvent]) -> MusicSequence {
        var track = MusicTrack(name: "Tune")
        for beat in 0..<8 {
            track.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: 60, velocity: 90)))
            track.insert(MIDIEvent(tick: beat * 480 + 400, .noteOff(channel: 0, note: 60, velocity: 0)))
        }
        for mark in marks { track.insert(mark) }
        track.length = 3840
        return MusicSequence(tracks: [track])
    }

    @Test("each convention reads its own marks; the song's end closes a loop with no end mark")
    func conventions() {
        let markers = Self.song([MIDIEvent(tick: 960, .meta(.text(.marker, string: "loopStart"))),
                                 MIDIEvent(tick: 2880, .meta(.text(.marker, string: "LoopEnd")))])
        #expect(SongLoop.find(in: markers) == SongLoop(startTick: 960, endTick: 2880, convention: .markers))

        let rpg = Self.song([MIDIEvent(tick: 1440, .controlChange(channel: 0, controller: 111, value: 0))])
        #expect(SongLoop.find(in: rpg) == SongLoop(startTick: 1440, endTick: 3840, convention: .rpgMaker))

        let emidi = Self.song([MIDIEvent(tick: 480, .controlChange(channel: 3, controller: 116, value: 2)),
                               MIDIEvent(tick: 1920, .controlChange(channel: 3, controller: 117, value: 127))])
        #expect(SongLoop.find(in: emidi) == SongLoop(startTick: 480, endTick: 1920, count: 2, convention: .emidi))
    }

    @Test("controller 111 is RPG Maker's loop start unless Descent's reading is asked for")
    func controller111() {
        let song = Self.song([MIDIEvent(tick: 480, .controlChange(channel: 0, controller: 110, value: 0)),
                              MIDIEvent(tick: 2400, .controlChange(channel: 0, controller: 111, value: 0))])
        #expect(SongLoop.find(in: song) == SongLoop(startTick: 2400, endTick: 3840, convention: .rpgMaker))
        #expect(SongLoop.find(in: song, conventions: [.descent]) == SongLoop(startTick: 480, endTick: 2400, convention: .descent))
        #expect(SongLoop.find(in: song, conventions: [.markers, .emidi]) == nil)
    }

    @Test("a song with no marks, or an end before its start, has no loop")
    func none() {
        #expect(SongLoop.find(in: Self.song([])) == nil)
        let backwards = Self.song([MIDIEvent(tick: 2000, .meta(.text(.marker, string: "loopStart"))),
                                   MIDIEvent(tick: 1000, .meta(.text(.marker, string: "loopEnd")))])
        #expect(SongLoop.find(in: backwards) == nil)
    }
}
