/// A musical position: bar and beat counted from 1 as musicians count (`3:1` is the first beat
/// of the third bar), and ticks into the beat from 0. The beat is the time signature's
/// denominator note (an eighth in 7/8). Any thread.
public struct BarBeatTick: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Bar number, from 1. Any thread.
    public var bar: Int
    /// Beat in the bar, from 1. Any thread.
    public var beat: Int
    /// Ticks after the beat, from 0. Any thread.
    public var tick: Int

    /// Makes a position. Any thread.
    public init(bar: Int, beat: Int, tick: Int = 0) {
        self.bar = bar
        self.beat = beat
        self.tick = tick
    }

    /// Orders positions in time. Any thread.
    public static func < (a: BarBeatTick, b: BarBeatTick) -> Bool {
        (a.bar, a.beat, a.tick) < (b.bar, b.beat, b.tick)
    }

    /// `bar:beat:tick`, e.g. `3:1:0`. Any thread.
    public var description: String { "\(bar):\(beat):\(tick)" }

    /// Parses `bar:beat` or `bar:beat:tick` (bar and beat from 1); `nil` if it is not that. Any thread.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              let bar = Int(parts[0]), let beat = Int(parts[1]), bar >= 1, beat >= 1 else { return nil }
        let tick = parts.count == 3 ? Int(parts[2]) : 0
        guard let tick, tick >= 0 else { return nil }
        self.init(bar: bar, beat: beat, tick: tick)
    }
}

/// Maps ticks to bar:beat:tick and back from a song's time signatures (4/4 until the first).
/// A time signature that falls inside a bar starts a new bar there, as notation programs do.
/// Metrical division only. Any thread.
public struct MeterMap: Hashable, Sendable {
    /// A stretch of one meter. Any thread.
    public struct Segment: Hashable, Sendable {
        /// First tick; a bar starts here. Any thread.
        public let tick: Int
        /// Number of the bar that starts at `tick`, from 1. Any thread.
        public let bar: Int
        /// Beats per bar. Any thread.
        public let beatsPerBar: Int
        /// The beat's note value: 4 for quarter, 8 for eighth. Any thread.
        public let beatUnit: Int
    }

    /// Ticks per quarter note. Any thread.
    public let ticksPerQuarter: Int
    /// Meter segments, ticks ascending; the first starts at tick 0. Any thread.
    public let segments: [Segment]

    /// Builds the map. Signatures with a zero numerator or a denominator beyond 1/64 are not
    /// meters and are passed over; at equal ticks the later one wins. Any thread.
    public init(ticksPerQuarter: Int, timeSignatures: [(tick: Int, signature: TimeSignature)]) {
        precondition(ticksPerQuarter > 0)
        self.ticksPerQuarter = ticksPerQuarter
        let usable = timeSignatures.enumerated()
            .filter { $0.element.signature.numerator > 0 && $0.element.signature.denominatorPower <= 6 }
            .sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
        var segments = [Segment(tick: 0, bar: 1, beatsPerBar: 4, beatUnit: 4)]
        for (tick, signature) in usable {
            let last = segments[segments.count - 1]
            let tick = max(0, tick)
            // Bars since `last` began, a partial bar counting as one.
            let scaled = (tick - last.tick).multipliedSaturating(by: last.beatUnit)
            let barLength = last.beatsPerBar * 4 * ticksPerQuarter
            let bars = scaled.addingSaturating(barLength - 1) / barLength
            let next = Segment(tick: tick, bar: last.bar.addingSaturating(bars), beatsPerBar: Int(signature.numerator),
                               beatUnit: 1 << Int(signature.denominatorPower))
            if last.tick == tick { segments[segments.count - 1] = Segment(
                tick: tick, bar: last.bar, beatsPerBar: next.beatsPerBar, beatUnit: next.beatUnit)
            } else { segments.append(next) }
        }
        self.segments = segments
    }

    /// The map from every time-signature event in the given tracks. Any thread.
    public init(ticksPerQuarter: Int, tracks: [MIDIFile.Track]) {
        var signatures: [(tick: Int, signature: TimeSignature)] = []
        for track in tracks {
            for event in track.events {
                if case .meta(.timeSignature(let s)) = event.message { signatures.append((event.tick, s)) }
            }
        }
        self.init(ticksPerQuarter: ticksPerQuarter, timeSignatures: signatures)
    }

    /// The position of `tick`. Any thread.
    public func position(atTick tick: Int) -> BarBeatTick {
        let tick = max(0, tick)
        let s = lastSegment { $0.tick <= tick }
        // Work in ticks × beatUnit so that beats of any note value stay integral.
        let scaled = (tick - s.tick).multipliedSaturating(by: s.beatUnit)
        let beatLength = 4 * ticksPerQuarter
        let beatIndex = scaled / beatLength
        let bar = s.bar.addingSaturating(beatIndex / s.beatsPerBar)
        let beat = beatIndex % s.beatsPerBar + 1
        let beatStartTick = s.tick + (beatIndex * beatLength).addingSaturating(s.beatUnit - 1) / s.beatUnit
        return BarBeatTick(bar: bar, beat: beat, tick: tick - beatStartTick)
    }

    /// The tick of a position; beats beyond the bar's count carry into the following bars.
    /// Any thread.
    public func tick(at position: BarBeatTick) -> Int {
        let s = lastSegment { $0.bar <= position.bar }
        let beatIndex = position.bar.subtractingSaturating(s.bar).multipliedSaturating(by: s.beatsPerBar)
            .addingSaturating(position.beat.subtractingSaturating(1))
        let beatLength = 4 * ticksPerQuarter
        let ticks = beatIndex.multipliedSaturating(by: beatLength).addingSaturating(s.beatUnit - 1) / s.beatUnit
        return max(0, s.tick.addingSaturating(ticks).addingSaturating(position.tick))
    }

    /// Why `position` is no place in this meter — a beat past its bar's count, or a tick past
    /// its beat — with the range that is; `nil` for a place. Any thread.
    public func problem(with position: BarBeatTick) -> String? {
        let s = lastSegment { $0.bar <= position.bar }
        if position.beat > s.beatsPerBar {
            return "bar \(position.bar) has \(s.beatsPerBar) beat\(s.beatsPerBar == 1 ? "" : "s") (\(s.beatsPerBar)/\(s.beatUnit)): give a beat from 1 to \(s.beatsPerBar)"
        }
        let ticksPerBeat = max(1, 4 * ticksPerQuarter / s.beatUnit)
        if position.tick >= ticksPerBeat {
            return "a beat of bar \(position.bar) (1/\(s.beatUnit)) has \(ticksPerBeat) ticks: give a tick from 0 to \(ticksPerBeat - 1)"
        }
        return nil
    }

    /// The last segment that `starts` holds for (the first always does), by plain indexing:
    /// the generic `last(where:)` allocates in unoptimized builds, and the player calls this
    /// on the render thread.
    @inline(__always) private func lastSegment(_ starts: (Segment) -> Bool) -> Segment {
        var index = segments.count - 1
        while index > 0 && !starts(segments[index]) { index -= 1 }
        return segments[index]
    }

    /// A musical grid to line things up on. Any thread.
    public enum Grid: String, Hashable, Sendable, CaseIterable {
        /// Every beat of the meter (the denominator's note value).
        case beat
        /// Every bar line.
        case bar
    }

    /// The first tick at or after `tick` that falls on `grid`. Any thread.
    public func nextTick(on grid: Grid, atOrAfter tick: Int) -> Int {
        let p = position(atTick: tick)
        switch grid {
        case .beat:
            return p.tick == 0 ? max(0, tick) : self.tick(at: BarBeatTick(bar: p.bar, beat: p.beat.addingSaturating(1)))
        case .bar:
            return p.tick == 0 && p.beat == 1 ? max(0, tick) : self.tick(at: BarBeatTick(bar: p.bar.addingSaturating(1), beat: 1))
        }
    }
}
