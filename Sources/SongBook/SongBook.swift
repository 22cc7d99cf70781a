import MIDI

/// The songs in songs/: public-domain tunes the project entered itself. Any thread.
public enum SongBook {
    /// Every song, in the order the README lists them. Any thread.
    public static let all: [Song] = [odeToJoy, greensleeves, twinkle, town, battle]

    /// "Ode to Joy" with a tempo change on each of its first 12 bars, to tempos whose frames
    /// per tick are never whole at 48 kHz: what the soak test and benchmark loop. Not in
    /// songs/. Any thread.
    public static func odeToJoyWithTempoChanges() -> MIDIFile {
        var file = odeToJoy.midiFile()
        let barTicks = 4 * odeToJoy.ticksPerQuarter
        let tempos = [487_123, 611_111, 433_333, 555_557, 500_001, 377_777, 701_234]
        let changes = (1...12).map { bar in
            MIDIEvent(tick: (bar - 1) * barTicks, .meta(.tempo(microsecondsPerQuarter: UInt32(tempos[bar % tempos.count]))))
        }
        file.tracks[0] = MIDIFile.Track(events: (file.tracks[0].events + changes).timeOrdered())
        return file
    }

    /// Beethoven's "Ode to Joy" (Symphony No. 9): melody, bass, strings and drums, 4/4, with a
    /// ritardando over the last two bars.
    static let odeToJoy = Song(
        fileName: "ode-to-joy.mid", title: "Ode to Joy (L. van Beethoven)", format: 1, ticksPerQuarter: 480,
        timeSignature: TimeSignature(4, 4), tempos: [(1, 112), (15, 100), (16, 80)],
        parts: [
            .init("Melody", channel: 0, program: 73, velocity: 100, """
                E4:4 E4 F4 G4 | G4 F4 E4 D4 | C4 C4 D4 E4 | E4:4. D4:8 D4:2 |
                E4:4 E4 F4 G4 | G4 F4 E4 D4 | C4 C4 D4 E4 | D4:4. C4:8 C4:2 |
                D4:4 D4 E4 C4 | D4 E4:8 F4 E4:4 C4 | D4 E4:8 F4 E4:4 D4 | C4 D4 G3:2 |
                E4:4 E4 F4 G4 | G4 F4 E4 D4 | C4 C4 D4 E4 | D4:4. C4:8 C4:2
                """),
            .init("Bass", channel: 1, program: 32, velocity: 95, """
                C3:2 G2 | G2 G2 | C3 C3 | G2 G2 | C3 G2 | G2 G2 | C3 C3 | G2 C3 |
                G2 G2 | C3 C3 | G2 G2 | C3 G2 | C3 G2 | G2 G2 | C3 C3 | G2 C3:2
                """),
            .init("Strings", channel: 2, program: 48, velocity: 70, """
                [C3 E3 G3]:1 | [B2 D3 G3] | [C3 E3 G3] | [B2 D3 G3] |
                [C3 E3 G3] | [B2 D3 G3] | [C3 E3 G3] | [B2 D3 G3]:2 [C3 E3 G3] |
                [B2 D3 G3]:1 | [C3 E3 G3] | [B2 D3 G3] | [C3 E3 G3]:2 [B2 D3 G3] |
                [C3 E3 G3]:1 | [B2 D3 G3] | [C3 E3 G3] | [B2 D3 G3]:2 [C3 E3 G3]
                """),
            .init("Drums", channel: 9, velocity: 85,
                  String(repeating: "[kick hat]:8 hat [snare hat] hat [kick hat] hat [snare hat] hat | ", count: 15)
                    + "[crash kick]:2 r:2"),
        ])

    /// "Greensleeves" (traditional English), flute over a bass line in 3/4.
    static let greensleeves = Song(
        fileName: "greensleeves.mid", title: "Greensleeves (traditional)", format: 1, ticksPerQuarter: 480,
        timeSignature: TimeSignature(3, 4), tempos: [(1, 90)],
        parts: [
            .init("Flute", channel: 0, program: 73, velocity: 95, """
                r:2 A4:4 | C5:2 D5:4 | E5:4. F5:8 E5:4 | D5:2 B4:4 | G4:4. A4:8 B4:4 | C5:2 A4:4 |
                A4:4. G#4:8 A4:4 | B4:2 G#4:4 | E4:2 A4:4 | C5:2 D5:4 | E5:4. F5:8 E5:4 | D5:2 B4:4 |
                G4:4. A4:8 B4:4 | C5:4. B4:8 A4:4 | G#4:4. F#4:8 G#4:4 | A4:2.
                """),
            .init("Bass", channel: 1, program: 32, velocity: 85, """
                r:2. | A2:2. | C3 | G2 | G2 | A2 | E2 | E2 | A2 | A2 | C3 | G2 | G2 | A2 | E2 | A2
                """),
        ])

    /// A game's town theme: a bar of introduction, then four bars between its `loopStart` and
    /// `loopEnd` markers that loop, with a strings track to fade in and out as a layer.
    static let town = Song(
        fileName: "town.mid", title: "Town (Pianola game loop)", format: 1, ticksPerQuarter: 480,
        timeSignature: TimeSignature(4, 4), tempos: [(1, 112)],
        parts: [
            .init("Melody", channel: 0, program: 73, velocity: 96, """
                r:2 G4:4 G4 | E5:4. D5:8 C5:4 G4 | A4:4 C5 F5:2 | E5:4 D5 C5 A4 | G4:4 B4 D5:2
                """),
            .init("Bass", channel: 1, program: 32, velocity: 92, """
                C3:1 | C3:2 G2 | F2 A2 | C3 A2 | G2 G2
                """),
            .init("Strings", channel: 2, program: 48, velocity: 72, """
                [E3 G3 C4]:1 | [E3 G3 C4] | [F3 A3 C4] | [E3 A3 C4] | [D3 G3 B3]
                """),
        ],
        markers: [(2, "loopStart"), (2, "verse"), (6, "loopEnd")])

    /// A game's battle theme: four driving bars in A minor that loop whole, with strings and drums.
    static let battle = Song(
        fileName: "battle.mid", title: "Battle (Pianola game loop)", format: 1, ticksPerQuarter: 480,
        timeSignature: TimeSignature(4, 4), tempos: [(1, 150)],
        parts: [
            .init("Melody", channel: 0, program: 81, velocity: 92, """
                A4:8 C5 E5 A5 G5 E5 C5 E5 | F5 E5 D5 C5 B4 D5 G5:4 | A4:8 C5 E5 A5 G5 E5 C5 E5 | F5 E5 D5 B4 A4:2
                """),
            .init("Bass", channel: 1, program: 33, velocity: 100, """
                A2:4 A2 A2 A2 | F2 F2 G2 G2 | A2 A2 A2 A2 | F2 E2 A2:2
                """),
            .init("Strings", channel: 2, program: 48, velocity: 70, """
                [A3 C4 E4]:1 | [F3 A3 D4]:2 [G3 B3 D4] | [A3 C4 E4]:1 | [F3 A3 C4]:2 [E3 A3 C4]
                """),
            .init("Drums", channel: 9, velocity: 90,
                  String(repeating: "[kick hat]:8 hat [snare hat] hat [kick hat] kick [snare hat] hat | ", count: 3)
                    + "[kick hat]:8 hat [snare hat] hat [kick hat] snare snare snare"),
        ],
        markers: [(1, "loopStart"), (5, "loopEnd")])

    /// "Twinkle, Twinkle, Little Star" (French folk tune): melody and bass on two channels of
    /// one format 0 track.
    static let twinkle = Song(
        fileName: "twinkle.mid", title: "Twinkle, Twinkle, Little Star (traditional)", format: 0, ticksPerQuarter: 96,
        timeSignature: TimeSignature(4, 4), tempos: [(1, 100)],
        parts: [
            .init("Piano", channel: 0, program: 0, velocity: 100, """
                C4:4 C4 G4 G4 | A4 A4 G4:2 | F4:4 F4 E4 E4 | D4 D4 C4:2 |
                G4:4 G4 F4 F4 | E4 E4 D4:2 | G4:4 G4 F4 F4 | E4 E4 D4:2 |
                C4:4 C4 G4 G4 | A4 A4 G4:2 | F4:4 F4 E4 E4 | D4 D4 C4:2
                """),
            .init("Bass", channel: 1, program: 32, velocity: 90, """
                C3:2 E3 | F3 E3 | D3 C3 | G2 C3 | E3 D3 | C3 G2 | E3 D3 | C3 G2 |
                C3 E3 | F3 E3 | D3 C3 | G2 C3
                """),
        ])
}
