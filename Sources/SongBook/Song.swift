import MIDI

/// A song the project wrote: public-domain music entered in `Notation`, made into a Standard
/// MIDI File by the project's own writer. Any thread.
public struct Song: Sendable {
    /// One instrument's line. Any thread.
    public struct Part: Sendable {
        /// Track name. Any thread.
        public var name: String
        /// MIDI channel, 0-based (9 is General MIDI drums). Any thread.
        public var channel: MIDIChannel
        /// General MIDI program, 0-based (ignored on the drum channel). Any thread.
        public var program: UInt8
        /// Note-on velocity. Any thread.
        public var velocity: UInt8
        /// The music, in `Notation`. Any thread.
        public var music: String

        /// Makes a part. Any thread.
        public init(_ name: String, channel: MIDIChannel, program: UInt8 = 0, velocity: UInt8 = 90, _ music: String) {
            self.name = name
            self.channel = channel
            self.program = program
            self.velocity = velocity
            self.music = music
        }
    }

    /// File name under songs/, e.g. `ode-to-joy.mid`. Any thread.
    public var fileName: String
    /// Title, written as the first track's name. Any thread.
    public var title: String
    /// Format 0 (all parts in one track) or 1 (a tempo track, then a track a part). Any thread.
    public var format: Int
    /// Ticks per quarter note. Any thread.
    public var ticksPerQuarter: Int
    /// Time signature for the whole song. Any thread.
    public var timeSignature: TimeSignature
    /// Tempo changes as (bar from 1, beats per minute); the first is at bar 1. Any thread.
    public var tempos: [(bar: Int, bpm: Int)]
    /// The parts. Any thread.
    public var parts: [Part]
    /// Marker meta events as (bar from 1, text), in the first track: a game's loop marks
    /// (`loopStart`, `loopEnd`) and cue names. Any thread.
    public var markers: [(bar: Int, text: String)] = []

    /// The song as a MIDI file. Any thread.
    public func midiFile() -> MIDIFile {
        let barTicks = Int(timeSignature.numerator) * ticksPerQuarter * 4 / (timeSignature.denominator ?? 4)
        var conductor: [MIDIEvent] = [
            MIDIEvent(tick: 0, .meta(.text(.trackName, string: title))),
            MIDIEvent(tick: 0, .meta(.timeSignature(timeSignature))),
        ]
        conductor += tempos.map {
            MIDIEvent(tick: ($0.bar - 1) * barTicks, .meta(.tempo(microsecondsPerQuarter: UInt32(60_000_000 / $0.bpm))))
        }
        conductor += markers.map { MIDIEvent(tick: ($0.bar - 1) * barTicks, .meta(.text(.marker, string: $0.text))) }
        let partTracks = parts.map { part -> [MIDIEvent] in
            var events = [MIDIEvent(tick: 0, .meta(.text(.trackName, string: part.name)))]
            if part.channel != 9 { events.append(MIDIEvent(tick: 0, .programChange(channel: part.channel, program: part.program))) }
            let notation = Notation(part.music, ticksPerQuarter: ticksPerQuarter, drums: part.channel == 9)
            for step in notation.steps {
                // Release a little before the next note so repeated keys articulate.
                let off = step.tick + max(1, step.length * 15 / 16)
                for key in step.keys {
                    events.append(MIDIEvent(tick: step.tick, .noteOn(channel: part.channel, note: key, velocity: part.velocity)))
                    events.append(MIDIEvent(tick: off, .noteOff(channel: part.channel, note: key, velocity: 64)))
                }
            }
            return events.timeOrdered()
        }
        let end = parts.map { Notation($0.music, ticksPerQuarter: ticksPerQuarter, drums: $0.channel == 9).length }.max() ?? 0
        func finished(_ events: [MIDIEvent]) -> MIDIFile.Track {
            MIDIFile.Track(events: events + [MIDIEvent(tick: max(end, events.last?.tick ?? 0), .meta(.endOfTrack))])
        }
        let division = Division.ticksPerQuarter(ticksPerQuarter)
        if format == 0 {
            let merged = (conductor + partTracks.flatMap { $0.filter { $0.message.channel != nil } }).timeOrdered()
            return MIDIFile(format: 0, division: division, tracks: [finished(merged)])
        }
        return MIDIFile(format: 1, division: division, tracks: [finished(conductor)] + partTracks.map(finished))
    }
}
