import AllocationCounter
import FluidSynth
import Foundation
import SoundFontBook
import RenderHarness
import Testing
import Engine
import MIDI
import TestSupport
@testable import Playback
@testable import Sequencing

@Suite("The render thread's rules")
struct RealTimeTests {
    @Test("the counter sees an allocation (so zero below means zero)")
    func counterWorks() {
        pianola_allocations_start()
        let array = [Int](repeating: 1, count: Int.random(in: 100...200))
        let count = pianola_allocations_stop()
        #expect(array.count >= 100)
        #expect(count >= 1)
    }

    @Test("after warm-up, 1,000 render cycles with events, loop wraps, mute, solo, seek, jumps, transpose, rate, pause, MIDI clock, mixer fades and the limiter allocate nothing")
    func noAllocationWhileRendering() throws {
        // Sixteenth notes on two tracks with controllers, pitch bend and a sysex every bar.
        var notes = MusicTrack(events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))])
        var other = MusicTrack(events: [MIDIEvent(tick: 0, .programChange(channel: 1, program: 1))])
        for i in 0..<2000 {
            let tick = i * 120
            notes.insert(MIDIEvent(tick: tick, .noteOn(channel: 0, note: UInt8(48 + i % 24), velocity: 90)))
            notes.insert(MIDIEvent(tick: tick + 100, .noteOff(channel: 0, note: UInt8(48 + i % 24), velocity: 0)))
            other.insert(MIDIEvent(tick: tick, .controlChange(channel: 1, controller: 7, value: UInt8(i % 128))))
            other.insert(MIDIEvent(tick: tick + 60, .pitchBend(channel: 1, value: UInt16(i * 37 % 16384))))
            if i % 16 == 0 {
                other.insert(MIDIEvent(tick: tick, .sysex([0x7E, 0x7F, 0x09, 0x01, 0xF7])))
                other.insert(MIDIEvent(tick: tick + 10, .noteOn(channel: 1, note: 60, velocity: 80)))
                other.insert(MIDIEvent(tick: tick + 400, .noteOff(channel: 1, note: 60, velocity: 0)))
            }
        }
        let sequence = MusicSequence(division: .ticksPerQuarter(480), tracks: [notes, other])
        let clock = MessageCounter()
        let harness = try RenderHarness(sequence, reverb: true, maxFrames: 256, sync: SyncDestinations(clock: [clock], timecode: [clock]))
        harness.player.setLoop(startTick: 0, endTick: 480 * 8, count: 0)
        // Warm-up: every code path once (the Swift runtime fills its type caches on first use).
        let mixer = harness.graph.root as! MixerNode
        mixer.setLimiter(true)
        func transportChanges(_ round: Int) {
            // Mixer fades and exact-frame changes too, landing inside the next cycles.
            var settings = MixerNode.InputSettings()
            settings.volume = round % 2 == 0 ? 0.5 : 1
            settings.pan = round % 2 == 0 ? -0.5 : 0
            mixer.set(settings, forInput: 0, at: harness.graph.sampleTime + 300, rampFrames: 1_000)
            mixer.setOutputGain(round % 2 == 0 ? 0.8 : 1, at: harness.graph.sampleTime + 700)
            harness.player.setMuted(round % 2 == 0, track: 1)
            harness.player.setSoloed(round % 2 == 0, track: 0)
            harness.player.seek(toTick: 480 * (3 + round))
            harness.player.setTranspose(semitones: round)
            harness.player.setRate(percent: 100 + 25 * round)
            harness.player.pause()
            harness.player.start()
            harness.player.jump(toTick: 480 * (5 + round), at: harness.graph.sampleTime + 900)
        }
        for round in 0..<2 {
            _ = harness.render(frames: 24_000, slice: 256)
            transportChanges(round)
        }
        _ = harness.render(frames: 24_000, slice: 256)
        let buffer = harness.buffer
        // Only the render calls are counted: the control calls stand for another thread.
        var allocations = 0, openMP = 0
        let clockBefore = clock.count
        for cycle in 0..<1000 {
            if cycle % 250 == 100 { transportChanges(cycle / 250 + 2) }
            pianola_allocations_start()
            harness.graph.render(into: buffer.slice(frames: 256))
            allocations += pianola_allocations_stop()
            openMP += pianola_allocations_by_openmp()
        }
        #expect(allocations == 0, "\(allocations) allocations in 1,000 render cycles")
        // Debian's libfluidsynth renders inside an OpenMP region of one thread, and libgomp
        // allocates (and frees) that team on every call: a known limitation of that build,
        // reported here so it stays visible; the project's own code allocates nothing.
        print("render allocations: Pianola \(allocations), libgomp inside libfluidsynth \(openMP) in 1,000 cycles")
        #expect(harness.sampler.droppedEvents == 0)
        #expect(harness.sampler.synthesizer.activeVoiceCount > 0)
        #expect(clock.count - clockBefore > 500, "the clock ran: \(clock.count - clockBefore) messages")
    }
}

extension RealTimeTests {
    /// 400 beats of middle C at 480 ticks a quarter, for the followers to move about in.
    static func beats() -> MusicSequence {
        var track = MusicTrack()
        for beat in 0..<400 {
            track.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: 60, velocity: 90)))
            track.insert(MIDIEvent(tick: beat * 480 + 240, .noteOff(channel: 0, note: 60, velocity: 0)))
        }
        return MusicSequence(division: .ticksPerQuarter(480), tracks: [track])
    }

    @Test("following a clock (Start, 1,000 cycles of clocks at a drifting tempo, Stop, a new position, Continue) allocates nothing on the render thread")
    func followingAllocatesNothing() throws {
        let harness = try RenderHarness(Self.beats(), maxFrames: 256)
        let follower = ClockFollower(player: harness.player, sampleRate: 48_000)
        harness.graph.add(follower)
        var clockTime = 0.0
        /// Sends the clocks due before `time` (a clock every 950–1,050 frames), as the reader thread would.
        func clocks(until time: SampleTime) {
            while SampleTime(clockTime) < time - 512 {
                follower.receive(status: 0xF8, data1: 0, data2: 0, at: SampleTime(clockTime))
                clockTime += 1000 + 50 * sin(clockTime / 100_000)
            }
        }
        func cycles(_ count: Int, counting: Bool) -> Int {
            var allocations = 0
            for _ in 0..<count {
                clocks(until: harness.graph.sampleTime)
                if counting { pianola_allocations_start() }
                harness.graph.render(into: harness.buffer.slice(frames: 256))
                if counting { allocations += pianola_allocations_stop() }
            }
            return allocations
        }
        // Warm-up: every path once.
        for round in 0..<2 {
            follower.receive(status: 0xFA, data1: 0, data2: 0, at: harness.graph.sampleTime)
            _ = cycles(300, counting: false)
            follower.receive(status: 0xFC, data1: 0, data2: 0, at: harness.graph.sampleTime)
            follower.receive(status: 0xF2, data1: UInt8(8 + round), data2: 0, at: harness.graph.sampleTime)
            follower.receive(status: 0xFB, data1: 0, data2: 0, at: harness.graph.sampleTime)
            _ = cycles(100, counting: false)
        }
        var allocations = cycles(400, counting: true)
        follower.receive(status: 0xFC, data1: 0, data2: 0, at: harness.graph.sampleTime)
        follower.receive(status: 0xF2, data1: 40, data2: 0, at: harness.graph.sampleTime)
        follower.receive(status: 0xFB, data1: 0, data2: 0, at: harness.graph.sampleTime)
        allocations += cycles(600, counting: true)
        #expect(allocations == 0, "\(allocations) allocations in 1,000 render cycles")
        #expect(follower.isRunning && (follower.tempo ?? 0) > 100, "the follower ran: \(follower.tempo ?? 0) bpm")
    }
}

extension RealTimeTests {
    @Test("following a transport (rolling, stopped, located while stopped and while rolling, over 1,000 cycles) allocates nothing on the render thread")
    func followingTransportAllocatesNothing() throws {
        let harness = try RenderHarness(Self.beats(), maxFrames: 256)
        let transport = TestTransport()
        let follower = TransportFollower(player: harness.player, transport: transport)
        harness.graph.add(follower)
        /// `count` cycles, the transport moved before each as `move` says; the allocations counted.
        func cycles(_ count: Int, counting: Bool, move: (Int) -> Void = { _ in }) -> Int {
            var allocations = 0
            for cycle in 0..<count {
                move(cycle)
                if counting { pianola_allocations_start() }
                harness.graph.render(into: harness.buffer.slice(frames: 256))
                if counting { allocations += pianola_allocations_stop() }
                if transport.rolling { transport.frame += 256 }
            }
            return allocations
        }
        /// Rolls from `frame`, stops after 100 cycles, is located to 10 beats on while stopped,
        /// rolls again, and is located back 5 beats while rolling.
        func moves(from frame: Int64) -> (Int) -> Void {
            { cycle in
                switch cycle {
                case 0: (transport.frame, transport.rolling) = (frame, true)
                case 100: transport.rolling = false
                case 150: (transport.frame, transport.rolling) = (frame + 240_000, true)
                case 300: transport.frame -= 120_000
                default: break
                }
            }
        }
        _ = cycles(400, counting: false, move: moves(from: 0))   // warm-up: every path once
        let allocations = cycles(400, counting: true, move: moves(from: 2_400_000)) + cycles(600, counting: true)
        #expect(allocations == 0, "\(allocations) allocations in 1,000 render cycles")
        #expect(follower.isRunning)
    }
}

/// A destination that only counts what it is sent (allocating nothing itself).
final class MessageCounter: MIDIDestination, @unchecked Sendable {
    var count = 0
    func schedule(_ event: ScheduledMIDI) { count += 1 }
    func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { count += 1 }
    func flushScheduled(from time: SampleTime) {}
    var schedulingLookahead: Int { 0 }
}

extension RealTimeTests {
    @Test("notes on a DLS bank (libinstpatch's voices, through libfluidsynth) allocate nothing on the render thread after warm-up")
    func dlsVoicesAllocateNothing() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-realtime-\(getpid()).dls").path
        try Data(SoundFontBook.sineBank().serialized()).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        var configuration = FluidSynthesizer.Configuration()
        configuration.reverb = false
        let synthesizer = try FluidSynthesizer(configuration: configuration)
        _ = try synthesizer.loadSoundFont(path: path)
        var left = [Float](repeating: 0, count: 256), right = left
        var allocations = 0, peak: Float = 0
        for cycle in 0..<600 {
            let counting = cycle >= 100   // the first hundred warm up
            if counting { pianola_allocations_start() }
            synthesizer.noteOn(channel: 0, key: 48 + cycle % 24, velocity: 100)
            left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in synthesizer.render(left: l.baseAddress!, right: r.baseAddress!, frames: 256) } }
            synthesizer.noteOff(channel: 0, key: 48 + cycle % 24)
            if counting { allocations += pianola_allocations_stop() }
            peak = max(peak, left.map(abs).max() ?? 0)
        }
        #expect(allocations == 0, "\(allocations) allocations in 500 cycles of a DLS note each")
        #expect(peak > 0.05, "the bank sounds (peak \(peak))")
    }
}
