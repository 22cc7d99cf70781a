import MIDI

/// Where a game song loops, read from the conventions game music marks its loops with.
/// Any thread.
public struct SongLoop: Hashable, Sendable {
    /// A way songs mark their loop. Any thread.
    public enum Convention: String, Hashable, Sendable, CaseIterable {
        /// Marker meta events named `loopStart` and `loopEnd` (any case); no `loopEnd` loops
        /// at the song's end.
        case markers
        /// EMIDI (Build engine games): controller 116 starts the loop (its value is the
        /// count, 0 forever) and controller 117 ends it.
        case emidi
        /// RPG Maker: controller 111 starts the loop, which runs to the song's end.
        case rpgMaker
        /// Descent's HMP songs: controller 110 starts the loop and 111 ends it. Controller
        /// 111 means the opposite of RPG Maker's, so only one of the two is asked for.
        case descent
    }

    /// First tick of the loop. Any thread.
    public var startTick: Int
    /// The tick where play goes back to `startTick`. Any thread.
    public var endTick: Int
    /// Times the loop plays in all; 0 forever. Any thread.
    public var count: Int
    /// The convention it came from. Any thread.
    public var convention: Convention

    /// A loop of `startTick ..< endTick`. Any thread.
    public init(startTick: Int, endTick: Int, count: Int = 0, convention: Convention) {
        self.startTick = startTick
        self.endTick = endTick
        self.count = count
        self.convention = convention
    }

    /// The conventions tried when none are named: markers, then EMIDI, then RPG Maker's
    /// controller 111 (Descent's reading of 111 has to be asked for). Any thread.
    public static let defaultConventions: [Convention] = [.markers, .emidi, .rpgMaker]

    /// The loop of the first convention in `conventions` that `sequence` uses, `nil` when it
    /// marks none (or only a loop that would be empty). Any thread.
    public static func find(in sequence: MusicSequence, conventions: [Convention] = defaultConventions) -> SongLoop? {
        let end = sequence.length
        for convention in conventions {
            var start: (tick: Int, count: Int)?
            var stop: Int?
            for track in [sequence.tempoTrack] + sequence.tracks {
                for event in track.events {
                    switch (convention, event.message) {
                    case (.markers, .meta(.text(.marker, let bytes))):
                        let name = String(decoding: bytes.filter { $0 != 0x20 }, as: UTF8.self).lowercased()
                        if name == "loopstart" { start = earliest(start, (event.tick, 0)) }
                        if name == "loopend" { stop = stop.map { min($0, event.tick) } ?? event.tick }
                    case (.emidi, .controlChange(_, 116, let value)):
                        start = earliest(start, (event.tick, Int(value)))
                    case (.emidi, .controlChange(_, 117, _)), (.descent, .controlChange(_, 111, _)):
                        stop = stop.map { min($0, event.tick) } ?? event.tick
                    case (.rpgMaker, .controlChange(_, 111, _)), (.descent, .controlChange(_, 110, _)):
                        start = earliest(start, (event.tick, 0))
                    default:
                        break
                    }
                }
            }
            guard let start else { continue }
            let endTick = min(stop ?? end, end)
            guard endTick > start.tick else { continue }
            return SongLoop(startTick: start.tick, endTick: endTick, count: start.count, convention: convention)
        }
        return nil
    }

    private static func earliest(_ a: (tick: Int, count: Int)?, _ b: (tick: Int, count: Int)) -> (tick: Int, count: Int) {
        guard let a else { return b }
        return b.tick < a.tick ? b : a
    }
}
