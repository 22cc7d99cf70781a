/// Maps ticks to time and back, exactly. Time is kept as an integer count of "units" per tempo
/// segment from absolute positions: with metrical division one tick at tempo T µs/quarter
/// lasts T units and a second is `ticksPerQuarter × 1,000,000` units, so every conversion is
/// integer arithmetic on absolute values — the same answer however a tick is reached, with
/// no drift over any number of tempo changes. With SMPTE division tempo does not affect time.
/// Any thread.
public struct TempoMap: Hashable, Sendable {
    /// A stretch of constant tempo. Any thread.
    public struct Segment: Hashable, Sendable {
        /// First tick of the segment. Any thread.
        public let tick: Int
        /// Tempo in microseconds per quarter note. Any thread.
        public let microsecondsPerQuarter: Int
        /// Units elapsed before the segment starts.
        let startUnits: Int
        /// Units per tick inside the segment.
        let unitsPerTick: Int

        /// Beats per minute. Any thread.
        public var beatsPerMinute: Double { 60_000_000 / Double(microsecondsPerQuarter) }
    }

    /// MIDI's tempo when a file sets none: 120 beats per minute. Any thread.
    public static let defaultMicrosecondsPerQuarter = 500_000

    /// The file's division. Any thread.
    public let division: Division
    /// The tempo segments, ticks ascending; the first starts at tick 0. Any thread.
    public let segments: [Segment]
    /// Units in one second.
    let unitsPerSecond: Int

    /// Builds the map from tempo changes (in any order; at equal ticks the later one wins).
    /// A tempo of 0 is read as 1 µs per quarter so that time always advances. Any thread.
    public init(division: Division, tempoChanges: [(tick: Int, microsecondsPerQuarter: Int)]) {
        self.division = division
        switch division {
        case .ticksPerQuarter(let tpq):
            unitsPerSecond = tpq * 1_000_000
            let changes = tempoChanges.enumerated()
                .sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
            var segments = [Segment(tick: 0, microsecondsPerQuarter: Self.defaultMicrosecondsPerQuarter,
                                    startUnits: 0, unitsPerTick: Self.defaultMicrosecondsPerQuarter)]
            for change in changes {
                let tempo = max(1, change.microsecondsPerQuarter)
                let last = segments[segments.count - 1]
                let tick = max(0, change.tick)
                let start = last.startUnits.addingSaturating((tick - last.tick).multipliedSaturating(by: last.unitsPerTick))
                let segment = Segment(tick: tick, microsecondsPerQuarter: tempo, startUnits: start, unitsPerTick: tempo)
                if last.tick == tick { segments[segments.count - 1] = segment } else { segments.append(segment) }
            }
            self.segments = segments
        case .smpte:
            let rate = division.smpteTicksPerSecond!
            unitsPerSecond = rate.numerator
            segments = [Segment(tick: 0, microsecondsPerQuarter: Self.defaultMicrosecondsPerQuarter,
                                startUnits: 0, unitsPerTick: rate.denominator)]
        }
    }

    /// The map from every tempo event in the given tracks (formats 0 and 1 share one map made
    /// from all tracks; give one track for a format 2 sequence). Any thread.
    public init(division: Division, tracks: [MIDIFile.Track]) {
        var changes: [(tick: Int, microsecondsPerQuarter: Int)] = []
        for track in tracks {
            for event in track.events {
                if case .meta(.tempo(let t)) = event.message { changes.append((event.tick, Int(t))) }
            }
        }
        self.init(division: division, tempoChanges: changes)
    }

    /// Ticks per quarter note, `nil` for SMPTE division. Any thread.
    public var ticksPerQuarter: Int? {
        if case .ticksPerQuarter(let t) = division { return t }
        return nil
    }

    /// The segment that contains `tick`. Any thread.
    public func segment(atTick tick: Int) -> Segment {
        var low = 0, high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].tick <= tick { low = mid } else { high = mid - 1 }
        }
        return segments[low]
    }

    /// Exact time of `tick` in units.
    func units(atTick tick: Int) -> Int {
        let s = segment(atTick: tick)
        return s.startUnits.addingSaturating(tick.subtractingSaturating(s.tick).multipliedSaturating(by: s.unitsPerTick))
    }

    /// The last tick that starts at or before `units`.
    func tick(atUnits units: Int) -> Int {
        var low = 0, high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].startUnits <= units { low = mid } else { high = mid - 1 }
        }
        let s = segments[low]
        return s.tick.addingSaturating(units.subtractingSaturating(s.startUnits) / s.unitsPerTick)
    }

    /// Seconds from the start to `tick`. Any thread.
    public func seconds(atTick tick: Int) -> Double {
        let u = units(atTick: tick)
        return Double(u / unitsPerSecond) + Double(u % unitsPerSecond) / Double(unitsPerSecond)
    }

    /// The tick sounding at `seconds` (the last tick at or before it); the last tick there is
    /// for a time beyond it. Any thread.
    public func tick(atSeconds seconds: Double) -> Int {
        let units = (max(0, seconds) * Double(unitsPerSecond)).rounded(.down)
        return tick(atUnits: units < 0x1p63 ? Int(units) : .max)
    }

    /// The sample frame of `tick` at `sampleRate`, rounded to the nearest frame. Any thread.
    public func sampleFrame(atTick tick: Int, sampleRate: Int) -> Int64 {
        Int64(Self.mulDivRounded(units(atTick: tick), sampleRate, unitsPerSecond))
    }

    /// The last tick whose frame (as `sampleFrame(atTick:sampleRate:)` rounds it) is at or
    /// before `frame`; 0 for frames before the start. Any thread.
    public func tick(atSampleFrame frame: Int64, sampleRate: Int) -> Int {
        guard frame >= 0 else { return 0 }
        guard frame < 1 << 61 else { return tick(atUnits: .max) }
        // round(U·R/S) ≤ f  ⟺  U ≤ ⌊((2f+1)·S − 1) / 2R⌋
        let product = (2 * Int(frame) + 1).multipliedFullWidth(by: unitsPerSecond)
        let minusOne = product.low == 0 ? (product.high - 1, UInt.max) : (product.high, product.low - 1)
        // The quotient fits in an Int only while the high word is below R.
        guard minusOne.0 < sampleRate else { return tick(atUnits: .max) }
        let (maxUnits, _) = (2 * sampleRate).dividingFullWidth(minusOne)
        return tick(atUnits: maxUnits)
    }

    /// The sample frame of pulse `pulse` of a grid of `pulsesPerQuarter` pulses a quarter
    /// note (MIDI clock's 24) counted from the start, exact between ticks, rounded to the
    /// nearest frame. For SMPTE division, quarters at 120 bpm. Any thread.
    public func sampleFrame(atPulse pulse: Int, pulsesPerQuarter: Int, sampleRate: Int) -> Int64 {
        guard let tpq = ticksPerQuarter else { return Int64(Self.mulDivRounded(pulse, sampleRate, 2 * pulsesPerQuarter)) }
        let (tick, remainder) = pulse.multipliedSaturating(by: tpq).quotientAndRemainder(dividingBy: pulsesPerQuarter)
        let units = units(atTick: tick).multipliedSaturating(by: pulsesPerQuarter)
            .addingSaturating(remainder * segment(atTick: tick).unitsPerTick)
        return Int64(Self.mulDivRounded(units, sampleRate, unitsPerSecond * pulsesPerQuarter))
    }

    /// The first pulse of a grid of `pulsesPerQuarter` a quarter whose frame is at or after
    /// `frame`. Any thread.
    public func firstPulse(atOrAfterFrame frame: Int64, pulsesPerQuarter: Int, sampleRate: Int) -> Int {
        let quarters = ticksPerQuarter.map { Double(tick(atSampleFrame: frame, sampleRate: sampleRate)) / Double($0) }
            ?? Double(frame) * 2 / Double(sampleRate)
        var pulse = max(0, Int(min(quarters * Double(pulsesPerQuarter), 0x1p52)))
        while pulse > 0 && sampleFrame(atPulse: pulse - 1, pulsesPerQuarter: pulsesPerQuarter, sampleRate: sampleRate) >= frame { pulse -= 1 }
        while sampleFrame(atPulse: pulse, pulsesPerQuarter: pulsesPerQuarter, sampleRate: sampleRate) < frame { pulse += 1 }
        return pulse
    }

    /// Position in quarter notes (beats of the MIDI tempo). For SMPTE division, in quarters at
    /// 120 bpm. Any thread.
    public func beats(atTick tick: Int) -> Double {
        if let tpq = ticksPerQuarter { return Double(tick) / Double(tpq) }
        return seconds(atTick: tick) * 2
    }

    /// Position in quarter notes at sample frame `frame`, between ticks too (the inverse of
    /// `sampleFrame(atTick:sampleRate:)` through the beats). Any thread.
    public func beats(atSampleFrame frame: Int64, sampleRate: Int) -> Double {
        let tick = tick(atSampleFrame: frame, sampleRate: sampleRate)
        let here = sampleFrame(atTick: tick, sampleRate: sampleRate), next = sampleFrame(atTick: tick + 1, sampleRate: sampleRate)
        let fraction = next > here ? Double(frame - here) / Double(next - here) : 0
        return beats(atTick: tick) + fraction * (beats(atTick: tick + 1) - beats(atTick: tick))
    }

    /// The tick at a position in quarter notes (rounded down). Any thread.
    public func tick(atBeats beats: Double) -> Int {
        if let tpq = ticksPerQuarter {
            let ticks = (max(0, beats) * Double(tpq)).rounded(.down)
            return ticks < 0x1p63 ? Int(ticks) : .max
        }
        return tick(atSeconds: beats / 2)
    }

    /// `a × b / c` rounded to nearest (halves up), through 128-bit intermediates; `Int.max`
    /// where the result is larger.
    static func mulDivRounded(_ a: Int, _ b: Int, _ c: Int) -> Int {
        precondition(a >= 0 && b >= 0 && c > 0)
        let product = a.multipliedFullWidth(by: b)
        let divisor = UInt(c)
        guard UInt(product.high) < divisor else { return .max }
        let (q, r) = divisor.dividingFullWidth((UInt(product.high), product.low))
        guard q < UInt(Int.max) else { return .max }
        return Int(r >= divisor - r ? q + 1 : q)
    }
}
