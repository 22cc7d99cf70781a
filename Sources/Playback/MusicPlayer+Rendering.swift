import Engine
import MIDI
import Sequencing

// The render thread's side: scheduling each cycle's events, sections, and following a
// rate, transposition or transport that changes cycle by cycle.
extension MusicPlayer {
    // MARK: Render thread

    /// Output time of a score frame under the current anchor and rate.
    @inline(__always) func outputTime(of frame: ScoreFrame) -> SampleTime { mapping.time(of: frame) }

    /// The score frame at output time `time` under the current anchor and rate.
    @inline(__always) func scoreFrame(at time: SampleTime) -> ScoreFrame { mapping.frame(at: time) }

    /// Schedules the events due before the end of this cycle plus the lookahead. Render thread only.
    public func willRender(from time: SampleTime, frames: Int) {
        cycleEnd = time + SampleTime(frames)
        while let command = commands.pop() { apply(command, at: time) }
        defer { publishTimeline() }
        guard playing else { return }
        let reach = time + SampleTime(frames) + lookahead
        let limit = min(reach, stopTime ?? .max)
        while true {
            scheduleEvents(before: min(limit, pendingJump?.time ?? .max), from: time)
            guard playing, let jump = pendingJump, jump.time < limit else { break }
            performJump(jump)
        }
        scheduledUntil = max(scheduledUntil, limit)
        if playing, let stop = stopTime, stop < reach {
            willChangeMapping(at: max(stop, time))
            interrupt(at: max(stop, time))
            sync.stop(at: max(stop, time))
            resetToStart()
        }
        // Where the song is at the end of this cycle (not the next event's tick, which can be
        // seconds ahead across a rest).
        let tick = score.tick(at: renderedFrame ?? scoreFrame(at: cycleEnd))
        positionTick.store(min(score.endTick, tick), ordering: .relaxed)
    }

    /// Schedules, in time order, the beats, loop wraps, song end and events due before
    /// `horizon`, none before `time`. Render thread only.
    func scheduleEvents(before horizon: SampleTime, from time: SampleTime) {
        let events = score.events
        while true {
            let nextFrame = cursor < events.count ? events.frame(at: cursor) : .never
            let loopEnd = loopStart == nil ? .never : loopEndFrame
            // A MIDI clock pulse or timecode quarter frame; one on a section's start, the loop's
            // end or the song's end belongs to what plays from there.
            let syncFrame = sync.nextFrame
            if syncFrame <= nextFrame && syncFrame < nextBoundary?.frame ?? .never && syncFrame < endFrame && syncFrame < loopEnd {
                let due = outputTime(of: syncFrame)
                guard due < horizon else { break }
                sync.sendNext(at: max(due, time))
                continue
            }
            // A section's end, where the chooser may send play elsewhere (before the beat and
            // the events on its frame, which belong to the section played next).
            if let boundary = nextBoundary, boundary.frame <= nextFrame && boundary.frame < endFrame && boundary.frame < loopEnd {
                let due = outputTime(of: boundary.frame)
                guard due < horizon else { break }
                if let chosen = chosenSection(after: boundary.index - 1, at: max(due, time)), chosen != boundary.index {
                    sendControllers(before: max(due, time), from: time)
                    enterSection(chosen, at: max(due, time))
                } else {
                    nextBoundary = sectionStart(boundary.index + 1)
                }
                continue
            }
            if reportingBeats, let beat = nextBeat, beat.frame <= nextFrame && beat.frame < loopEnd && beat.frame < endFrame {
                let due = outputTime(of: beat.frame)
                guard due < horizon else { break }
                notifications.push(Notification(kind: 3, index: beat.tick, time: max(due, time), rate: Int32(rate / 10_000)))
                advanceBeat(after: beat.tick)
                continue
            }
            if let start = loopStart, loopEndFrame <= nextFrame {
                let wrap = outputTime(of: loopEndFrame)
                guard wrap < horizon else { break }
                sendControllers(before: wrap, from: time)
                notifications.push(Notification(kind: 1, index: 0, time: wrap))
                let resumed = section(atTick: start.tick)
                if let chosen = chosenSection(after: section(atTick: loopEndTick - 1), at: wrap), chosen != resumed {
                    enterSection(chosen, at: wrap)
                } else {
                    move(toFrame: start.frame, index: start.index, at: wrap)
                }
                if loopWrapsLeft == 1 { loopStart = nil } else if loopWrapsLeft > 1 { loopWrapsLeft -= 1 }
                continue
            }
            // The end: past the last event, or past `endFrame` (events exactly there still
            // play, but a note starting there would only click).
            if cursor >= events.count || nextFrame > endFrame || (nextFrame == endFrame && events[cursor].message.isSoundingNoteOn) {
                let end = outputTime(of: endFrame)
                if end < horizon {
                    willChangeMapping(at: max(end, time))
                    sendControllers(before: max(end, time), from: time)
                    releaseAll(at: max(end, time))
                    sync.stop(at: max(end, time))
                    notifications.push(Notification(kind: 2, index: 0, time: max(end, time)))
                    playing = false
                    stopTime = nil
                    finishedAt.store(max(end, time), ordering: .relaxed)
                    finishedFlag.store(true, ordering: .releasing)
                }
                break
            }
            let due = outputTime(of: nextFrame)
            guard due < horizon else { break }
            sendControllers(before: max(due, time) + 1, from: time)   // a change due with the event goes first
            emit(events[cursor], index: cursor, at: max(due, time))
            cursor += 1
        }
        if playing { sendControllers(before: horizon, from: time) }
    }

    /// The section the chooser picks to follow section `ending`, if it picks a real one.
    @inline(__always) func chosenSection(after ending: Int, at time: SampleTime) -> Int? {
        guard let sectionChooser, ending >= 0, let chosen = sectionChooser.section(after: ending, at: time), chosen >= 0, chosen < sectionTicks.count else { return nil }
        return chosen
    }

    /// The chooser's section `tick` falls in, -1 before the first.
    func section(atTick tick: Int) -> Int {
        var index = -1
        for i in 0..<sectionTicks.count where sectionTicks[i] <= tick { index = i }
        return index
    }

    /// Play goes on from section `index`'s start at `time`, as a jump there (reported as one).
    func enterSection(_ index: Int, at time: SampleTime) {
        move(toFrame: sectionFrames[index], index: score.firstIndex(atOrAfterTick: sectionTicks[index]), at: time)
        notifications.push(Notification(kind: 4, index: sectionTicks[index], time: time))
    }

    /// The first section start after the anchor: where the chooser is asked next.
    func findNextBoundary() {
        var i = 0
        while i < sectionFrames.count && sectionFrames[i] <= anchorFrame { i += 1 }
        nextBoundary = sectionStart(i)
    }

    /// Section `index`'s start, `nil` past the last section.
    @inline(__always) func sectionStart(_ index: Int) -> (index: Int, frame: ScoreFrame)? {
        index < sectionFrames.count ? (index, sectionFrames[index]) : nil
    }

    /// Sends `controllers`' changes due before `limit` to every destination. Render thread only.
    @inline(__always) func sendControllers(before limit: SampleTime, from time: SampleTime) {
        guard let controllers else { return }
        while let change = controllers.takeChange(from: time, before: limit) {
            for d in 0..<destinations.count {
                for channel in 0..<16 where change.channels & (UInt16(1) &<< UInt16(channel)) != 0 {
                    destinations[d].schedule(ScheduledMIDI(time: change.time, status: 0xB0 | UInt8(channel), data1: change.controller, data2: change.value))
                }
            }
        }
    }

    /// Plays at `scale` (0.01...10) times the rate `setRate` sets, from the first frame not yet
    /// scheduled: what is scheduled stands, sounding notes go on (a game parameter moving
    /// the tempo, or a followed clock, cycle by cycle). Render thread only (before `willRender`).
    public func modulateRate(scale: Double, at time: SampleTime) {
        let scale = Int((min(10, max(0.01, scale)) * 1_000_000).rounded())
        guard scale != rateScale else { return }
        let pivot = max(time, scheduledUntil)
        if playing {
            willChangeMapping(at: pivot)
            anchorFrame = scoreFrame(at: pivot)   // at the rate played until now
            anchorTime = pivot
        }
        rateScale = scale
    }

    /// Plays on from `tick` (its state chased) at `time`, as a seek and a start would: for a
    /// scheduler that follows another clock. Render thread only (before `willRender`).
    public func playFollowing(fromTick tick: Int, at time: SampleTime) {
        apply(.seek(tick: max(0, tick)), at: time)
        if !playing { apply(.start(at: time), at: time) }
    }

    /// Plays on from score frame `frame` (between ticks too; its state chased) at `time`: for
    /// a scheduler that follows a transport counted in frames. Render thread only (before `willRender`).
    public func playFollowing(fromFrame frame: ScoreFrame, at time: SampleTime) {
        apply(.seekFrame(frame), at: time)
        if !playing { apply(.start(at: time), at: time) }
    }

    /// Pauses at `time`, as `pause` does: for a scheduler that follows another clock. Render
    /// thread only (before `willRender`).
    public func pauseFollowing(at time: SampleTime) { apply(.pause, at: time) }

    /// The score frame playing at output time `time` (after the cycles scheduled so far),
    /// `nil` when not playing. Render thread only.
    public func playingFrame(at time: SampleTime) -> ScoreFrame? { playing ? scoreFrame(at: time) : nil }

    /// Transposes by `semitones` more than `setTranspose` does, from the next note on (held
    /// notes keep their key). Render thread only (before `willRender`).
    public func modulateTranspose(semitones: Int) { transposeOffset = semitones }

    /// The rate played, in millionths of the written tempo: setRate's scaled by modulateRate's
    /// (0.01 to 10 times).
    var rate: Int64 { min(10_000_000, max(10_000, Int64(baseRate) * Int64(rateScale) / 100)) }

    /// The transposition played: setTranspose's plus modulateTranspose's.
    var transpose: Int { baseTranspose + transposeOffset }
}
