import Engine
import MIDI
import Sequencing

// Where the playing song will be: the questions a control thread asks of what the render
// thread published (the next beat, bar or marker, the tick at a time).
extension MusicPlayer {
    /// The sample time at or after `earliest` when the playing song next reaches a line of
    /// `grid` (a beat or a bar line of its meter), with the line's tick; a loop's wrap and the
    /// song's end count as lines. `nil` when the player is not playing or the song has no
    /// meter (SMPTE time). Reads what the render thread published after its last cycle, so
    /// `earliest` should be past the cycle being rendered. Any thread.
    public func nextTime(on grid: MeterMap.Grid, atOrAfter earliest: SampleTime) -> (time: SampleTime, tick: Int)? {
        guard let meter = score.meterMap, let (t, start) = position(atOrAfter: earliest) else { return nil }
        let output = t.mapping
        var tick = start
        while true {
            let line = meter.nextTick(on: grid, atOrAfter: tick)
            let lineFrame = score.frame(atTick: line)
            if let loop = t.loop, lineFrame >= loop.endFrame { return (max(output.time(of: loop.endFrame), earliest), loop.startTick) }
            if lineFrame >= t.endFrame { return (max(output.time(of: t.endFrame), earliest), score.endTick) }
            if output.time(of: lineFrame) >= earliest { return (output.time(of: lineFrame), line) }
            tick = line + 1
        }
    }

    /// The sample time at or after `earliest` when the playing song next sounds a marker
    /// whose text is `name` (any case), after a loop's wrap if the loop comes first, with the
    /// marker's tick. `nil` when the player is not playing or the song does not reach such a
    /// marker again. Reads what the render thread published, as `nextTime(on:atOrAfter:)`. Any thread.
    public func nextTime(ofMarker name: String, atOrAfter earliest: SampleTime) -> (time: SampleTime, tick: Int)? {
        let wanted = name.lowercased()
        let ticks = score.events.compactMap { event -> Int? in
            guard case .meta(.text(.marker, let bytes)) = event.message, String(latin1: bytes).lowercased() == wanted else { return nil }
            return event.tick
        }
        guard let (t, tick) = position(atOrAfter: earliest) else { return nil }
        let output = t.mapping
        let stop = min(t.loop?.endFrame ?? .never, t.endFrame)
        for marker in ticks where marker >= tick {
            let frame = score.frame(atTick: marker)
            if frame >= stop { break }
            if output.time(of: frame) >= earliest { return (output.time(of: frame), marker) }
        }
        guard let loop = t.loop,
              let marker = ticks.first(where: { $0 >= loop.startTick && score.frame(atTick: $0) < loop.endFrame }) else { return nil }
        return (output.time(of: loop.endFrame + (score.frame(atTick: marker) - score.frame(atTick: loop.startTick))), marker)
    }

    /// The tick the playing song stands at by output time `time` (after a loop's wrap, from
    /// the loop's start), `nil` when not playing. Reads what the render thread published, as
    /// `nextTime(on:atOrAfter:)`. Any thread.
    public func tick(at time: SampleTime) -> Int? {
        guard let (t, tick) = position(atOrAfter: time) else { return nil }
        let frame = score.frame(atTick: tick)
        guard let loop = t.loop, frame >= loop.endFrame else { return tick }
        let loopStart = score.frame(atTick: loop.startTick)
        let span = max(1, loop.endFrame - loopStart)
        return score.tick(at: loopStart + (frame - loop.endFrame) % span)
    }

    /// The published timeline (playing from a start(at:) not taken yet) and the tick the score
    /// stands at by output time `earliest`; `nil` when not playing. Any thread.
    func position(atOrAfter earliest: SampleTime) -> (Timeline, Int)? {
        let pending = pendingStart.load(ordering: .acquiring)   // read first: it is cleared only after the start is published
        var t = timeline.read()
        if !t.mapping.playing {
            // Started for a time the render thread has not reached: from where it rests (a
            // loop set in the same breath is not known yet).
            guard pending != .min else { return nil }
            t.mapping.anchorTime = pending
            t.mapping.playing = true
        }
        return (t, score.tick(at: max(t.mapping.anchorFrame, t.mapping.frame(at: earliest))))
    }
}

extension MusicPlayer {
    /// The texts of the song's markers, each once, in song order. Any thread.
    public var markerNames: [String] {
        var names: [String] = []
        for event in score.events {
            guard case .meta(.text(.marker, let bytes)) = event.message else { continue }
            let text = String(latin1: bytes)
            if !names.contains(where: { $0.lowercased() == text.lowercased() }) { names.append(text) }
        }
        return names
    }
}

extension MusicPlayer {
    /// The end of the last render cycle on the output clock, the score frame playing then
    /// (`nil` when the song was not playing: not started yet, stopped or ended), exact to the
    /// frame across loop wraps, jumps and rate changes, and the rate played (1: as written). Any thread.
    public var renderedPosition: (time: SampleTime, frame: ScoreFrame?, rate: Double) {
        let t = timeline.read()
        return (t.renderedTime, t.renderedFrame, Double(t.mapping.rate) / 1_000_000)
    }
}
