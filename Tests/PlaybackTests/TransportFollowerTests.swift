import Engine
import MIDI
import Testing
import Playback
import Sequencing
import TestSupport

@Suite("Following JACK's transport: waits while it stands, plays from its frame, pauses at its stop, moves when it is located")
struct TransportFollowerTests {
    /// Beat b of `ClockFollowerTests.song()` (120 bpm, 480 ticks a quarter) is at this frame.
    static func beatFrame(_ beat: Int) -> Int64 { Int64(beat) * 24_000 }

    /// Plays the song following a transport that `move` sets before each 256-frame cycle
    /// (given the cycle's output time); the note-ons and note-offs each beat's key got, with
    /// their output times, and the player's frames at a few output times.
    static func follow(cycles: Int, move: (SampleTime, TestTransport) -> Void) -> (ons: [(beat: Int, time: SampleTime)], offs: [SampleTime], follower: TransportFollower) {
        let out = ClockPort()
        let player = MusicPlayer(sequence: ClockFollowerTests.song(), sampleRate: 48_000, destinations: [out])
        let transport = TestTransport()
        let follower = TransportFollower(player: player, transport: transport)
        var time: SampleTime = 0
        for _ in 0..<cycles {
            move(time, transport)
            follower.willRender(from: time, frames: 256)
            player.willRender(from: time, frames: 256)
            if transport.rolling { transport.frame += 256 }
            time += 256
        }
        let ons = out.events.filter { $0.bytes[0] == 0x90 && $0.bytes[2] > 0 }.map { (beat: Int($0.bytes[1]) - 30, time: $0.time) }
        let offs = out.events.filter { $0.bytes[0] == 0x80 || ($0.bytes[0] == 0x90 && $0.bytes[2] == 0) || ($0.bytes[0] == 0xB0 && $0.bytes[1] == 123) }.map { $0.time }
        return (ons, offs, follower)
    }

    @Test("stands still until the transport rolls, then plays from its frame, between ticks too: each note at the output time its frame comes round, to the sample")
    func playsFromTheTransportFrame() {
        let located = Self.beatFrame(2) + 100   // just after beat 2: that beat is not played, beat 3 is
        let start: SampleTime = 20 * 256
        let run = Self.follow(cycles: 400) { time, transport in
            if time == start {
                transport.frame = located
                transport.rolling = true
            }
        }
        #expect(run.ons.first?.beat == 3)
        for (beat, time) in run.ons {
            #expect(time == start + SampleTime(Self.beatFrame(beat) - located), "beat \(beat) at \(time)")
        }
        let reached = located + Int64(400 * 256 - start)   // the transport's frame at the end
        #expect(run.ons.map(\.beat) == Array(3...47).filter { Self.beatFrame($0) < reached })
        #expect(run.follower.isRunning)
    }

    @Test("pauses when the transport stops (every note released), and goes on from where it is located: a locate while rolling moves the song there at once")
    func stopAndLocate() {
        let stop: SampleTime = 200 * 256, relocate: SampleTime = 300 * 256, jump: SampleTime = 500 * 256
        var stoppedAt: Int64 = 0
        let run = Self.follow(cycles: 700) { time, transport in
            switch time {
            case 0: transport.rolling = true
            case stop:
                transport.rolling = false
                stoppedAt = transport.frame
            case relocate:
                transport.frame = Self.beatFrame(10)
                transport.rolling = true
            case jump:
                transport.frame = Self.beatFrame(20) - 50
            default: break
            }
        }
        let beats = run.ons.map(\.beat)
        // Before the stop: beats from 0 while the transport's frame reaches them.
        let before = run.ons.filter { $0.time < stop }
        #expect(before.map(\.beat) == Array(0...Int(stoppedAt / 24_000)), "\(beats)")
        #expect(before.allSatisfy { $0.time == SampleTime(Self.beatFrame($0.beat)) })
        // Stopped: nothing starts, and what sounded is released at the stop.
        #expect(!run.ons.contains { $0.time >= stop && $0.time < relocate })
        #expect(run.offs.contains(stop), "a release at the stop")
        // Located at beat 10 and rolling: beats 10 on, each where its frame comes round.
        let after = run.ons.filter { $0.time >= relocate && $0.time < jump }
        #expect(after.first?.beat == 10)
        #expect(after.allSatisfy { $0.time == relocate + SampleTime(Self.beatFrame($0.beat) - Self.beatFrame(10)) }, "\(after)")
        // Located while rolling, 50 frames before beat 20: beat 20 comes 50 frames later.
        let jumped = run.ons.filter { $0.time >= jump }
        #expect(jumped.first?.beat == 20 && jumped.first?.time == jump + 50, "\(jumped)")
    }
}
