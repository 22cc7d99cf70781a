import Engine
import MIDI
import Testing
import Playback
import Sequencing

@Suite("Following an external MIDI clock: start, tempo, stop, continue from a new position, a master gone quiet")
struct ClockFollowerTests {
    /// 48 beats at 480 ticks a quarter, written at 120 bpm (97 bpm from beat 16 when
    /// `slower`); beat b plays key 30 + b.
    static func song(slower: Bool = false) -> MusicSequence {
        var track = MusicTrack(name: "Beats")
        for beat in 0..<48 {
            track.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: UInt8(30 + beat), velocity: 90)))
            track.insert(MIDIEvent(tick: beat * 480 + 120, .noteOff(channel: 0, note: UInt8(30 + beat), velocity: 0)))
        }
        guard slower else { return MusicSequence(division: .ticksPerQuarter(480), tracks: [track]) }
        var tempo = MusicTrack(name: "Tempo")
        tempo.insert(MIDIEvent(tick: 16 * 480, .meta(.tempo(microsecondsPerQuarter: 618_557))))
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [track])
    }

    /// A master: what it sends, each message with the frame it is sent on.
    struct Master {
        var messages: [(time: SampleTime, bytes: [UInt8])] = []
        var time = 0.0        // frames
        var pulse = 0         // position of the next clock

        mutating func send(_ bytes: [UInt8]) { messages.append((SampleTime(time.rounded()), bytes)) }
        /// `count` clocks at `bpm`, the first now.
        mutating func clocks(_ count: Int, bpm: Double) {
            for _ in 0..<count {
                send([0xF8])
                pulse += 1
                time += 48_000 * 60 / (bpm * 24)
            }
        }
        /// The frame of each beat the master played: beat → time of its clock.
        var beatTimes: [Int: SampleTime] {
            var running = false, position = 0
            var result: [Int: SampleTime] = [:]
            for (time, bytes) in messages {
                switch bytes[0] {
                case 0xFA: running = true; position = 0
                case 0xFB: running = true
                case 0xFC: running = false
                case 0xF2: position = (Int(bytes[1]) | Int(bytes[2]) << 7) * 6
                default:
                    guard running else { continue }
                    if position % 24 == 0 { result[position / 24] = time }
                    position += 1
                }
            }
            return result
        }
    }

    /// Plays `song()` following `master`, each message reaching the follower when the render
    /// thread is `latency` frames past it (the audio device's lead); returns each beat's
    /// note-on frames (the last, if played twice).
    static func follow(_ master: Master, frames: Int, latency: SampleTime = 1024, song: MusicSequence = song()) -> (notes: [Int: SampleTime], follower: ClockFollower) {
        let out = ClockPort()
        let player = MusicPlayer(sequence: song, sampleRate: 48_000, destinations: [out])
        let follower = ClockFollower(player: player, sampleRate: 48_000)
        var next = 0
        var time: SampleTime = 0
        while time < frames {
            while next < master.messages.count && master.messages[next].time <= time - latency {
                let m = master.messages[next]
                follower.receive(status: m.bytes[0], data1: m.bytes.count > 1 ? m.bytes[1] : 0, data2: m.bytes.count > 2 ? m.bytes[2] : 0, at: m.time)
                next += 1
            }
            follower.willRender(from: time, frames: 256)
            player.willRender(from: time, frames: 256)
            time += 256
        }
        var notes: [Int: SampleTime] = [:]
        for (time, bytes) in out.events where bytes[0] == 0x90 && bytes[2] > 0 { notes[Int(bytes[1]) - 30] = time }
        return (notes, follower)
    }

    @Test("waits for Start; plays at the clock's tempo (130 bpm, then 100): every beat within a clock of the master's, within half a millisecond once settled")
    func tempo() {
        var master = Master()
        master.time = 20_000
        master.send([0xFA])
        master.clocks(16 * 24, bpm: 130)
        master.clocks(16 * 24, bpm: 100)
        let (notes, follower) = Self.follow(master, frames: 2_000_000)
        let beats = master.beatTimes
        #expect(notes.values.allSatisfy { $0 >= 20_000 }, "nothing before Start")
        #expect(abs((follower.tempo ?? 0) - 100) < 0.01, "\(follower.tempo ?? 0) bpm")
        // Beat 0 was due before the follower heard Start (1,024 frames later); from beat 1 on,
        // each beat against the master's clock for it.
        var errors: [Int: Int64] = [:]
        for beat in 1..<32 {
            guard let heard = notes[beat], let due = beats[beat] else { Issue.record("beat \(beat) missing"); continue }
            errors[beat] = heard - due
        }
        print("following, frames off the master's beat: " + errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        #expect(errors.values.allSatisfy { abs($0) <= 923 }, "within a clock (923 frames at 130 bpm)")
        let settled = errors.filter { (5..<16).contains($0.key) || (21..<32).contains($0.key) }
        #expect(settled.count == 22 && settled.values.allSatisfy { abs($0) <= 24 }, "settled: within 0.5 ms")
    }

    @Test("Stop pauses; Song Position Pointer then Continue plays on from that 16th on the next clock, in step")
    func stopAndContinue() {
        var master = Master()
        master.time = 10_000
        master.send([0xFA])
        master.clocks(8 * 24, bpm: 120)
        master.send([0xFC])
        master.time += 48_000
        master.send([0xF2, 16, 0])   // beat 4
        master.time += 24_000
        master.send([0xFB])
        master.clocks(8 * 24, bpm: 120)
        master.send([0xFC])
        let (notes, _) = Self.follow(master, frames: 1_400_000)
        let beats = master.beatTimes
        let stopped = master.messages.first { $0.bytes == [0xFC] }!.time
        // After the Continue: beats 5… on the master's clocks (beat 4 was due before it was heard).
        for beat in 5..<12 {
            guard let heard = notes[beat], let due = beats[beat] else { Issue.record("beat \(beat) missing"); continue }
            #expect(abs(heard - due) <= 92, "beat \(beat): \(heard) against \(due)")
            #expect(heard > stopped, "beat \(beat) was played after the pause")
        }
        // Beat 12 was due with the second Stop, before the follower could hear it.
        #expect(notes[13] == nil, "nothing after the second Stop")
    }

    @Test("Continue at a position whose written tempo differs from where the master stopped: in step from the first beat after it")
    func continueAcrossTempoChange() {
        var master = Master()
        master.time = 10_000
        master.send([0xFA])
        master.clocks(8 * 24, bpm: 120)
        master.send([0xFC])
        master.time += 48_000
        master.send([0xF2, 80, 0])   // beat 20, written at 97 bpm
        master.time += 24_000
        master.send([0xFB])
        master.clocks(8 * 24, bpm: 97)
        master.send([0xFC])
        let (notes, _) = Self.follow(master, frames: 1_600_000, song: Self.song(slower: true))
        let beats = master.beatTimes
        var errors: [Int: Int64] = [:]
        for beat in 21..<28 {
            guard let heard = notes[beat], let due = beats[beat] else { Issue.record("beat \(beat) missing"); continue }
            errors[beat] = heard - due
        }
        print("after Continue across a tempo change, frames off the master's beat: " + errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        #expect(errors.count == 7 && errors.values.allSatisfy { abs($0) <= 92 }, "within 2 ms of each beat")
    }

    @Test("a master that stops sending clock without Stop: the follower pauses within a second")
    func timeout() {
        var master = Master()
        master.send([0xFA])
        master.clocks(4 * 24, bpm: 120)   // 2 s, then silence
        let (notes, follower) = Self.follow(master, frames: 480_000)
        #expect(notes[3] != nil)
        #expect(notes.keys.allSatisfy { $0 <= 5 }, "no more than a second's worth after the last clock: \(notes.keys.sorted())")
        #expect(!follower.isRunning)
    }
}
