import MIDI

/// A named stretch of a song, from one of its markers to the next: what a game's music jumps
/// between (horizontal re-sequencing inside one MIDI file). Any thread.
public struct SongSection: Hashable, Sendable {
    /// The marker's text. Any thread.
    public var name: String
    /// Its first tick: the marker's. Any thread.
    public var startTick: Int
    /// The tick after it: the next section's start, or the song's end. Any thread.
    public var endTick: Int

    /// A section. Any thread.
    public init(name: String, startTick: Int, endTick: Int) {
        self.name = name
        self.startTick = startTick
        self.endTick = endTick
    }

    /// The sections of `sequence`, in the order they sound: one per marker (the loop markers
    /// `loopStart` and `loopEnd` aside), each running to the next or to the song's end. Any thread.
    public static func sections(of sequence: MusicSequence) -> [SongSection] {
        let markers = ([sequence.tempoTrack] + sequence.tracks).flatMap { track in
            track.events.compactMap { event -> (tick: Int, name: String)? in
                guard case .meta(.text(.marker, let bytes)) = event.message, !GameLoop.marks(event.message, in: .markers) else { return nil }
                return (event.tick, String(latin1: bytes))
            }
        }.sorted { $0.tick < $1.tick }
        return markers.enumerated().map { index, marker in
            SongSection(name: marker.name, startTick: marker.tick,
                        endTick: index + 1 < markers.count ? markers[index + 1].tick : sequence.length)
        }
    }
}
