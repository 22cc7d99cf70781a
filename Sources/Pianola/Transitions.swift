import MIDI
import Sequencing

extension Soundtrack {
    /// Where the music is, as a transition rule names it: any music, a song, or one section
    /// of a song. Any thread.
    public enum Place: Hashable, Sendable {
        /// Any music (or none playing). Any thread.
        case any
        /// A song, in any of its sections. Any thread.
        case song(Song)
        /// One section of a song (its name, any case). Any thread.
        case section(Song, String)

        /// How closely it names a place: 0 any, 1 a song, 2 a section.
        var specificity: Int {
            switch self {
            case .any: 0
            case .song: 1
            case .section: 2
            }
        }

        /// The same place with its section name in lower case, as rules are stored.
        var folded: Place {
            if case .section(let song, let name) = self { return .section(song, name.lowercased()) }
            return self
        }

        /// A rule's key: where the music leaves and where it goes.
        struct Pair: Hashable {
            let from: Place
            let to: Place
        }
    }

    /// How the music moves from one place to another: one cell of a transition matrix (as
    /// Wwise's): when to leave, an optional segment played between, the fades, and where to
    /// enter. Any thread.
    public struct Transition: Hashable, Sendable {
        /// Where the destination starts. Any thread.
        public enum Entry: Hashable, Sendable {
            /// At the start of the section asked for (or of the song). Any thread.
            case sectionStart
            /// At the bar and beat (counted from the start of the section playing) the music
            /// leaves from, counted from the section asked for: a variation taking over where
            /// its sibling was. A position the destination section lacks enters at its start. Any thread.
            case samePosition
            /// At the destination's marker with this text (any case): its entry cue, the first
            /// at or after the section asked for. Any thread.
            case cue(String)
        }

        /// Music played once between leaving and entering: a short song, or one section of
        /// a song, at its written tempo; the destination enters when it ends. Any thread.
        public struct Segment: Hashable, Sendable {
            /// The song played (loaded by the same soundtrack). Any thread.
            public var song: Song
            /// The section of it played, `nil` for the whole song. Any thread.
            public var section: String?

            /// `song`, or its `section`, as a segment. Any thread.
            public init(_ song: Song, section: String? = nil) {
                self.song = song
                self.section = section
            }
        }

        /// What events call the rule. Any thread.
        public var name: String
        /// When the music leaves: now, the next beat or bar, the end of the section, or an exit
        /// cue (a marker). Any thread.
        public var leave: Soundtrack.Moment
        /// Played between, starting when the music leaves. Any thread.
        public var segment: Segment?
        /// The music left fades out over this many seconds from when it leaves. Any thread.
        public var fadeOut: Double
        /// The destination fades in over this many seconds from when it enters. Any thread.
        public var fadeIn: Double
        /// How both fades move. Any thread.
        public var fadeShape: Soundtrack.FadeShape
        /// Where the destination enters. Any thread.
        public var entry: Entry

        /// A rule called `name`: by default on the next bar line, no segment, no fades, into
        /// the section's start. Any thread.
        public init(name: String, leave: Soundtrack.Moment = .nextBar, segment: Segment? = nil,
                    fadeOut: Double = 0, fadeIn: Double = 0, fadeShape: Soundtrack.FadeShape = .linear, entry: Entry = .sectionStart) {
            self.name = name
            self.leave = leave
            self.segment = segment
            self.fadeOut = fadeOut
            self.fadeIn = fadeIn
            self.fadeShape = fadeShape
            self.entry = entry
        }

        /// The rule used where none is set: "default", on the next bar line, straight into the
        /// section's start. Any thread.
        public static let standard = Transition(name: "default")
    }

    /// Sets the rule for moving from `from` to `to` (`.any` on both sides: the default rule,
    /// else `Transition.standard`). `transition(to:section:)` uses the most specific rule that
    /// fits: the side the music leaves counts first, a section before a song before any.
    /// Throws for a fade out of range, or a song or section the soundtrack cannot have. Any thread.
    public func setTransition(_ rule: Transition, from: Place = .any, to: Place = .any) throws(SoundtrackError) {
        _ = try frames(rule.fadeOut, "fade-out")
        _ = try frames(rule.fadeIn, "fade-in")
        for place in [from, to] {
            switch place {
            case .any: break
            case .song(let song): try owned(song)
            case .section(let song, let name):
                try owned(song)
                if song.loading.value != nil { _ = try section(name, of: song) }
            }
        }
        if let segment = rule.segment {
            try owned(segment.song)
            if let name = segment.section, segment.song.loading.value != nil { _ = try section(name, of: segment.song) }
        }
        state.withLock { $0.transitions[Place.Pair(from: from.folded, to: to.folded)] = rule }
    }

    /// Moves the music to `song` (its section `section`, or its start) by the rule set for
    /// the move (`setTransition`): leaving on the rule's moment with its fade-out, playing
    /// its segment, then entering where it says with its fade-in. Within the song playing,
    /// with no segment and no fades, it is a jump: the notes sounding ring out. A
    /// `transitioned` event reports the rule when the music leaves. Returns the rule. Throws
    /// if a song is not loaded, a section or cue is not there, or the moment cannot be. Any thread.
    @discardableResult
    public func transition(to song: Song, section name: String? = nil) throws(SoundtrackError) -> Transition {
        try owned(song)
        let content = try Self.ready(song)
        let target = try name.map { n throws(SoundtrackError) in try section(n, of: song) }
        return try state.withLock { state throws(SoundtrackError) in
            maintain(&state)
            let now = clock.earliestUnrenderedTime
            let from = state.current
            let fromSection = from.flatMap { deck in deck.node.player.tick(at: now).flatMap { deck.song.sections.section(atTick: $0)?.name } }
            let rule = Self.rule(in: state.transitions, from: from?.song, section: fromSection, to: song, section: target?.name)
            let leave = try startTime(for: rule.leave, state: state)
            let entryTick = try entry(rule.entry, into: song, content: content, section: target, leaving: from, at: leave)
            let fadeOut = try frames(rule.fadeOut, "fade-out"), fadeIn = try frames(rule.fadeIn, "fade-in")
            // A segment still to play or playing gives way: the music moves on from it.
            for deck in state.segments where deck.retireAt == nil { cut(deck, at: leave) }
            var enter = leave
            if let segment = rule.segment {
                let segmentContent = try Self.ready(segment.song)
                let span = try segment.section.map { n throws(SoundtrackError) in try section(n, of: segment.song).ticks } ?? 0..<segmentContent.sequence.length
                let once = Song.Content(sequence: segmentContent.sequence, loop: nil, sections: segmentContent.sections, layerTracks: segmentContent.layerTracks, instrumentTracks: segmentContent.instrumentTracks,
                                        soundFont: segmentContent.soundFont, spare: segmentContent.spare)
                state.segments.append(try makeDeck(segment.song, content: once, synthesizers: try takeSynthesizers(of: segmentContent),
                                                   startingAt: leave, fadeIn: 0, span: span, mappings: state.mappings))
                while state.segments.count > Self.maxFading { disconnect(state.segments.removeFirst(), state: &state) }
                let map = segmentContent.sequence.tempoMap, rate = configuration.sampleRate
                enter += map.sampleFrame(atTick: span.upperBound, sampleRate: rate) - map.sampleFrame(atTick: span.lowerBound, sampleRate: rate)
            }
            if let from, from.song == song, rule.segment == nil, fadeOut == 0, fadeIn == 0 {
                from.node.player.jump(toTick: entryTick, at: leave)
            } else {
                let deck = try makeDeck(song, content: content, synthesizers: try takeSynthesizers(of: content), startingAt: enter,
                                        fadeIn: fadeIn, fadeShape: rule.fadeShape, span: entryTick..<content.sequence.length, mappings: state.mappings)
                if let from { retire(from, at: leave, fade: fadeOut, shape: rule.fadeShape, state: &state) }
                promote(deck, section: target?.name, state: &state)
            }
            state.scheduled.append(.transitioned(from: from?.song, to: song, section: target?.name, rule: rule.name, sampleTime: leave))
            return rule
        }
    }

    /// The rule for leaving `from` (in its section `fromSection`) for `to` (its section
    /// `toSection`): the most specific set, the leaving side first; else the default.
    static func rule(in rules: [Place.Pair: Transition], from: Song?, section fromSection: String?, to: Song, section toSection: String?) -> Transition {
        var froms: [Place] = [.any]
        if let from {
            froms.append(.song(from))
            if let fromSection { froms.append(.section(from, fromSection.lowercased())) }
        }
        var tos: [Place] = [.any, .song(to)]
        if let toSection { tos.append(.section(to, toSection.lowercased())) }
        let fitting = froms.flatMap { f in tos.compactMap { t in rules[Place.Pair(from: f, to: t)].map { (f.specificity * 3 + t.specificity, $0) } } }
        return fitting.max { $0.0 < $1.0 }?.1 ?? .standard
    }

    /// The tick `song` enters on by `entry`, into `section` (else its start), the music
    /// leaving `from` at `time`.
    private func entry(_ entry: Transition.Entry, into song: Song, content: Song.Content, section: SongSection?,
                       leaving from: Deck?, at time: SampleTime) throws(SoundtrackError) -> Int {
        let start = section?.startTick ?? 0
        switch entry {
        case .sectionStart:
            return start
        case .cue(let cue):
            let wanted = cue.lowercased()
            guard let tick = content.sequence.markers.filter({ $0.text.lowercased() == wanted && $0.tick >= start }).map(\.tick).min() else {
                throw SoundtrackError(.argument, "\(song.name) has no entry cue '\(cue)' (a marker)\(section.map { " in or after its section '\($0.name)'" } ?? "")")
            }
            return tick
        case .samePosition:
            guard let from, let tick = from.node.player.tick(at: time), let fromMeter = from.node.player.score.meterMap,
                  let toMeter = content.sequence.meterMap,
                  case .ticksPerQuarter(let fromQuarter) = from.song.sequence?.division,
                  case .ticksPerQuarter(let toQuarter) = content.sequence.division else { return start }
            let fromStart = from.song.sections.section(atTick: tick)?.startTick ?? 0
            let at = fromMeter.position(atTick: tick), base = fromMeter.position(atTick: fromStart), entryBase = toMeter.position(atTick: start)
            let position = BarBeatTick(bar: entryBase.bar + at.bar - base.bar, beat: at.beat, tick: at.tick * toQuarter / fromQuarter)
            guard toMeter.problem(with: position) == nil else { return start }
            let entry = toMeter.tick(at: position)
            return entry < (section?.endTick ?? content.sequence.length) ? entry : start
        }
    }

    /// `song`'s section `name` (any case), else a line naming its sections.
    func section(_ name: String, of song: Song) throws(SoundtrackError) -> SongSection {
        let sections = song.sections
        guard let section = sections.first(where: { $0.name.lowercased() == name.lowercased() }) else {
            let names = sections.map(\.name)
            throw SoundtrackError(.argument, "\(song.name) has no section '\(name)' (sections: \(names.isEmpty ? "none; its markers make them" : names.joined(separator: ", ")))")
        }
        return section
    }

    /// Throws unless `song` was loaded by this soundtrack.
    func owned(_ song: Song) throws(SoundtrackError) {
        guard song.owner == serial else { throw SoundtrackError(.argument, "\(song.name) was loaded by another soundtrack") }
    }
}

extension SongSection {
    /// Its ticks. Any thread.
    var ticks: Range<Int> { startTick..<endTick }
}
