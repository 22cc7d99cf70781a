import Engine
import MIDI
import Testing
import Playback
import Sequencing

/// A port stand-in: keeps what it is sent as `(time, bytes)`, and drops what was scheduled
/// from a flush's time on, as the kernel queue's removal does.
final class ClockPort: MIDIDestination, @unchecked Sendable {
    var events: [(time: SampleTime, bytes: [UInt8])] = []

    func schedule(_ event: ScheduledMIDI) {
        events.append((event.time, Array([event.status, event.data1, event.data2].prefix(1 + MIDIMessage.dataLength(afterStatus: event.status)))))
    }
    func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { events.append((time, [0xF0] + Array(data) + [0xF7])) }
    func flushScheduled(from time: SampleTime) { events.removeAll { $0.time >= time } }
    var schedulingLookahead: Int { 0 }

    /// What a receiving device makes of the stream, as the MIDI spec has it: Start sets the
    /// position to 0, Song Position Pointer to its 16th, and each clock while running plays
    /// the position it stands at (in 24ths of a quarter) and moves it on by one. Returns every
    /// clock with the position it played, and the transport messages in order.
    func received() -> (clocks: [(time: SampleTime, pulse: Int)], transport: [String]) {
        var running = false, position = 0
        var clocks: [(SampleTime, Int)] = []
        var transport: [String] = []
        for (time, bytes) in events {
            switch bytes[0] {
            case 0xF8:
                if running { clocks.append((time, position)); position += 1 }
            case 0xFA: running = true; position = 0; transport.append("start@\(time)")
            case 0xFB: running = true; transport.append("continue@\(time)")
            case 0xFC: running = false; transport.append("stop@\(time)")
            case 0xF2:
                position = (Int(bytes[1]) | Int(bytes[2]) << 7) * 6
                transport.append("spp \(position / 6)@\(time)")
            default: break
            }
        }
        return (clocks, transport)
    }
}

@Suite("MIDI clock out: 24 a quarter note on exact frames, with Start, Stop, Song Position Pointer and Continue")
struct MIDIClockTests {
    static let rate = 48_000

    /// Eight 4/4 bars of quarter notes at 480 ticks a quarter: 120 bpm, then 90 bpm from bar 5.
    static func song() -> MusicSequence {
        var tempo = MusicTrack()
        tempo.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))))
        tempo.insert(MIDIEvent(tick: 4 * 1920, .meta(.tempo(microsecondsPerQuarter: 666_667))))
        var track = MusicTrack(name: "Beat")
        for beat in 0..<32 {
            track.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: 60, velocity: 90)))
            track.insert(MIDIEvent(tick: beat * 480 + 240, .noteOff(channel: 0, note: 60, velocity: 0)))
        }
        track.length = 8 * 1920
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [track])
    }

    /// The exact frame of clock `pulse` of `song()` played at 100 %: 1,000 frames apart at 120
    /// bpm, 48,000 × 0.666667 / 24 = 1,333.334 frames apart at 90 bpm from pulse 384 (bar 5),
    /// rounded to the nearest frame (halves up).
    static func frame(ofPulse pulse: Int) -> Int64 {
        if pulse <= 384 { return Int64(pulse * 1000) }
        return Int64(384_000 + ((pulse - 384) * 1_333_334 + 500) / 1000)
    }

    /// Plays `song()` in cycles of `cycle` frames until `frames`, calling `at` before each cycle.
    static func play(frames: Int, cycle: Int = 512, at: (SampleTime, MusicPlayer) -> Void = { _, _ in }) -> ClockPort {
        let port = ClockPort()
        let player = MusicPlayer(sequence: song(), sampleRate: rate, destinations: [ClockPort()], sync: SyncDestinations(clock: [port]))
        player.start()
        var time: SampleTime = 0
        while time < frames {
            at(time, player)
            player.willRender(from: time, frames: cycle)
            time += SampleTime(cycle)
        }
        return port
    }

    @Test("across a tempo change: Start, every clock on its exact frame, 96 a bar, Stop at the end")
    func tempoChange() {
        let port = Self.play(frames: 1_400_000)
        let (clocks, transport) = port.received()
        #expect(transport == ["start@0", "stop@\(Self.frame(ofPulse: 768))"])
        #expect(clocks.count == 768)   // 8 bars × 96; the pulse on the song's end belongs to nothing
        let wrong = clocks.filter { $0.time != Self.frame(ofPulse: $0.pulse) }
        #expect(wrong.isEmpty, "first off its frame: \(wrong.first.map { "pulse \($0.pulse) at \($0.time)" } ?? "")")
        #expect(clocks.map(\.pulse) == Array(0..<768))
        for bar in 0..<8 {
            let (start, end) = (Self.frame(ofPulse: bar * 96), Self.frame(ofPulse: (bar + 1) * 96))
            #expect(clocks.filter { $0.time >= start && $0.time < end }.count == 96, "bar \(bar + 1)")
        }
        // Mean interval: 1,000 frames at 120 bpm, 1,333.33 at 90 bpm.
        let slow = clocks.filter { $0.pulse >= 384 }
        let mean = Double(slow.last!.time - slow.first!.time) / Double(slow.count - 1)
        #expect(abs(mean - 1_333.334) < 0.01, "\(mean)")
    }

    @Test("a seek between 16ths while playing: Stop, the next 16th's position, Continue, and clocks on from there in step")
    func seek() {
        // Beat 2 of bar 3 plus 100 ticks (a 16th is 120 ticks): the next 16th is number 37
        // (tick 4,440), 32 of them in the first two bars, 4 in the first beat.
        let seekTick = 2 * 1920 + 480 + 100
        let port = Self.play(frames: 300_000) { time, player in if time == 102_400 { player.seek(toTick: seekTick) } }
        let (clocks, transport) = port.received()
        #expect(transport == ["start@0", "stop@102400", "spp 37@102400", "continue@102400"])
        // Before the seek: pulses 0… on their frames. After: pulse 222 (16th 37) where the
        // song's tick 4,440 lands, counted from the seek's frame.
        let before = clocks.filter { $0.time < 102_400 }
        #expect(before.map(\.pulse) == Array(0..<before.count) && before.allSatisfy { $0.time == Self.frame(ofPulse: $0.pulse) })
        let after = clocks.filter { $0.time >= 102_400 }
        let seekFrame = Int64(seekTick) * 48_000 / 960   // 120 bpm: 50 frames a tick
        #expect(after.first?.pulse == 222)
        #expect(after.allSatisfy { $0.time == 102_400 + Self.frame(ofPulse: $0.pulse) - seekFrame })
        #expect(after.map(\.pulse) == Array(222..<222 + after.count))
    }

    @Test("pause sends Stop; play again sends the position and Continue, and the clocks resume in step")
    func pauseAndResume() {
        let port = Self.play(frames: 200_000) { time, player in
            if time == 50_176 { player.pause() }
            if time == 80_384 { player.start() }
        }
        let (clocks, transport) = port.received()
        // Paused at frame 50,176 (pulse 50 was the last sent, at 50,000); resumed at the next
        // 16th after it: pulse 54 (16th 9), whose frame is 3,824 frames after the pause point.
        #expect(transport == ["start@0", "stop@50176", "spp 9@80384", "continue@80384"])
        #expect(clocks.filter { $0.time < 50_176 }.map(\.pulse) == Array(0...50))
        let resumed = clocks.filter { $0.time >= 80_384 }
        #expect(resumed.first.map { ($0.pulse, $0.time) } ?? (0, 0) == (54, 80_384 + 54_000 - 50_176))
        #expect(resumed.allSatisfy { $0.time == 80_384 - 50_176 + Self.frame(ofPulse: $0.pulse) })
    }

    @Test("a loop wrap sends Stop, position 0 and Continue on the wrap's frame; each pass has all its clocks")
    func loopWrap() {
        let port = Self.play(frames: 400_000) { time, player in if time == 0 { player.setLoop(startTick: 0, endTick: 2 * 1920, count: 3) } }
        let (clocks, transport) = port.received()
        #expect(transport.prefix(7) == ["start@0", "stop@192000", "spp 0@192000", "continue@192000",
                                        "stop@384000", "spp 0@384000", "continue@384000"])
        for pass in 0..<2 {
            let these = clocks.filter { $0.time >= Int64(pass) * 192_000 && $0.time < Int64(pass + 1) * 192_000 }
            #expect(these.map(\.pulse) == Array(0..<192), "pass \(pass + 1)")
            #expect(these.allSatisfy { $0.time == Int64(pass) * 192_000 + Self.frame(ofPulse: $0.pulse) })
        }
    }

    @Test("a rate change re-times the clocks from there: no pulse lost or repeated, no transport message")
    func rateChange() {
        let port = Self.play(frames: 200_000) { time, player in if time == 40_960 { player.setRate(percent: 200) } }
        let (clocks, transport) = port.received()
        #expect(transport == ["start@0"])
        #expect(clocks.map(\.pulse) == Array(0..<clocks.count))
        // From frame 40,960 (score frame 40,960) on, 500 frames a pulse.
        #expect(clocks.allSatisfy { $0.time == ($0.pulse <= 40 ? Int64($0.pulse) * 1000 : 40_960 + (Int64($0.pulse) * 1000 - 40_960) / 2) })
    }
}

/// MIDI timecode as a receiver reads it: each run of eight quarter frames gives the time of
/// the frame its first piece was sent on, and the receiver shows that time plus two frames
/// once the eighth has come.
struct TimecodeReader {
    var pieces = [Int](repeating: -1, count: 8)
    /// Each complete time: when its last piece came and the time it shows, in seconds.
    var times: [(time: SampleTime, seconds: Double)] = []
    var fullFrames: [(time: SampleTime, label: SMPTETime)] = []

    init(_ port: ClockPort, rate: SMPTERate) {
        let (num, den) = rate.framesPerSecond
        for (time, bytes) in port.events {
            if bytes.count == 2 && bytes[0] == 0xF1 {
                let piece = Int(bytes[1] >> 4), value = Int(bytes[1] & 0xF)
                if piece == 0 { pieces = [Int](repeating: -1, count: 8) }
                pieces[piece] = value
                guard piece == 7, !pieces.contains(-1) else { continue }
                #expect(pieces[7] >> 1 == [SMPTERate.fps24, .fps25, .fps29_97Drop, .fps30].firstIndex(of: rate)!, "the rate bits")
                let label = SMPTETime(hours: pieces[6] | (pieces[7] & 1) << 4, minutes: pieces[4] | pieces[5] << 4,
                                      seconds: pieces[2] | pieces[3] << 4, frames: pieces[0] | pieces[1] << 4, rate: rate)
                times.append((time, Double(label.subframeCount / 100 + 2) * Double(den) / Double(num)))
            } else if bytes.count == 10 && bytes[0] == 0xF0 && bytes[1...4] == [0x7F, 0x7F, 0x01, 0x01] {
                #expect(Int(bytes[5] >> 5) == [SMPTERate.fps24, .fps25, .fps29_97Drop, .fps30].firstIndex(of: rate)!, "the rate bits")
                fullFrames.append((time, SMPTETime(hours: Int(bytes[5] & 0x1F), minutes: Int(bytes[6]), seconds: Int(bytes[7]), frames: Int(bytes[8]), rate: rate)))
            }
        }
    }
}

@Suite("MIDI timecode out: quarter frames at each rate, a full frame at every start and jump")
struct MIDITimecodeTests {
    /// Plays `MIDIClockTests.song()` (18.67 s: 8 s at 120 bpm, 10.67 s at 90) with timecode at `rate`,
    /// calling `at` before each 512-frame cycle.
    static func play(rate: SMPTERate, frames: Int, at: (SampleTime, MusicPlayer) -> Void = { _, _ in }) -> ClockPort {
        let port = ClockPort()
        let player = MusicPlayer(sequence: MIDIClockTests.song(), sampleRate: 48_000, destinations: [ClockPort()],
                            sync: SyncDestinations(timecode: [port], timecodeRate: rate))
        player.start()
        var time: SampleTime = 0
        while time < frames {
            at(time, player)
            player.willRender(from: time, frames: 512)
            time += 512
        }
        return port
    }

    @Test("at 24, 25, 29.97 drop-frame and 30: the decoded time is the song's time within one frame, all the way", arguments: SMPTERate.allCases)
    func rates(rate: SMPTERate) {
        let (num, den) = rate.framesPerSecond
        let frame = Double(den) / Double(num)
        let reader = TimecodeReader(Self.play(rate: rate, frames: 30 * 48_000), rate: rate)
        #expect(reader.fullFrames.map(\.label.description) == [SMPTETime(hours: 0, minutes: 0, seconds: 0, frames: 0, rate: rate).description])
        // The song lasts 8 + 16 × 0.666667 s: a time every two frames until then.
        let expected = Int((8 + 16 * 0.666_667) / (2 * frame))
        #expect(abs(reader.times.count - expected) <= 1, "\(reader.times.count) times, about \(expected) expected")
        let worst = reader.times.map { abs($0.seconds - Double($0.time) / 48_000) }.max() ?? .infinity
        #expect(worst <= frame, "worst \(worst * 1000) ms against a frame of \(frame * 1000) ms")
    }

    @Test("29.97 drop-frame across a minute: labels 00:01:00;00 and ;01 are skipped, the time still follows the song")
    func dropFrame() {
        // A long song: the minute boundary at 60 s of real frames 1,798.2.
        var track = MusicTrack(name: "Long")
        track.insert(MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 90)))
        track.insert(MIDIEvent(tick: 70 * 960, .noteOff(channel: 0, note: 60, velocity: 0)))
        let port = ClockPort()
        let player = MusicPlayer(sequence: MusicSequence(division: .ticksPerQuarter(480), tracks: [track]), sampleRate: 48_000, destinations: [ClockPort()],
                            sync: SyncDestinations(timecode: [port], timecodeRate: .fps29_97Drop))
        player.seek(toSeconds: 59)
        player.start()
        var time: SampleTime = 0
        while time < 3 * 48_000 {
            player.willRender(from: time, frames: 512)
            time += 512
        }
        let reader = TimecodeReader(port, rate: .fps29_97Drop)
        #expect(reader.fullFrames.first?.label.description == "00:00:58;28.00")   // frame 1,768.23… of real time 59 s
        let shown = reader.times.map { SMPTETime(seconds: $0.seconds, rate: .fps29_97Drop) }
        #expect(!shown.contains { $0.minutes == 1 && $0.seconds == 0 && $0.frames < 2 })
        #expect(shown.contains { $0.minutes == 1 && $0.seconds == 0 && $0.frames == 2 })
        let worst = reader.times.map { abs($0.seconds - 59 - Double($0.time) / 48_000) }.max() ?? .infinity
        #expect(worst <= 1001.0 / 30_000, "worst \(worst * 1000) ms")
    }

    @Test("a seek while playing: a full frame of the new position at once, then quarter frames from the next even frame, in step")
    func seek() {
        let port = Self.play(rate: .fps25, frames: 10 * 48_000) { time, player in if time == 102_400 { player.seek(toSeconds: 5.03) } }
        let reader = TimecodeReader(port, rate: .fps25)
        #expect(reader.fullFrames.map { "\($0.label)@\($0.time)" } == ["00:00:00:00.00@0", "00:00:05:00.00@102400"])
        // After the seek, song time = 5.03 s + (output time − 102,400) / 48,000.
        let after = reader.times.filter { $0.time >= 102_400 }
        #expect(!after.isEmpty)
        let worst = after.map { abs($0.seconds - (5.03 + Double($0.time - 102_400) / 48_000)) }.max() ?? .infinity
        #expect(worst <= 0.04, "worst \(worst * 1000) ms")
        // The first run after the seek starts on frame 126 (5.04 s), the next even frame.
        #expect(abs((after.first?.seconds ?? 0) - (126 + 2) * 0.04) < 1e-9)
    }
}
