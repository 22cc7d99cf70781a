import Engine
import MIDI
import Sequencing

// The transport on the render thread: commands applied on their frame, jumps, seeks, loop
// wraps, the song's end, beats, and the timeline published for the queries.
extension MusicPlayer {
    /// Makes the jump that has come due: the held notes released on its frame, play on from
    /// its tick there with the state chased. Render thread only.
    func performJump(_ jump: (tick: Int, time: SampleTime)) {
        pendingJump = nil
        let tick = min(jump.tick, score.endTick)
        move(toFrame: score.frame(atTick: tick), index: score.firstIndex(atOrAfterTick: tick), at: jump.time)
        finishedFlag.store(false, ordering: .relaxed)
        notifications.push(Notification(kind: 4, index: tick, time: jump.time))
    }

    /// Play goes on at output time `time` from score frame `frame` (event `index` next): the
    /// held notes released there, the state at `index` chased there. A loop's wrap and a
    /// jump. Render thread only.
    func move(toFrame frame: ScoreFrame, index: Int, at time: SampleTime) {
        willChangeMapping(at: time)
        releaseAll(at: time)
        anchorTime = time
        anchorFrame = frame
        cursor = index
        playOn(at: time)
    }

    /// Play goes on from the anchor at `time` (the cursor at its event): the next beat and
    /// section start found, the state there chased, the sync outputs started there.
    func playOn(at time: SampleTime) {
        findNextBeat()
        findNextBoundary()
        chaseState(toIndex: cursor, at: time)
        chaseAutomation(toIndex: cursor, at: time, moving: true)
        sync.start(fromFrame: anchorFrame, at: time)
    }

    /// How output time maps to score frames now.
    var mapping: ScoreMapping { ScoreMapping(anchorTime: anchorTime, anchorFrame: anchorFrame, rate: rate, playing: playing) }

    /// Keeps the mapping in force before a change at `time` that lies past the cycle being
    /// scheduled (the lookahead reached it), so the position at the cycle's end stays exact;
    /// the earliest such change is the one kept.
    func willChangeMapping(at time: SampleTime) {
        guard time > cycleEnd, beforeChange.map({ $0.until <= cycleEnd }) ?? true else { return }
        beforeChange = (time, mapping)
    }

    /// The score frame playing at the end of the cycle scheduled, `nil` when not playing then.
    var renderedFrame: ScoreFrame? {
        let m = beforeChange.flatMap { $0.until > cycleEnd ? $0.mapping : nil } ?? mapping
        return m.playingFrame(at: cycleEnd).map { min($0, endFrame) }
    }

    /// Publishes the mapping from score to output time for `nextTime(on:atOrAfter:)` and the
    /// position at the cycle's end, then lets go of a start(at:) it has taken.
    func publishTimeline() {
        timeline.publish(Timeline(mapping: mapping, loop: loopStart.map { ($0.tick, loopEndFrame) }, endFrame: endFrame,
                                  renderedTime: cycleEnd, renderedFrame: renderedFrame))
        if startTaken {
            startTaken = false
            pendingStart.store(.min, ordering: .releasing)
        }
    }

    /// Back at the start, not playing, nothing pending.
    func resetToStart() {
        playing = false
        stopTime = nil
        pendingJump = nil
        anchorFrame = .start
        cursor = 0
        sync.reset()
        finishedFlag.store(false, ordering: .relaxed)
    }

    /// The first beat at or after the anchor.
    func findNextBeat() {
        guard reportingBeats else { return }
        advanceBeat(after: score.tick(at: anchorFrame) - 1)
        if let beat = nextBeat, beat.frame < anchorFrame { advanceBeat(after: beat.tick) }
    }

    /// The beat after `tick`; none in a song without a meter.
    func advanceBeat(after tick: Int) {
        nextBeat = score.meterMap.map { meter in
            let next = meter.nextTick(on: .beat, atOrAfter: tick + 1)
            return (next, score.frame(atTick: next))
        }
    }

    func apply(_ command: Command, at time: SampleTime) {
        switch command {
        case .start(let at):
            startTaken = true
            guard !playing else { return }
            if finishedFlag.load(ordering: .relaxed) {
                finishedFlag.store(false, ordering: .relaxed)
                anchorFrame = .start
                cursor = 0
            }
            anchorTime = max(at ?? time, time)
            playing = true
            beforeChange = nil
            stopTime = nil
            playOn(at: anchorTime)
        case .pause:
            guard playing else { return }
            beforeChange = nil
            interrupt(at: time)
            sync.stop(at: time)
            playing = false
            pendingJump = nil
        case .stop:
            beforeChange = nil
            if playing {
                interrupt(at: time)
                sync.stop(at: time)
            }
            resetToStart()
        case .stopAt(let at):
            if playing { stopTime = at } else { resetToStart() }
        case .reportBeats(let enabled):
            reportingBeats = enabled
            if enabled { findNextBeat() }
        case .seek(let tick):
            seek(toIndex: score.firstIndex(atOrAfterTick: tick), frame: score.frame(atTick: min(tick, score.endTick)), at: time)
        case .seekFrame(let frame):
            let frame = min(max(.start, frame), score.endFrame)
            seek(toIndex: score.firstIndex(atOrAfter: frame), frame: frame, at: time)
        case .jump(let tick, let at):
            guard playing else { return apply(.seek(tick: tick), at: time) }
            // What the lookahead already scheduled from the jump's frame on is taken back; what
            // comes before it still plays, and the jump waits for its frame.
            let when = max(at, time)
            flushScheduled(from: when)
            cursor = min(cursor, score.firstIndex(atOrAfter: scoreFrame(at: when)))
            pendingJump = (tick, when)
        case .rate(let percent):
            // Stopped or paused, the position stands where it is (the anchor's time means
            // nothing until a start sets it).
            guard playing else { baseRate = percent; return }
            beforeChange = nil
            let frame = scoreFrame(at: time)   // at the rate played until now
            interrupt(at: time)
            baseRate = percent
            anchorFrame = frame
            anchorTime = time
            chaseState(toIndex: cursor, at: time)
            chaseAutomation(toIndex: cursor, at: time, moving: true)
        case .loop(let startTick, let endTick, let count):
            loopWrapsLeft = count == 0 ? -1 : count - 1
            loopStart = loopWrapsLeft == 0 ? nil : (startTick, score.frame(atTick: startTick), score.firstIndex(atOrAfterTick: startTick))
            loopEndFrame = score.frame(atTick: endTick)
            loopEndTick = endTick
        case .clearLoop:
            loopStart = nil
        case .end(let tick):
            endFrame = score.frame(atTick: min(tick, score.endTick))
        case .mute(let track, let isMuted):
            guard score.trackCount > track, track >= 0 else { return }
            muted[track] = isMuted
            releaseInaudible(at: time)
        case .solo(let track, let isSoloed):
            guard score.trackCount > track, track >= 0, soloed[track] != isSoloed else { return }
            soloed[track] = isSoloed
            soloCount += isSoloed ? 1 : -1
            releaseInaudible(at: time)
        case .muteChannel(let channel, let isMuted):
            guard (0..<16).contains(channel) else { return }
            channelMuted[channel] = isMuted
            releaseInaudible(at: time)
        case .soloChannel(let channel, let isSoloed):
            guard (0..<16).contains(channel), channelSoloed[channel] != isSoloed else { return }
            channelSoloed[channel] = isSoloed
            soloCount += isSoloed ? 1 : -1
            releaseInaudible(at: time)
        case .transpose(let semitones):
            // Held notes keep the key they sound on, so their note-offs still match.
            baseTranspose = semitones
        }
    }

    /// Moves to event `index`, at score frame `frame`, from `time`: a seek, playing or not
    /// (playing, the state there is chased and the sync outputs restart there).
    func seek(toIndex index: Int, frame: ScoreFrame, at time: SampleTime) {
        pendingJump = nil
        beforeChange = nil
        if playing { interrupt(at: time) }
        cursor = index
        anchorFrame = frame
        anchorTime = time
        finishedFlag.store(false, ordering: .relaxed)
        findNextBeat()
        findNextBoundary()
        if playing {
            chaseState(toIndex: cursor, at: time)
            sync.start(fromFrame: anchorFrame, at: time)
        }
        chaseAutomation(toIndex: cursor, at: time, moving: playing)
    }

    /// Stops the flow at `time`: drops what was scheduled ahead, releases every held note, and
    /// moves the cursor back to the first event not yet due, so resuming replays nothing twice.
    func interrupt(at time: SampleTime) {
        let frame = scoreFrame(at: time)
        flushScheduled(from: time)
        releaseAll(at: time)
        anchorFrame = frame
        anchorTime = time
        cursor = score.firstIndex(atOrAfter: frame)
        chaseAutomation(toIndex: cursor, at: time, moving: false)
    }

    /// Drops what the destinations hold from `time` on; the controller source gives its
    /// changes from then again.
    func flushScheduled(from time: SampleTime) {
        for d in destinations.indices { destinations[d].flushScheduled(from: time) }
        sync.flushScheduled(from: time, mapping: mapping)
        controllers?.rewind(to: time)
        scheduledUntil = min(scheduledUntil, time)
    }

    @inline(__always) func isAudible(_ track: Int, channel: Int) -> Bool {
        !muted[track] && !channelMuted[channel] && (soloCount == 0 || soloed[track] || channelSoloed[channel])
    }
}
