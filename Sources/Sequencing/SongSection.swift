import Faults
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
        let starts = sequence.markers.filter { !SongLoop.isLoopMarker($0.text) }.map { (tick: $0.tick, name: $0.text) }
        return sections(starting: starts, length: sequence.length)
    }

    /// The sections a table names (section → where it starts, bar:beat from 1), for a song
    /// whose markers do not say; each runs to the next or to the song's end. Throws a line
    /// for a position the song's meter does not have or that lies past its end. Any thread.
    public static func sections(of sequence: MusicSequence, table: [String: BarBeatTick]) throws(SectionTableError) -> [SongSection] {
        guard let meter = sequence.meterMap else { throw SectionTableError(reason: "the song counts SMPTE time, which has no bars") }
        var starts: [(tick: Int, name: String)] = []
        for (name, position) in table {
            let at = position.tick == 0 ? "\(position.bar):\(position.beat)" : "\(position)"
            if let problem = meter.problem(with: position) { throw SectionTableError(reason: "section '\(name)' at \(at): \(problem)") }
            let tick = meter.tick(at: position)
            guard tick < sequence.length else { throw SectionTableError(reason: "section '\(name)' at \(at) starts after the song's end") }
            starts.append((tick, name))
        }
        return sections(starting: starts, length: sequence.length)
    }

    /// Sections from their starts, in time order (names in order at one tick).
    private static func sections(starting starts: [(tick: Int, name: String)], length: Int) -> [SongSection] {
        let sorted = starts.sorted { ($0.tick, $0.name) < ($1.tick, $1.name) }
        return sorted.enumerated().map { index, start in
            SongSection(name: start.name, startTick: start.tick, endTick: index + 1 < sorted.count ? sorted[index + 1].tick : length)
        }
    }
}

/// A section table that does not fit its song, in one line. Any thread.
public struct SectionTableError: Fault, Hashable, Sendable {
    /// The song's description does not fit the song: a file's fault. Any thread.
    public var kind: FaultKind { .file }
    /// What is wrong. Any thread.
    public var reason: String
    /// The line. Any thread.
    public var description: String { reason }
}

extension Array where Element == SongSection {
    /// The section `tick` falls in (the last to start at or before it), `nil` before the first. Any thread.
    public func section(atTick tick: Int) -> SongSection? { last { $0.startTick <= tick } }
}
