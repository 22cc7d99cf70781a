import Engine
import Sequencing
import MIDI
import Synchronization

/// Makes a player follow an external MIDI clock, as a drum machine slaved to a sequencer does:
/// it waits for Start or Continue and plays from the first clock after it, from the song's
/// start or the position Song Position Pointer set; it plays at the tempo the clock implies
/// (the interval between clocks, smoothed) and keeps its position locked to the clocks counted
/// since, nudging the rate by at most 5 % (a jump when it is half a beat out); Stop pauses it,
/// and so does a clock that stops coming for a second. A graph scheduler that runs before the
/// player's own cycle. Render thread, except as noted.
public final class ClockFollower: PlayerFollower, @unchecked Sendable {
    // @unchecked Sendable: `arrivals` is single-producer (the MIDI reader thread) single-consumer
    // (the render thread); the atomics are read by the control thread; the rest is the render thread's.

    /// One message as it arrived: its status, its Song Position Pointer value, and the output
    /// time (sample frames of the player's clock) it arrived at.
    private struct Arrival {
        var status: UInt8
        var position: Int32
        var time: SampleTime
    }

    private let player: MusicPlayer
    private let sampleRate: Int
    private let arrivals = SPSCQueue<Arrival>(capacity: 4096)
    private let standingDown = Atomic<Bool>(false)
    private let tempoBits = Atomic<UInt64>(0)
    private let runningFlag = Atomic<Bool>(false)

    // Render-thread state.
    private var masterRunning = false     // between Start/Continue and Stop
    private var waitingForClock = false   // Start or Continue came; the next clock begins play
    private var nextPulse = 0             // the master's position at its next clock, in 24ths of a quarter
    private var lastClock: (pulse: Int, time: SampleTime)?
    private var interval = 0.0            // frames between clocks, smoothed; 0 until measured
    private var pace = 1.0                // the measured interval over the song's written one at that pulse
    private var following = false         // the player plays in step
    private var scale = 1.0               // the rate scale given the player last

    /// MIDI clock's pulses a quarter note.
    private static let pulsesPerQuarter = 24.0
    /// How far the rate may be nudged to catch up: 5 %.
    private static let maximumNudge = 0.05
    /// Out by more than this many pulses (half a beat), the player jumps instead.
    private static let jumpPulses = 12.0
    /// Seconds without a clock after which the master counts as gone.
    private static let timeoutSeconds = 1.0

    /// Follows for `player`, whose output time runs at `sampleRate`; the player must not be
    /// started (the follower starts it when the master does). Control thread.
    public init(player: MusicPlayer, sampleRate: Int) {
        self.player = player
        self.sampleRate = sampleRate
    }

    /// A system message from the followed port (clock F8, Start FA, Continue FB, Stop FC,
    /// Song Position Pointer F2 with its two data bytes), arrived at output time `time`;
    /// others are ignored. The MIDI reader thread only (one thread).
    public func receive(status: UInt8, data1: UInt8, data2: UInt8, at time: SampleTime) {
        switch status {
        case 0xF8, 0xFA, 0xFB, 0xFC, 0xF2: break
        default: return
        }
        _ = arrivals.push(Arrival(status: status, position: Int32(data1 & 0x7F) | Int32(data2 & 0x7F) << 7, time: time))
    }

    /// Stops following for good: the player is left to the control thread. Control thread.
    public func standDown() { standingDown.store(true, ordering: .releasing) }

    /// The tempo the clock implies, in quarter notes a minute; `nil` until two clocks have
    /// come. Any thread.
    public var tempo: Double? {
        let bits = tempoBits.load(ordering: .relaxed)
        return bits == 0 ? nil : Double(bitPattern: bits)
    }

    /// Whether the master is running (between Start or Continue and Stop). Any thread.
    public var isRunning: Bool { runningFlag.load(ordering: .relaxed) }

    /// The clock's Start. Any thread.
    public var waitingFor: String { "the clock's Start" }

    /// The clock's tempo (`nil` until measured), from "clock". Any thread.
    public var followedTempo: (bpm: Double?, source: String)? { (tempo, "clock") }

    /// Brings the player into step for the cycle from `time`. Render thread only.
    public func willRender(from time: SampleTime, frames: Int) {
        guard !standingDown.load(ordering: .acquiring) else { return }
        while let arrival = arrivals.pop() { take(arrival, at: time) }
        runningFlag.store(masterRunning, ordering: .relaxed)
        guard masterRunning, !waitingForClock, let last = lastClock else { return }
        // Until measured (after Start, Continue or a new position): the written tempo there at
        // the pace the master last kept.
        if interval == 0 { interval = writtenInterval(atPulse: Double(last.pulse)) * pace }
        if Double(time - last.time) > Self.timeoutSeconds * Double(sampleRate) {
            // The master went quiet without a Stop.
            masterRunning = false
            runningFlag.store(false, ordering: .relaxed)
            pause(at: time)
            return
        }
        let master = Double(last.pulse) + Double(time - last.time) / interval
        guard following, let frame = player.playingFrame(at: time) else {
            jump(toPulse: master, at: time)
            return
        }
        let ours = player.score.tempoMap.beats(atSampleFrame: frame.frames, sampleRate: sampleRate) * Self.pulsesPerQuarter
        let error = master - ours
        if abs(error) > Self.jumpPulses {
            jump(toPulse: master, at: time)
            return
        }
        // At the clock's tempo, nudged to close the gap over about a beat.
        let nudge = min(Self.maximumNudge, max(-Self.maximumNudge, error / Self.pulsesPerQuarter))
        setScale(writtenInterval(atPulse: ours) / interval * (1 + nudge), at: time)
    }

    private func take(_ arrival: Arrival, at time: SampleTime) {
        switch arrival.status {
        case 0xFA:
            nextPulse = 0
            begin()
        case 0xFB:
            begin()
        case 0xFC:
            masterRunning = false
            waitingForClock = false
            lastClock = nil
            pause(at: time)
        case 0xF2:
            nextPulse = Int(arrival.position) * 6
            if masterRunning { begin() }   // moved while running: join again at the next clock
        default:   // F8
            if let last = lastClock, masterRunning {
                let gap = Double(arrival.time - last.time)
                if gap > 0 && (interval == 0 || gap < 4 * interval) { interval = interval == 0 ? gap : interval + 0.2 * (gap - interval) }
                if interval > 0 {
                    tempoBits.store((60 * Double(sampleRate) / (interval * Self.pulsesPerQuarter)).bitPattern, ordering: .relaxed)
                    pace = interval / writtenInterval(atPulse: Double(nextPulse))
                }
            }
            guard masterRunning else { return }
            lastClock = (nextPulse, arrival.time)
            nextPulse += 1
            waitingForClock = false
        }
    }

    /// Start, Continue, or a new position while running: play resumes at the next clock, its
    /// tempo measured again (the new position may have another written tempo than the last
    /// clocks': keeping their interval ran a follower a clock ahead after a seek across a tempo
    /// change), starting from the written tempo there at the pace the master kept.
    private func begin() {
        masterRunning = true
        waitingForClock = true
        lastClock = nil
        interval = 0
    }

    private func pause(at time: SampleTime) {
        guard following else { return }
        following = false
        player.pauseFollowing(at: time)
    }

    /// Plays from the master's position `pulse` at `time`, at the clock's tempo.
    private func jump(toPulse pulse: Double, at time: SampleTime) {
        let map = player.score.tempoMap
        player.playFollowing(fromTick: map.tick(atBeats: max(0, pulse) / Self.pulsesPerQuarter), at: time)
        following = true
        scale = 0
        setScale(writtenInterval(atPulse: pulse) / interval, at: time)
    }

    /// Frames between clocks at the song's written tempo at `pulse`.
    private func writtenInterval(atPulse pulse: Double) -> Double {
        let map = player.score.tempoMap
        let microseconds = map.segment(atTick: map.tick(atBeats: max(0, pulse) / Self.pulsesPerQuarter)).microsecondsPerQuarter
        return Double(microseconds) * Double(sampleRate) / (1e6 * Self.pulsesPerQuarter)
    }

    /// Gives the player `newScale` when it moved by more than a hundredth of a percent
    /// (each change re-anchors the player).
    private func setScale(_ newScale: Double, at time: SampleTime) {
        guard abs(newScale - scale) > 1e-4 * scale else { return }
        scale = newScale
        player.modulateRate(scale: newScale, at: time)
    }
}
