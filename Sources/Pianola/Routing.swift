import Engine

/// Where a song's events go, by track and channel: the synthesizer or one of several
/// external destinations (ALSA ports). Rules are tried in order; the first whose tracks and
/// channels both match wins, and what no rule matches goes to `fallback`. Any thread.
public struct Routing: Hashable, Sendable {
    /// Where a rule sends. Any thread.
    public enum Target: Hashable, Sendable {
        /// Pianola's synthesizer. Any thread.
        case synth
        /// The external destination with this index. Any thread.
        case external(Int)
    }

    /// One rule: tracks (0-based, `nil` for all) and channels (0-based, `nil` for all) to a target. Any thread.
    public struct Rule: Hashable, Sendable {
        /// Tracks it applies to, 0-based; `nil` matches every track. Any thread.
        public var tracks: ClosedRange<Int>?
        /// Channels it applies to, 0-based; `nil` matches every channel. Any thread.
        public var channels: ClosedRange<Int>?
        /// Where matching events go. Any thread.
        public var target: Target

        /// A rule. Any thread.
        public init(tracks: ClosedRange<Int>? = nil, channels: ClosedRange<Int>? = nil, target: Target) {
            self.tracks = tracks
            self.channels = channels
            self.target = target
        }
    }

    /// The rules, first match wins. Any thread.
    public var rules: [Rule]
    /// Where the rest goes. Any thread.
    public var fallback: Target

    /// Everything to `fallback` except what `rules` say. Any thread.
    public init(rules: [Rule] = [], fallback: Target = .synth) {
        self.rules = rules
        self.fallback = fallback
    }

    /// Where channel `channel` of track `track` goes. Any thread.
    public func target(track: Int, channel: Int) -> Target {
        for rule in rules where rule.tracks.map({ $0.contains(track) }) ?? true && rule.channels.map({ $0.contains(channel) }) ?? true {
            return rule.target
        }
        return fallback
    }

    /// Whether anything goes to the synthesizer. Any thread.
    public var usesSynth: Bool { fallback == .synth || rules.contains { $0.target == .synth } }

    /// The player's destinations and each track's index among them, for `trackCount` tracks:
    /// a track whose channels all go to one place uses that destination directly, others a
    /// `ChannelSplitter`. `synth` may be nil only if nothing is routed to it. Control thread.
    public func destinations(trackCount: Int, synth: (any MIDIDestination)?, external: [any MIDIDestination]) -> (destinations: [any MIDIDestination], trackDestinations: [Int]) {
        func resolve(_ target: Target) -> any MIDIDestination {
            switch target {
            case .synth: return synth!
            case .external(let index): return external[index]
            }
        }
        var destinations: [any MIDIDestination] = []
        var tables: [[Target]] = []
        var trackDestinations: [Int] = []
        for track in 0..<max(1, trackCount) {
            let table = (0..<16).map { target(track: track, channel: $0) }
            if let known = tables.firstIndex(of: table) {
                trackDestinations.append(known)
                continue
            }
            let distinct = Array(Set(table)).sorted { "\($0)" < "\($1)" }
            if distinct.count == 1 {
                destinations.append(resolve(distinct[0]))
            } else {
                destinations.append(ChannelSplitter(destinations: distinct.map(resolve), channelDestinations: table.map { distinct.firstIndex(of: $0)! }))
            }
            tables.append(table)
            trackDestinations.append(destinations.count - 1)
        }
        return (destinations, Array(trackDestinations.prefix(trackCount)))
    }
}
