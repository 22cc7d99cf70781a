import Engine
import MIDI
import Sequencing

// Where the playing song will be: the questions a control thread asks of what the render
// thread published (the next beat, bar or marker, the tick at a time).
extension Player {
    /// The sample time at or after `earliest` when the playing song next reaches a line of
    /// `grid` (a beat or a bar line of its meter), with the line's tick; a loop's wrap and the
    /// song's end count as lines. `nil` when the player is not playing or the song has no
    /// meter (SMPTE time). Reads what the render thread published after its last cycle, so
    /// `earliest` should be past the cycle being rendered. Any thread.
    public func nextTime(on grid: MeterMap.Grid, atOrAfter earliest: SampleTime) -> (time: SampleTime, tick: Int)? {
        guard let meter = score.meterMap, let (t, output, start) = position(atOrAfter: earliest) else { return nil }
        let map = score.tempoMap, rate = score.sampleRate
        var tick = start
        while true {
            let line = meter.nextTick(on: grid, atOrAfter: tick)
            let lineFrame = map.sampleFrame(atTick: line, sampleRate: rate)
            if t.loopEndFrame >= 0 && lineFrame >= t.loopEndFrame {
                return (max(output(t.loopEndFrame), earliest), Int(t.loopStartTick))
            }
            if lineFrame >= t.endFrame { return (max(output(t.endFrame), earliest), score.endTick) }
            if output(lineFrame) >= earliest { return (output(lineFrame), line) }
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
        guard let (t, output, tick) = position(atOrAfter: earliest) else { return nil }
        let map = score.tempoMap, rate = score.sampleRate
        let stop = t.loopEndFrame >= 0 ? min(t.loopEndFrame, t.endFrame) : t.endFrame
        for marker in ticks where marker >= tick {
            let frame = map.sampleFrame(atTick: marker, sampleRate: rate)
            if frame >= stop { break }
            if output(frame) >= earliest { return (output(frame), marker) }
        }
        guard t.loopEndFrame >= 0 else { return nil }
        let loopStartFrame = map.sampleFrame(atTick: Int(t.loopStartTick), sampleRate: rate)
        guard let marker = ticks.first(where: { $0 >= Int(t.loopStartTick) && map.sampleFrame(atTick: $0, sampleRate: rate) < t.loopEndFrame }) else { return nil }
        return (output(t.loopEndFrame + map.sampleFrame(atTick: marker, sampleRate: rate) - loopStartFrame), marker)
    }

    /// The tick the playing song stands at by output time `time` (after a loop's wrap, from
    /// the loop's start), `nil` when not playing. Reads what the render thread published, as
    /// `nextTime(on:atOrAfter:)`. Any thread.
    public func tick(at time: SampleTime) -> Int? {
        guard let (t, _, tick) = position(atOrAfter: time) else { return nil }
        let frame = score.tempoMap.sampleFrame(atTick: tick, sampleRate: score.sampleRate)
        guard t.loopEndFrame >= 0, frame >= t.loopEndFrame else { return tick }
        let loopStart = score.tempoMap.sampleFrame(atTick: Int(t.loopStartTick), sampleRate: score.sampleRate)
        let span = max(1, t.loopEndFrame - loopStart)
        return score.tempoMap.tick(atSampleFrame: loopStart + (frame - t.loopEndFrame) % span, sampleRate: score.sampleRate)
    }

    /// The published timeline, the output time of a score frame under it, and the tick the
    /// score stands at by output time `earliest`; `nil` when not playing. Any thread.
    func position(atOrAfter earliest: SampleTime) -> (Timeline, (Int64) -> SampleTime, Int)? {
        let pending = pendingStart.load(ordering: .acquiring)   // read first: it is cleared only after the start is published
        var t = timeline.read()
        if !t.playing {
            // Started for a time the render thread has not reached: from where it rests (a
            // loop set in the same breath is not known yet).
            guard pending != .min else { return nil }
            t.anchorTime = pending
            t.playing = true
        }
        func output(_ frame: Int64) -> SampleTime { t.anchorTime + (frame - t.anchorFrame) * 1_000_000 / t.rate }
        let frame = max(t.anchorFrame, t.anchorFrame + (earliest - t.anchorTime) * t.rate / 1_000_000)
        return (t, output, score.tempoMap.tick(atSampleFrame: frame, sampleRate: score.sampleRate))
    }
}

extension Player {
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

extension Player {
    /// The end of the last render cycle on the output clock, the score frame playing then
    /// (`nil` when the song was not playing: not started yet, stopped or ended), exact to the
    /// frame across loop wraps, jumps and rate changes, and the rate played (1: as written). Any thread.
    public var renderedPosition: (time: SampleTime, frame: Int64?, rate: Double) {
        let t = timeline.read()
        return (t.renderedTime, t.renderedFrame >= 0 ? t.renderedFrame : nil, Double(t.rate) / 1_000_000)
    }
}
