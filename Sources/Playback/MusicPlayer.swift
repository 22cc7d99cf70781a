import Engine
import Sequencing
import MIDI
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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
public final class MusicPlayer: RenderScheduler, @unchecked Sendable {
    // @unchecked Sendable: everything but `commands`, `finished` and `renderedPosition` is owned
    // by the render thread once the player is added to a graph; the control thread reaches it
    // only through `commands` (a lock-free queue) and reads the two atomics.

    enum Command {
        case start(at: SampleTime?), pause, stop
        case stopAt(SampleTime)
        case reportBeats(Bool)
        case seek(tick: Int)
        case seekFrame(ScoreFrame)
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
    struct Notification {
        var kind: UInt8          // 0 score event (marker, cue, user), 1 loop wrap, 2 end, 3 beat, 4 jump
        var index: Int           // kind 0: the score event; kinds 3 and 4: the tick
        var time: SampleTime
        var rate: Int32 = 100    // kind 3: the rate the beat plays at
    }

    /// The score being played. Any thread.
    public let score: MusicPlayer.Score
    let destinations: [any MIDIDestination]
    let trackDestination: [Int]
    let parameters: (any ParameterDestination)?
    let busInput: [Int]                   // per destination: the input its CC7/CC10 set, -1 for none
    let lookahead: Int64
    let commands = SPSCQueue<Command>(capacity: 1024)
    let notifications = SPSCQueue<Notification>(capacity: 4096)
    let finishedFlag = Atomic<Bool>(false)
    let finishedAt = Atomic<Int64>(0)       // the output time of the end, once finished
    let positionTick = Atomic<Int>(0)
    let timeline = TimelineSnapshot()
    let pendingStart = Atomic<Int64>(.min)   // a start(at:) the render thread has not taken yet

    // Render-thread state.
    var playing = false
    var startTaken = false                // a start command applied since the last publish
    var stopTime: SampleTime?             // a stop waiting for its frame
    var pendingJump: (tick: Int, time: SampleTime)?   // a jump waiting for its frame
    var reportingBeats = false
    var nextBeat: (tick: Int, frame: ScoreFrame)?   // the next beat to report, nil past the last
    var anchorTime: SampleTime = 0        // output time at which the score stood at anchorFrame
    var anchorFrame = ScoreFrame.start
    var cursor = 0
    var baseRate = 100                    // setRate's
    var rateScale = 1_000_000             // modulateRate's, in millionths
    var baseTranspose = 0                 // setTranspose's
    var transposeOffset = 0               // modulateTranspose's
    var scheduledUntil: SampleTime = .min // the destinations hold what is due before this
    var cycleEnd: SampleTime = .min       // the end of the cycle being scheduled
    var beforeChange: (until: SampleTime, mapping: ScoreMapping)?   // the mapping the lookahead changed past `cycleEnd`
    let controllers: (any ControllerSource)?
    let sectionChooser: (any SectionChooser)?
    let sectionTicks: [Int]               // the chooser's sections: their first ticks
    let sectionFrames: [ScoreFrame]       // and frames
    var nextBoundary: (index: Int, frame: ScoreFrame)?   // the next section start ahead, nil past the last
    var loopEndTick = 0
    var ownedChannels: [UInt16]           // per controller: the channels `controllers` drives
    var muted: [Bool]
    var soloed: [Bool]
    var soloCount = 0                     // tracks and channels soloed
    var channelMuted = [Bool](repeating: false, count: 16)
    var channelSoloed = [Bool](repeating: false, count: 16)
    var loopStart: (tick: Int, frame: ScoreFrame, index: Int)?
    var loopEndFrame = ScoreFrame.start
    var loopWrapsLeft = 0                 // wraps still to make; -1 = forever
    var endFrame: ScoreFrame              // the song ends here (its length, or setEnd)
    var held: HeldNotes
    var chase: [Int16]                    // per destination × channel: 128 CCs, program, pitch bend, pressure
    var laneLast: [Int32]                 // per automation lane: the last step before the chase point
    var sync: SyncOutputs                 // MIDI clock and timecode

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
        score = MusicPlayer.Score(sequence, sampleRate: sampleRate)
        self.destinations = destinations
        trackDestination = trackDestinations ?? Array(repeating: 0, count: sequence.tracks.count)
        precondition(trackDestination.count == sequence.tracks.count && trackDestination.allSatisfy { destinations.indices.contains($0) })
        lookahead = Int64(destinations.map(\.schedulingLookahead).max() ?? 0)
        // Each its own buffer: arrays sharing one would copy it on the render thread at their first write.
        muted = Array(repeating: false, count: score.trackCount)
        soloed = Array(repeating: false, count: score.trackCount)
        held = HeldNotes(destinations: destinations.count)
        chase = Array(repeating: -1, count: destinations.count * 16 * 131)
        endFrame = score.endFrame
        self.parameters = parameters
        busInput = busInputs ?? Array(repeating: -1, count: destinations.count)
        precondition(busInput.count == destinations.count && (parameters != nil || busInput.allSatisfy { $0 < 0 }))
        laneLast = Array(repeating: -1, count: score.lanes.count)
        self.controllers = controllers
        ownedChannels = Array(repeating: 0, count: 128)
        for (controller, channels) in controllers?.owned ?? [] { ownedChannels[Int(controller & 0x7F)] |= channels }
        sectionChooser = sections
        sectionTicks = sections?.sectionStartTicks ?? []
        sectionFrames = sectionTicks.map(score.frame(atTick:))
        self.sync = SyncOutputs(sync, tempoMap: score.tempoMap, sampleRate: sampleRate)
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

    func send(_ command: Command) {
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
}
