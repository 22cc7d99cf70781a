import Engine
import Sequencing
import MIDI
import Synchronization

/// The conductor: maps a score onto the graph's sample clock and, before each render cycle,
/// schedules the cycle's events (one block of lookahead early) into each track's destination
/// at their exact sample times. Start, stop, pause, seek (with chase), rate, loop, mute, solo
/// and transpose; every sounding note is tracked and released on stop, seek, loop wrap, mute
/// and song end, so nothing hangs. Parameter events (automation) set the mixer's volumes and
/// pans on their frames, along straight lines where asked, and are chased like controllers.
/// Core Audio's MusicPlayer.
///
/// Control-thread methods queue commands that take effect at the start of the next render
/// cycle; `willRender` runs on the render thread and allocates nothing.
public final class Player: RenderScheduler, @unchecked Sendable {
    // @unchecked Sendable: everything but `commands`, `finished` and `renderedPosition` is owned
    // by the render thread once the player is added to a graph; the control thread reaches it
    // only through `commands` (a lock-free queue) and reads the two atomics.

    private enum Command {
        case start(at: SampleTime?), pause, stop
        case stopAt(SampleTime)
        case reportBeats(Bool)
        case seek(tick: Int)
        case seekFrame(Int64)
        case jump(tick: Int, at: SampleTime)
        case rate(percent: Int)
        case loop(startTick: Int, endTick: Int, count: Int)
        case clearLoop
        case end(tick: Int)
        case mute(track: Int, Bool)
        case solo(track: Int, Bool)
        case muteChannel(Int, Bool)
        case soloChannel(Int, Bool)
        case transpose(Int)
    }

    /// What the player reports to the control thread (`pollEvents`). Any thread.
    public enum Event: Hashable, Sendable {
        /// A marker meta event was scheduled to sound at `sampleTime`. Any thread.
        case marker(text: String, tick: Int, sampleTime: SampleTime)
        /// A cue-point meta event. Any thread.
        case cuePoint(text: String, tick: Int, sampleTime: SampleTime)
        /// A sequencer-specific meta event: the song's own user data. Any thread.
        case userEvent(track: Int, data: [UInt8], tick: Int, sampleTime: SampleTime)
        /// Play went back to the loop's start at `sampleTime`. Any thread.
        case loopWrapped(sampleTime: SampleTime)
        /// The song ended at `sampleTime`. Any thread.
        case ended(sampleTime: SampleTime)
        /// A beat of the meter sounds at `sampleTime` (with `reportBeats(true)`), played at
        /// `ratePercent` of the written tempo; beat 1 is the bar line. Any thread.
        case beat(bar: Int, beat: Int, tick: Int, sampleTime: SampleTime, ratePercent: Int)
        /// Play jumped to `tick` at `sampleTime` (`jump(toTick:at:)`). Any thread.
        case jumped(tick: Int, sampleTime: SampleTime)
    }

    /// A notification as the render thread records it: no strings, no arrays.
    private struct Notification {
        var kind: UInt8          // 0 score event (marker, cue, user), 1 loop wrap, 2 end, 3 beat, 4 jump
        var index: Int           // kind 0: the score event; kinds 3 and 4: the tick
        var time: SampleTime
        var rate: Int32 = 100    // kind 3: the rate the beat plays at
    }

    /// The score being played. Any thread.
    public let score: Score
    private let destinations: [any MIDIDestination]
    private let trackDestination: [Int]
    private let parameters: (any ParameterDestination)?
    private let busInput: [Int]                   // per destination: the input its CC7/CC10 set, -1 for none
    private let lookahead: Int64
    private let commands = SPSCQueue<Command>(capacity: 1024)
    private let notifications = SPSCQueue<Notification>(capacity: 4096)
    private let finishedFlag = Atomic<Bool>(false)
    private let finishedAt = Atomic<Int64>(0)       // the output time of the end, once finished
    private let positionTick = Atomic<Int>(0)
    private let timeline = TimelineSnapshot()
    private let pendingStart = Atomic<Int64>(.min)   // a start(at:) the render thread has not taken yet

    // Render-thread state.
    private var playing = false
    private var startTaken = false                // a start command applied since the last publish
    private var stopTime: SampleTime?             // a stop waiting for its frame
    private var pendingJump: (tick: Int, time: SampleTime)?   // a jump waiting for its frame
    private var reportingBeats = false
    private var nextBeat: (tick: Int, frame: Int64) = (Int.max, .max)
    private var anchorTime: SampleTime = 0        // output time at which the score stood at anchorFrame
    private var anchorFrame: Int64 = 0
    private var cursor = 0
    private var baseRate = 100                    // setRate's
    private var rateScale = 1_000_000             // modulateRate's, in millionths
    private var baseTranspose = 0                 // setTranspose's
    private var transposeOffset = 0               // modulateTranspose's
    private var scheduledUntil: SampleTime = .min // the destinations hold what is due before this
    private let controllers: (any ControllerSource)?
    private let sectionChooser: (any SectionChooser)?
    private let sectionTicks: [Int]               // the chooser's sections: their first ticks
    private let sectionFrames: [Int64]            // and frames
    private var nextBoundary: (index: Int, frame: Int64) = (.max, .max)   // the next section start ahead
    private var loopEndTick = 0
    private var ownedChannels: [UInt16]           // per controller: the channels `controllers` drives
    private var muted: [Bool]
    private var soloed: [Bool]
    private var soloCount = 0                     // tracks and channels soloed
    private var channelMuted = [Bool](repeating: false, count: 16)
    private var channelSoloed = [Bool](repeating: false, count: 16)
    private var loopStart: (tick: Int, frame: Int64, index: Int)?
    private var loopEndFrame: Int64 = 0
    private var loopWrapsLeft = 0                 // wraps still to make; -1 = forever
    private var endFrame: Int64                   // the song ends here (its length, or setEnd)
    private var held: [UInt8]                     // per destination × channel × key: note-ons not yet released
    private var heldSounding: [UInt8]             // the key that sounds (after transposition)
    private var heldTrack: [Int32]
    private var chase: [Int16]                    // per destination × channel: 128 CCs, program, pitch bend, pressure
    private var pedals: [UInt8]                   // per destination × channel: bit 0 sustain (64), bit 1 sostenuto (66) down
    private var laneLast: [Int32]                 // per automation lane: the last step before the chase point
    private var sync: SyncOutputs                 // MIDI clock and timecode

    /// A player for `sequence` at `sampleRate`, every track to `destination`, or track `i` to
    /// `destinations[trackDestinations[i]]` when given. Parameter events go to `parameters`
    /// (the song's bus). With `busInputs`, destination `d`'s channel volume and pan (CC7,
    /// CC10) set the volume and pan of `parameters`' input `busInputs[d]` instead of reaching
    /// the destination (-1: they reach it); CC7's value `v` gives the gain (v/127)², as GM's
    /// volume curve. `controllers` drives controllers of its own, merged with the score;
    /// `sections` chooses where each section goes on. `sync` receives MIDI clock (following the
    /// tempo map and the rate, with Start, Stop, Song Position Pointer and Continue as the
    /// transport moves) and MIDI timecode. Control thread.
    public init(sequence: MusicSequence, sampleRate: Int, destinations: [any MIDIDestination], trackDestinations: [Int]? = nil,
                parameters: (any ParameterDestination)? = nil, busInputs: [Int]? = nil, controllers: (any ControllerSource)? = nil,
                sections: (any SectionChooser)? = nil, sync: SyncDestinations = SyncDestinations()) {
        precondition(!destinations.isEmpty, "a player needs somewhere to send its events")
        score = Score(sequence, sampleRate: sampleRate)
        self.destinations = destinations
        trackDestination = trackDestinations ?? Array(repeating: 0, count: sequence.tracks.count)
        precondition(trackDestination.count == sequence.tracks.count && trackDestination.allSatisfy { destinations.indices.contains($0) })
        lookahead = Int64(destinations.map(\.schedulingLookahead).max() ?? 0)
        // Each its own buffer: arrays sharing one would copy it on the render thread at their first write.
        muted = Array(repeating: false, count: score.trackCount)
        soloed = Array(repeating: false, count: score.trackCount)
        held = Array(repeating: 0, count: destinations.count * 2048)
        heldSounding = Array(repeating: 0, count: destinations.count * 2048)
        heldTrack = Array(repeating: 0, count: destinations.count * 2048)
        chase = Array(repeating: -1, count: destinations.count * 16 * 131)
        pedals = Array(repeating: 0, count: destinations.count * 16)
        endFrame = score.endFrame
        self.parameters = parameters
        busInput = busInputs ?? Array(repeating: -1, count: destinations.count)
        precondition(busInput.count == destinations.count && (parameters != nil || busInput.allSatisfy { $0 < 0 }))
        laneLast = Array(repeating: -1, count: Score.laneCount)
        self.controllers = controllers
        ownedChannels = Array(repeating: 0, count: 128)
        for (controller, channels) in controllers?.owned ?? [] { ownedChannels[Int(controller & 0x7F)] |= channels }
        sectionChooser = sections
        sectionTicks = sections?.sectionStartTicks ?? []
        let tempoMap = score.tempoMap
        sectionFrames = sectionTicks.map { tempoMap.sampleFrame(atTick: $0, sampleRate: sampleRate) }
        self.sync = SyncOutputs(sync, tempoMap: tempoMap, sampleRate: sampleRate)
        publishTimeline()   // before any render thread can: the song's end, for nextTime
    }

    // MARK: Control thread

    /// Starts or resumes from the current position. Control thread.
    public func start() { send(.start(at: nil)) }
    /// Starts or resumes from the current position at sample time `time` exactly (at the next
    /// render cycle if that has passed). Control thread.
    public func start(at time: SampleTime) {
        pendingStart.store(time, ordering: .releasing)
        send(.start(at: time))
    }
    /// Pauses: sounding notes are released; `start` resumes where it stopped. Control thread.
    public func pause() { send(.pause) }
    /// Stops and returns to the start; sounding notes are released. Control thread.
    public func stop() { send(.stop) }
    /// Stops at sample time `time` exactly: what is due before it plays, sounding notes are
    /// released on it, and the player returns to the start. Control thread.
    public func stop(at time: SampleTime) { send(.stopAt(time)) }
    /// Reports every beat as an `Event.beat` (off by default: a song has many). Control thread.
    public func reportBeats(_ enabled: Bool) { send(.reportBeats(enabled)) }
    /// Moves to `tick`: controllers, programs and pitch bend are chased so the music sounds as
    /// if played from the start; a note that begins exactly at `tick` sounds. Control thread.
    public func seek(toTick tick: Int) { send(.seek(tick: max(0, tick))) }
    /// Jumps to `tick` at sample time `time` exactly (at the next render cycle if that has
    /// passed), playing on from there: the notes sounding then are released (their release
    /// and the reverb ring on), and the state the song has at `tick` (programs, controllers,
    /// pitch bend) is chased on that frame. `Event.jumped` reports it. A later jump, a seek,
    /// a pause or a stop cancels one still waiting; when not playing it is a seek. Control thread.
    public func jump(toTick tick: Int, at time: SampleTime) { send(.jump(tick: max(0, tick), at: time)) }
    /// Moves to a time in seconds. Control thread.
    public func seek(toSeconds seconds: Double) { seek(toTick: score.tempoMap.tick(atSeconds: seconds)) }
    /// Moves to a position in quarter-note beats from the start. Control thread.
    public func seek(toBeats beats: Double) { seek(toTick: score.tempoMap.tick(atBeats: beats)) }
    /// Moves to a bar:beat position (from 1, in the song's meter); songs in SMPTE time have no
    /// bars and stay where they are. Control thread.
    public func seek(to position: BarBeatTick) {
        guard let meter = score.meterMap else { return }
        seek(toTick: meter.tick(at: position))
    }
    /// Plays at `percent` of the written tempo (1...1000). Control thread.
    public func setRate(percent: Int) { send(.rate(percent: min(1000, max(1, percent)))) }
    /// Plays `startTick ..< endTick` `count` times in all (0 = forever), seamlessly: at the
    /// region's end, held notes are released and play goes on from its start with the state
    /// chased there. Control thread.
    public func setLoop(startTick: Int, endTick: Int, count: Int) {
        precondition(startTick >= 0 && endTick > startTick && count >= 0)
        send(.loop(startTick: startTick, endTick: endTick, count: count))
    }
    /// Plays on through the loop region. Control thread.
    public func clearLoop() { send(.clearLoop) }
    /// Ends the song at `tick` instead of its last event (notes sounding there are released).
    /// Control thread.
    public func setEnd(tick: Int) { send(.end(tick: max(0, tick))) }
    /// Mutes or unmutes a track (its notes stop; controllers still apply). Control thread.
    public func setMuted(_ isMuted: Bool, track: Int) { send(.mute(track: track, isMuted)) }
    /// Solos or unsolos a track: while any track or channel is soloed, only soloed tracks and
    /// channels sound. Control thread.
    public func setSoloed(_ isSoloed: Bool, track: Int) { send(.solo(track: track, isSoloed)) }
    /// Mutes or unmutes a channel (0-based) on every track. Control thread.
    public func setMuted(_ isMuted: Bool, channel: Int) { send(.muteChannel(channel, isMuted)) }
    /// Solos or unsolos a channel (0-based), as `setSoloed(_:track:)` does a track. Control thread.
    public func setSoloed(_ isSoloed: Bool, channel: Int) { send(.soloChannel(channel, isSoloed)) }
    /// Transposes every channel but 10 (drums) by `semitones`. Control thread.
    public func setTranspose(semitones: Int) { send(.transpose(semitones)) }

    /// True once the song (and its loops) has played to its end. Any thread.
    public var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    /// The output time the song ended at (its notes released), once `isFinished`: later
    /// than its length when it was paused or followed a master that stood still. Any thread.
    public var finishTime: SampleTime? { isFinished ? finishedAt.load(ordering: .relaxed) : nil }
    /// Where the song is: its tick at the end of the last render cycle. Any thread.
    public var currentTick: Int { positionTick.load(ordering: .relaxed) }

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
    private func position(atOrAfter earliest: SampleTime) -> (Timeline, (Int64) -> SampleTime, Int)? {
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

    private func send(_ command: Command) {
        while !commands.push(command) { sched_yield() }
    }

    /// Takes the markers, cue points, user events, loop wraps and song end reported since the
    /// last call, oldest first. Call it from one control thread (a game's frame, a UI timer);
    /// it never runs on the audio thread. Control thread.
    public func pollEvents() -> [Event] {
        var events: [Event] = []
        while let n = notifications.pop() {
            switch n.kind {
            case 1: events.append(.loopWrapped(sampleTime: n.time))
            case 2: events.append(.ended(sampleTime: n.time))
            case 4: events.append(.jumped(tick: n.index, sampleTime: n.time))
            case 3:
                guard let meter = score.meterMap else { break }
                let p = meter.position(atTick: n.index)
                events.append(.beat(bar: p.bar, beat: p.beat, tick: n.index, sampleTime: n.time, ratePercent: Int(n.rate)))
            default:
                let e = score.events[n.index]
                switch e.message {
                case .meta(.text(.marker, let bytes)): events.append(.marker(text: String(latin1: bytes), tick: e.tick, sampleTime: n.time))
                case .meta(.text(.cuePoint, let bytes)): events.append(.cuePoint(text: String(latin1: bytes), tick: e.tick, sampleTime: n.time))
                case .meta(.sequencerSpecific(let data)): events.append(.userEvent(track: e.track, data: data, tick: e.tick, sampleTime: n.time))
                default: break
                }
            }
        }
        return events
    }

    // MARK: Render thread

    /// Output time of a score frame under the current anchor and rate.
    @inline(__always) private func outputTime(ofFrame frame: Int64) -> SampleTime {
        anchorTime + (frame - anchorFrame) * 1_000_000 / rate
    }

    /// The score frame at output time `time`.
    @inline(__always) private func scoreFrame(at time: SampleTime) -> Int64 {
        anchorFrame + (time - anchorTime) * rate / 1_000_000
    }

    /// Schedules the events due before the end of this cycle plus the lookahead. Render thread only.
    public func willRender(from time: SampleTime, frames: Int) {
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
            interrupt(at: max(stop, time))
            sync.stop(at: max(stop, time))
            resetToStart()
        }
        // Where the song is at the end of this cycle (not the next event's tick, which can be
        // seconds ahead across a rest).
        let tick = score.tempoMap.tick(atSampleFrame: scoreFrame(at: time + SampleTime(frames)), sampleRate: score.sampleRate)
        positionTick.store(min(score.endTick, tick), ordering: .relaxed)
    }

    /// Schedules, in time order, the beats, loop wraps, song end and events due before
    /// `horizon`, none before `time`. Render thread only.
    private func scheduleEvents(before horizon: SampleTime, from time: SampleTime) {
        let events = score.events
        while true {
            let nextFrame = cursor < events.count ? events[cursor].frame : Int64.max
            // A MIDI clock pulse or timecode quarter frame; one on a section's start, the loop's
            // end or the song's end belongs to what plays from there.
            let syncFrame = sync.nextFrame
            if syncFrame <= nextFrame && syncFrame < nextBoundary.frame && syncFrame < endFrame
                && (loopStart == nil || syncFrame < loopEndFrame) {
                let due = outputTime(ofFrame: syncFrame)
                guard due < horizon else { break }
                sync.sendNext(at: max(due, time))
                continue
            }
            // A section's end, where the chooser may send play elsewhere (before the beat and
            // the events on its frame, which belong to the section played next).
            if nextBoundary.frame <= nextFrame && nextBoundary.frame < endFrame && (loopStart == nil || nextBoundary.frame < loopEndFrame) {
                let due = outputTime(ofFrame: nextBoundary.frame)
                guard due < horizon else { break }
                let natural = nextBoundary.index
                if let chosen = chosenSection(after: natural - 1, at: max(due, time)), chosen != natural {
                    sendControllers(before: max(due, time), from: time)
                    enterSection(chosen, at: max(due, time))
                } else {
                    nextBoundary = natural + 1 < sectionFrames.count ? (natural + 1, sectionFrames[natural + 1]) : (.max, .max)
                }
                continue
            }
            if reportingBeats && nextBeat.frame <= nextFrame && nextBeat.frame < (loopStart == nil ? .max : loopEndFrame)
                && nextBeat.frame < endFrame {
                let due = outputTime(ofFrame: nextBeat.frame)
                guard due < horizon else { break }
                notifications.push(Notification(kind: 3, index: nextBeat.tick, time: max(due, time), rate: Int32(rate / 10_000)))
                advanceBeat(after: nextBeat.tick)
                continue
            }
            if let start = loopStart, loopEndFrame <= nextFrame {
                let wrap = outputTime(ofFrame: loopEndFrame)
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
                let end = outputTime(ofFrame: endFrame)
                if end < horizon {
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
            let due = outputTime(ofFrame: nextFrame)
            guard due < horizon else { break }
            sendControllers(before: max(due, time) + 1, from: time)   // a change due with the event goes first
            emit(events[cursor], index: cursor, at: max(due, time))
            cursor += 1
        }
        if playing { sendControllers(before: horizon, from: time) }
    }

    /// The section the chooser picks to follow section `ending`, if it picks a real one.
    @inline(__always) private func chosenSection(after ending: Int, at time: SampleTime) -> Int? {
        guard let sectionChooser, ending >= 0, let chosen = sectionChooser.section(after: ending, at: time), chosen >= 0, chosen < sectionTicks.count else { return nil }
        return chosen
    }

    /// The chooser's section `tick` falls in, -1 before the first.
    private func section(atTick tick: Int) -> Int {
        var index = -1
        for i in 0..<sectionTicks.count where sectionTicks[i] <= tick { index = i }
        return index
    }

    /// Play goes on from section `index`'s start at `time`, as a jump there (reported as one).
    private func enterSection(_ index: Int, at time: SampleTime) {
        move(toFrame: sectionFrames[index], index: score.firstIndex(atOrAfterTick: sectionTicks[index]), at: time)
        notifications.push(Notification(kind: 4, index: sectionTicks[index], time: time))
    }

    /// The first section start after the anchor: where the chooser is asked next.
    private func findNextBoundary() {
        var i = 0
        while i < sectionFrames.count && sectionFrames[i] <= anchorFrame { i += 1 }
        nextBoundary = i < sectionFrames.count ? (i, sectionFrames[i]) : (.max, .max)
    }

    /// Sends `controllers`' changes due before `limit` to every destination. Render thread only.
    @inline(__always) private func sendControllers(before limit: SampleTime, from time: SampleTime) {
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
    public func playFollowing(fromFrame frame: Int64, at time: SampleTime) {
        apply(.seekFrame(frame), at: time)
        if !playing { apply(.start(at: time), at: time) }
    }

    /// Pauses at `time`, as `pause` does: for a scheduler that follows another clock. Render
    /// thread only (before `willRender`).
    public func pauseFollowing(at time: SampleTime) { apply(.pause, at: time) }

    /// The score frame playing at output time `time` (after the cycles scheduled so far),
    /// `nil` when not playing. Render thread only.
    public func playingFrame(at time: SampleTime) -> Int64? { playing ? scoreFrame(at: time) : nil }

    /// Transposes by `semitones` more than `setTranspose` does, from the next note on (held
    /// notes keep their key). Render thread only (before `willRender`).
    public func modulateTranspose(semitones: Int) { transposeOffset = semitones }

    /// The rate played, in millionths of the written tempo: setRate's scaled by modulateRate's
    /// (0.01 to 10 times).
    private var rate: Int64 { min(10_000_000, max(10_000, Int64(baseRate) * Int64(rateScale) / 100)) }

    /// The transposition played: setTranspose's plus modulateTranspose's.
    private var transpose: Int { baseTranspose + transposeOffset }

    /// Makes the jump that has come due: the held notes released on its frame, play on from
    /// its tick there with the state chased. Render thread only.
    private func performJump(_ jump: (tick: Int, time: SampleTime)) {
        pendingJump = nil
        let tick = min(jump.tick, score.endTick)
        move(toFrame: score.tempoMap.sampleFrame(atTick: tick, sampleRate: score.sampleRate), index: score.firstIndex(atOrAfterTick: tick), at: jump.time)
        finishedFlag.store(false, ordering: .relaxed)
        notifications.push(Notification(kind: 4, index: tick, time: jump.time))
    }

    /// Play goes on at output time `time` from score frame `frame` (event `index` next): the
    /// held notes released there, the state at `index` chased there. A loop's wrap and a
    /// jump. Render thread only.
    private func move(toFrame frame: Int64, index: Int, at time: SampleTime) {
        releaseAll(at: time)
        anchorTime = time
        anchorFrame = frame
        cursor = index
        findNextBeat()
        findNextBoundary()
        chaseState(toIndex: index, at: time)
        chaseAutomation(toIndex: index, at: time, moving: true)
        sync.start(fromFrame: frame, at: time)
    }

    /// Publishes the mapping from score to output time for `nextTime(on:atOrAfter:)`, then
    /// lets go of a start(at:) it has taken.
    private func publishTimeline() {
        timeline.publish(Timeline(anchorTime: anchorTime, anchorFrame: anchorFrame, rate: rate,
                                  playing: playing, loopEndFrame: loopStart == nil ? -1 : loopEndFrame,
                                  loopStartTick: Int64(loopStart?.tick ?? 0), endFrame: endFrame))
        if startTaken {
            startTaken = false
            pendingStart.store(.min, ordering: .releasing)
        }
    }

    /// Back at the start, not playing, nothing pending.
    private func resetToStart() {
        playing = false
        stopTime = nil
        pendingJump = nil
        anchorFrame = 0
        cursor = 0
        sync.reset()
        finishedFlag.store(false, ordering: .relaxed)
    }

    /// The first beat at or after the anchor.
    private func findNextBeat() {
        guard reportingBeats else { return }
        let tick = score.tempoMap.tick(atSampleFrame: anchorFrame, sampleRate: score.sampleRate)
        advanceBeat(after: tick - 1)
        if nextBeat.frame < anchorFrame { advanceBeat(after: nextBeat.tick) }
    }

    /// The beat after `tick`.
    private func advanceBeat(after tick: Int) {
        guard let meter = score.meterMap else {
            nextBeat = (.max, .max)
            return
        }
        let next = meter.nextTick(on: .beat, atOrAfter: tick + 1)
        nextBeat = (next, score.tempoMap.sampleFrame(atTick: next, sampleRate: score.sampleRate))
    }

    private func apply(_ command: Command, at time: SampleTime) {
        switch command {
        case .start(let at):
            startTaken = true
            guard !playing else { return }
            if finishedFlag.load(ordering: .relaxed) {
                finishedFlag.store(false, ordering: .relaxed)
                anchorFrame = 0
                cursor = 0
            }
            anchorTime = max(at ?? time, time)
            playing = true
            stopTime = nil
            findNextBeat()
            findNextBoundary()
            chaseState(toIndex: cursor, at: anchorTime)
            chaseAutomation(toIndex: cursor, at: anchorTime, moving: true)
            sync.start(fromFrame: anchorFrame, at: anchorTime)
        case .pause:
            guard playing else { return }
            interrupt(at: time)
            sync.stop(at: time)
            playing = false
            pendingJump = nil
        case .stop:
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
            seek(toIndex: score.firstIndex(atOrAfterTick: tick),
                 frame: score.tempoMap.sampleFrame(atTick: min(tick, score.endTick), sampleRate: score.sampleRate), at: time)
        case .seekFrame(let frame):
            let frame = min(max(0, frame), score.endFrame)
            seek(toIndex: score.firstIndex(atOrAfterFrame: frame), frame: frame, at: time)
        case .jump(let tick, let at):
            guard playing else { return apply(.seek(tick: tick), at: time) }
            // What the lookahead already scheduled from the jump's frame on is taken back; what
            // comes before it still plays, and the jump waits for its frame.
            let when = max(at, time)
            flushScheduled(from: when)
            cursor = min(cursor, score.firstIndex(atOrAfterFrame: scoreFrame(at: when)))
            pendingJump = (tick, when)
        case .rate(let percent):
            // Stopped or paused, the position stands where it is (the anchor's time means
            // nothing until a start sets it).
            guard playing else { baseRate = percent; return }
            let frame = scoreFrame(at: time)   // at the rate played until now
            interrupt(at: time)
            baseRate = percent
            anchorFrame = frame
            anchorTime = time
            chaseState(toIndex: cursor, at: time)
            chaseAutomation(toIndex: cursor, at: time, moving: true)
        case .loop(let startTick, let endTick, let count):
            let map = score.tempoMap
            loopWrapsLeft = count == 0 ? -1 : count - 1
            loopStart = loopWrapsLeft == 0 ? nil
                : (startTick, map.sampleFrame(atTick: startTick, sampleRate: score.sampleRate), score.firstIndex(atOrAfterTick: startTick))
            loopEndFrame = map.sampleFrame(atTick: endTick, sampleRate: score.sampleRate)
            loopEndTick = endTick
        case .clearLoop:
            loopStart = nil
        case .end(let tick):
            endFrame = score.tempoMap.sampleFrame(atTick: min(tick, score.endTick), sampleRate: score.sampleRate)
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
    private func seek(toIndex index: Int, frame: Int64, at time: SampleTime) {
        pendingJump = nil
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
    private func interrupt(at time: SampleTime) {
        let frame = scoreFrame(at: time)
        flushScheduled(from: time)
        releaseAll(at: time)
        anchorFrame = frame
        anchorTime = time
        cursor = score.firstIndex(atOrAfterFrame: frame)
        chaseAutomation(toIndex: cursor, at: time, moving: false)
    }

    /// Drops what the destinations hold from `time` on; the controller source gives its
    /// changes from then again.
    private func flushScheduled(from time: SampleTime) {
        for d in destinations.indices { destinations[d].flushScheduled(from: time) }
        sync.flushScheduled(from: time, frame: scoreFrame(at: time), outputTime: outputTime(ofFrame:))
        controllers?.rewind(to: time)
        scheduledUntil = min(scheduledUntil, time)
    }

    @inline(__always) private func isAudible(_ track: Int, channel: Int) -> Bool {
        !muted[track] && !channelMuted[channel] && (soloCount == 0 || soloed[track] || channelSoloed[channel])
    }

    private func emit(_ event: Score.Event, index: Int, at time: SampleTime) {
        if event.automationIndex >= 0 {
            let step = score.automation[Int(event.automationIndex)]
            automate(step, from: step.event.value, at: time, moving: true)
            return
        }
        let d = trackDestination[event.track]
        let destination = destinations[d]
        switch event.message {
        case .noteOn(let c, let n, let v) where v > 0:
            guard isAudible(event.track, channel: Int(c)) else { return }
            let key = c == 9 ? Int(n) : Int(n) + transpose
            guard (0...127).contains(key) else { return }
            let slot = d * 2048 + Int(c) * 128 + Int(n)
            if held[slot] > 0 && Int(heldSounding[slot]) != key {
                destination.schedule(ScheduledMIDI(time: time, status: 0x80 | c, data1: heldSounding[slot], data2: 0))
                held[slot] = 0
            }
            held[slot] &+= 1
            heldSounding[slot] = UInt8(key)
            heldTrack[slot] = Int32(event.track)
            destination.schedule(ScheduledMIDI(time: time, status: 0x90 | c, data1: UInt8(key), data2: v))
        case .noteOff(let c, let n, let v), .noteOn(let c, let n, let v):
            let slot = d * 2048 + Int(c) * 128 + Int(n)
            guard held[slot] > 0 else { return }
            held[slot] = 0
            destination.schedule(ScheduledMIDI(time: time, status: 0x80 | c, data1: heldSounding[slot], data2: v))
        case .polyPressure(let c, let n, let p):
            let slot = d * 2048 + Int(c) * 128 + Int(n)
            guard held[slot] > 0 else { return }
            destination.schedule(ScheduledMIDI(time: time, status: 0xA0 | c, data1: heldSounding[slot], data2: p))
        case .sysex(let bytes):
            bytes.withUnsafeBufferPointer { destination.scheduleSysex(Player.sysexBody($0), at: time) }
        case .meta(.text(.marker, _)), .meta(.text(.cuePoint, _)), .meta(.sequencerSpecific):
            notifications.push(Notification(kind: 0, index: index, time: time))
        default:
            if let packed = ScheduledMIDI(time: time, event.message) { send(packed, to: d) }
        }
    }

    /// Schedules a message on destination `d`, keeping track of the pedals it holds down.
    @inline(__always) private func send(_ event: ScheduledMIDI, to d: Int) {
        // The controller source's own on this channel: the score's message gives way.
        if event.status & 0xF0 == 0xB0, ownedChannels[Int(event.data1 & 0x7F)] & (UInt16(1) &<< UInt16(event.status & 0x0F)) != 0 { return }
        if busInput[d] >= 0, event.status & 0xF0 == 0xB0, event.data1 == 7 || event.data1 == 10, let parameters {
            let v = Float(event.data2)
            let (parameter, value): (ParameterEvent.Parameter, Float) = event.data1 == 7 ? (.volume, v * v / (127 * 127)) : (.pan, max(-1, (v - 64) / 63))
            parameters.scheduleParameter(parameter, of: .input(busInput[d]), to: value, at: event.time, rampFrames: 0)
            return
        }
        if event.status & 0xF0 == 0xB0 && (event.data1 == 64 || event.data1 == 66) {
            let bit: UInt8 = event.data1 == 64 ? 1 : 2
            let slot = d * 16 + Int(event.status & 0x0F)
            if event.data2 >= 64 { pedals[slot] |= bit } else { pedals[slot] &= ~bit }
        }
        destinations[d].schedule(event)
    }

    /// Note-offs for every held note, and pedals up where a pedal is down, at `time`: a note
    /// released under a sustain pedal would ring on.
    private func releaseAll(at time: SampleTime) {
        for slot in held.indices where held[slot] > 0 {
            sendNoteOff(slot: slot, at: time)
        }
        for slot in pedals.indices where pedals[slot] != 0 {
            let status = 0xB0 | UInt8(slot % 16)
            if pedals[slot] & 1 != 0 { send(ScheduledMIDI(time: time, status: status, data1: 64, data2: 0), to: slot / 16) }
            if pedals[slot] & 2 != 0 { send(ScheduledMIDI(time: time, status: status, data1: 66, data2: 0), to: slot / 16) }
        }
    }

    /// Note-offs, at `time`, for the held notes of tracks that mute or solo has silenced: one
    /// pass over the held notes, however many tracks the song has.
    private func releaseInaudible(at time: SampleTime) {
        for slot in held.indices where held[slot] > 0 && !isAudible(Int(heldTrack[slot]), channel: (slot % 2048) / 128) {
            sendNoteOff(slot: slot, at: time)
        }
    }

    @inline(__always) private func sendNoteOff(slot: Int, at time: SampleTime) {
        let channel = UInt8((slot % 2048) / 128)
        destinations[slot / 2048].schedule(ScheduledMIDI(time: time, status: 0x80 | channel, data1: heldSounding[slot], data2: 0))
        held[slot] = 0
    }

    /// Sends, at `time`, the state the events before `index` leave: sysex in order, then per
    /// destination and channel bank, program, controllers, RPN/NRPN selection and data entry,
    /// pitch bend and pressure. Nothing is allocated: the state lives in `chase`.
    private func chaseState(toIndex index: Int, at time: SampleTime) {
        guard index > 0 else { return }
        for i in chase.indices { chase[i] = -1 }
        let events = score.events
        for i in 0..<index {
            let e = events[i]
            let d = trackDestination[e.track]
            switch e.message {
            case .controlChange(let c, let n, let v) where n < 120: chase[(d * 16 + Int(c)) * 131 + Int(n)] = Int16(v)
            case .programChange(let c, let p): chase[(d * 16 + Int(c)) * 131 + 128] = Int16(p)
            case .pitchBend(let c, let v): chase[(d * 16 + Int(c)) * 131 + 129] = Int16(v)
            case .channelPressure(let c, let p): chase[(d * 16 + Int(c)) * 131 + 130] = Int16(p)
            case .sysex(let bytes):
                bytes.withUnsafeBufferPointer { destinations[d].scheduleSysex(Player.sysexBody($0), at: time) }
            default: break
            }
        }
        for d in destinations.indices {
            for channel in 0..<16 {
                let base = (d * 16 + channel) * 131
                let status = UInt8(channel)
                func send(_ kind: UInt8, _ index: Int) {
                    let v = Int(chase[base + index])
                    guard v >= 0 else { return }
                    let (d1, d2) = kind == 0xB0 ? (UInt8(index), UInt8(v)) : kind == 0xE0 ? (UInt8(v & 0x7F), UInt8(v >> 7)) : (UInt8(v), 0)
                    self.send(ScheduledMIDI(time: time, status: kind | status, data1: d1, data2: d2), to: d)
                }
                send(0xB0, 0)
                send(0xB0, 32)
                send(0xC0, 128)
                for n in 1..<120 where !Player.isBankOrParameterController(n) { send(0xB0, n) }
                send(0xB0, 99); send(0xB0, 98); send(0xB0, 101); send(0xB0, 100); send(0xB0, 6); send(0xB0, 38)
                send(0xE0, 129)
                send(0xD0, 130)
            }
        }
    }

    /// Sets each automated lane, at `time`, to its value at the score position of event
    /// `index` (the anchor): a lane before its first event goes back to its default (unity,
    /// centre), a lane between two points of a line takes the value on the line, and, when
    /// `moving`, goes on along it.
    private func chaseAutomation(toIndex index: Int, at time: SampleTime, moving: Bool) {
        guard parameters != nil, !score.automation.isEmpty else { return }
        // Plain index loops: iterating the arrays themselves is generic, unspecialized code in
        // debug builds, which allocates.
        for lane in 0..<laneLast.count { laneLast[lane] = -1 }
        let steps = score.automation, lanes = score.automatedLanes
        for i in 0..<steps.count where steps[i].index < index { laneLast[steps[i].lane] = Int32(i) }
        for l in 0..<lanes.count {
            let lane = lanes[l]
            let last = Int(laneLast[lane])
            if last < 0 {
                let (target, parameter) = Score.target(ofLane: lane)
                parameters?.scheduleParameter(parameter, of: target, to: parameter == .volume ? 1 : 0, at: time, rampFrames: 0)
                continue
            }
            let step = steps[last]
            var value = step.event.value
            if step.next >= 0, steps[step.next].event.curve == .linear {
                let next = steps[step.next]
                let fraction = next.frame > step.frame ? Float(min(max(anchorFrame - step.frame, 0), next.frame - step.frame)) / Float(next.frame - step.frame) : 1
                value += (next.event.value - value) * fraction
            }
            automate(step, from: value, at: time, moving: moving)
        }
    }

    /// Sets `step`'s lane to `value` at `time` and, when `moving` and the lane's next event
    /// is a line, starts the line towards it, arriving on its frame. A pan line through the
    /// centre is drawn as two, since the pan law bends there.
    private func automate(_ step: Score.AutomationStep, from value: Float, at time: SampleTime, moving: Bool) {
        guard let parameters else { return }
        let (target, parameter) = Score.target(ofLane: step.lane)
        parameters.scheduleParameter(parameter, of: target, to: value, at: time, rampFrames: 0)
        guard moving, step.next >= 0, score.automation[step.next].event.curve == .linear else { return }
        let next = score.automation[step.next]
        let frames = Int(max(0, outputTime(ofFrame: next.frame) - time))
        let end = next.event.value
        if parameter == .pan && value * end < 0 {
            let first = Int(Double(frames) * Double(abs(value)) / Double(abs(value) + abs(end)))
            parameters.scheduleParameter(.pan, of: target, to: 0, at: time, rampFrames: first)
            parameters.scheduleParameter(.pan, of: target, to: end, at: time + SampleTime(first), rampFrames: frames - first)
        } else {
            parameters.scheduleParameter(parameter, of: target, to: end, at: time, rampFrames: frames)
        }
    }

    /// A stored sysex packet without its closing F7 (plain indexing: the generic collection
    /// members box their elements in unoptimized builds, which would allocate here).
    @inline(__always) private static func sysexBody(_ packet: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let n = packet.count
        return n > 0 && packet[n - 1] == 0xF7 ? UnsafeBufferPointer(start: packet.baseAddress, count: n - 1) : packet
    }

    /// Bank select and the (N)RPN selection and data-entry controllers, which chase in their own order.
    @inline(__always) private static func isBankOrParameterController(_ n: Int) -> Bool {
        n == 32 || n == 6 || n == 38 || (98...101).contains(n)
    }
}

/// Where the player stood after a render cycle, as `nextTime` needs it.
struct Timeline {
    var anchorTime: SampleTime
    var anchorFrame: Int64
    var rate: Int64                // millionths of the written tempo
    var playing: Bool
    var loopEndFrame: Int64        // -1: no loop
    var loopStartTick: Int64
    var endFrame: Int64
}

/// A `Timeline` the render thread publishes and any thread reads whole, through a sequence
/// lock: the writer never waits, a reader tries again if a write overlapped its read.
final class TimelineSnapshot: Sendable {
    private let version = Atomic<UInt64>(0)
    private let anchorTime = Atomic<Int64>(0)
    private let anchorFrame = Atomic<Int64>(0)
    private let rate = Atomic<Int64>(1_000_000)
    private let playing = Atomic<Bool>(false)
    private let loopEndFrame = Atomic<Int64>(-1)
    private let loopStartTick = Atomic<Int64>(0)
    private let endFrame = Atomic<Int64>(0)

    /// Render thread only.
    func publish(_ t: Timeline) {
        let v = version.load(ordering: .relaxed)
        version.store(v &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        anchorTime.store(t.anchorTime, ordering: .relaxed)
        anchorFrame.store(t.anchorFrame, ordering: .relaxed)
        rate.store(t.rate, ordering: .relaxed)
        playing.store(t.playing, ordering: .relaxed)
        loopEndFrame.store(t.loopEndFrame, ordering: .relaxed)
        loopStartTick.store(t.loopStartTick, ordering: .relaxed)
        endFrame.store(t.endFrame, ordering: .relaxed)
        version.store(v &+ 2, ordering: .releasing)
    }

    /// Any thread.
    func read() -> Timeline {
        while true {
            let before = version.load(ordering: .acquiring)
            let t = Timeline(anchorTime: anchorTime.load(ordering: .relaxed), anchorFrame: anchorFrame.load(ordering: .relaxed),
                             rate: rate.load(ordering: .relaxed), playing: playing.load(ordering: .relaxed),
                             loopEndFrame: loopEndFrame.load(ordering: .relaxed), loopStartTick: loopStartTick.load(ordering: .relaxed),
                             endFrame: endFrame.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if before & 1 == 0 && version.load(ordering: .relaxed) == before { return t }
            sched_yield()
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
