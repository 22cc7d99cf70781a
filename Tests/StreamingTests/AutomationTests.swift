import DSP
import AllocationCounter
import Engine
import Foundation
import MIDI
import Playback
import Sequencing
import Streaming
import Testing

/// Records what reaches it, so a test sees which controllers the bus took instead.
final class ControllerLog: MIDIDestination, @unchecked Sendable {
    var events: [ScheduledMIDI] = []
    func schedule(_ event: ScheduledMIDI) { events.append(event) }
    func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) {}
    func flushScheduled(from time: SampleTime) {}
    var schedulingLookahead: Int { 0 }
}

/// A song's bus with a constant 0.5 audio file on input 0, automated by a player.
struct AutomatedBus {
    let graph: AudioGraph
    let player: MusicPlayer
    let log = ControllerLog()
    let bench: Workbench

    /// 120 bpm for two beats, then 60 bpm; 480 ticks per quarter. `events` go on track 1.
    static func sequence(_ events: [MIDIEvent]) -> Sequencing.MusicSequence {
        var tempo = MusicTrack()
        tempo.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))))
        tempo.insert(MIDIEvent(tick: 960, .meta(.tempo(microsecondsPerQuarter: 1_000_000))))
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [MusicTrack(events: events, length: 4_800)])
    }

    init(_ events: [MIDIEvent], busInputs: [Int]? = nil) throws {
        bench = try Workbench()
        let path = try bench.wav("dc.wav", rate: 48_000, [Float](repeating: 0.5, count: 48_000 * 6))
        let bus = MixerNode()
        graph = AudioGraph(root: bus, format: AudioFormat(sampleRate: 48_000), maxFrames: 4096)
        bus.connect(try FilePlayerNode(path: path, sampleRate: 48_000))
        player = MusicPlayer(sequence: Self.sequence(events), sampleRate: 48_000, destinations: [log], parameters: bus, busInputs: busInputs)
        graph.add(player)
    }

    /// Both sides of the next `frames` frames, pulled in slices of 777.
    func render(_ frames: Int) -> (left: [Float], right: [Float]) {
        let buffer = AudioBuffer(capacity: 4096)
        var left: [Float] = [], right: [Float] = []
        while left.count < frames {
            let part = buffer.slice(frames: min(777, frames - left.count))
            graph.render(into: part)
            left += UnsafeBufferPointer(start: part.left, count: part.frames)
            right += UnsafeBufferPointer(start: part.right, count: part.frames)
            usleep(200)   // offline, faster than the file's reader thread
        }
        return (left, right)
    }
}

@Suite("Automation: parameter events and controllers setting the mixer")
struct AutomationTests {
    static func set(_ tick: Int, _ target: ParameterEvent.Target, _ parameter: ParameterEvent.Parameter,
                    _ value: Float, _ curve: ParameterEvent.Curve = .jump) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(ParameterEvent(target: target, parameter: parameter, value: value, curve: curve).meta))
    }

    /// Sets input 0 (the audio file).
    static func set(_ tick: Int, _ parameter: ParameterEvent.Parameter, _ value: Float, _ curve: ParameterEvent.Curve = .jump) -> MIDIEvent {
        set(tick, .input(0), parameter, value, curve)
    }

    // Frames at 48 kHz: tick 480 → 24,000; 960 → 48,000; 1,440 → 96,000; 1,920 → 144,000; 2,400 → 192,000.
    static let song = [
        set(0, .volume, 1),
        set(480, .volume, 0.25),                  // a step on beat 2
        set(960, .volume, 1, .linear),            // a line up to beat 3
        set(1_440, .pan, -1),                     // hard left, after the tempo change
        set(1_920, .pan, 1, .linear),             // a line through the centre to hard right
        set(2_400, .output, .volume, 0.5),        // the bus's own output
    ]

    @Test("steps land on their frame, lines are straight and smooth, pan lines bend at the centre, the output is automated too")
    func automationFollowsTheScore() throws {
        let bus = try AutomatedBus(Self.song)
        bus.player.start()
        let (left, right) = bus.render(200_000)
        #expect(left[23_999] == 0.5 && left[24_000] == 0.125)
        #expect(abs(left[36_000] - 0.5 * 0.625) < 1e-4)
        #expect(abs(left[47_999] - 0.5) < 1e-4 && left[48_000] == 0.5)
        let slope = 0.5 * 0.75 / 24_000
        let steps = (24_001..<48_000).map { abs(left[$0] - left[$0 - 1]) }
        #expect(steps.max()! <= Float(slope) * 1.01)
        #expect(right[95_999] == 0.5 && right[96_000] == 0 && left[96_000] == 0.5)
        #expect(abs(left[120_000] - 0.5) < 1e-3 && abs(right[120_000] - 0.5) < 1e-3)   // the centre: both full
        #expect(abs(right[108_000] - 0.25) < 1e-3 && abs(left[132_000] - 0.25) < 1e-3)
        #expect(left[144_000] == 0 && right[144_000] == 0.5)
        #expect(right[191_999] == 0.5 && right[192_000] == 0.25)
    }

    @Test("a seek into a line takes the line's value there and goes on along it; pause holds it")
    func chasedInsideALine() throws {
        let bus = try AutomatedBus(Self.song)
        bus.player.seek(toTick: 720)                 // halfway up the line: volume 0.625
        bus.player.start()
        let first = bus.render(6_000)
        #expect(abs(first.left[0] - 0.5 * 0.625) < 1e-4)
        bus.player.pause()
        let held = bus.render(10_000)
        #expect(held.left.allSatisfy { abs($0 - held.left[0]) < 1e-6 })
        let expected: Float = 0.5 * (0.625 + 0.75 * 6_000 / 24_000)
        #expect(abs(held.left[0] - expected) < 2e-3)
        bus.player.seek(toTick: 0)
        let back = bus.render(100)
        #expect(back.left[99] == 0.5)              // before the lane's events: unity again
    }

    @Test("a loop wrap inside a line starts the line again from the loop start's value")
    func loopWrap() throws {
        let bus = try AutomatedBus(Self.song)
        bus.player.setLoop(startTick: 720, endTick: 900, count: 3)   // a 9,000-frame loop inside the line
        bus.player.seek(toTick: 720)
        bus.player.start()
        let (left, _) = bus.render(27_000)
        for wrap in [9_000, 18_000] {
            #expect(abs(left[wrap] - 0.5 * 0.625) < 1e-4)
            let expected: Float = 0.5 * (0.625 + 0.75 * 8_999 / 24_000)
            #expect(abs(left[wrap - 1] - expected) < 1e-3)
        }
    }

    @Test("parameter events survive a Standard MIDI File, and the player does not report them as user events")
    func fileRoundTrip() throws {
        let sequence = AutomatedBus.sequence(Self.song)
        let read = MusicSequence(file: try MIDIFile(bytes: sequence.midiFile().serialized()))
        let events = read.tracks[1].events.compactMap { $0.message.parameterEvent }   // track 0: the file's tempo chunk
        #expect(events == Self.song.map { $0.message.parameterEvent! })
        #expect(ParameterEvent(.sequencerSpecific([0x7D, 0x50, 0x4E, 0x4C, 0, 9, 0, 0, 0, 0, 0])) == nil)   // no parameter 9
        let bus = try AutomatedBus(Self.song)
        bus.player.start()
        _ = bus.render(200_000)
        #expect(bus.player.pollEvents().allSatisfy { if case .userEvent = $0 { false } else { true } })
    }

    @Test("an input number out of range acts as the file stores it (-3 as input 0), and one past the mixer's inputs does nothing")
    func inputsOutOfRange() throws {
        let bus = try AutomatedBus([Self.set(480, .input(-3), .volume, 0.25), Self.set(960, .input(200), .volume, 0)])
        bus.player.start()
        let (left, _) = bus.render(60_000)
        #expect(left[23_999] == 0.5 && left[24_000] == 0.125 && left[59_999] == 0.125)
    }

    @Test("a track's CC7 and CC10 set its bus input's volume and pan on their frame, and never reach the synth")
    func controllersDriveTheBus() throws {
        let bus = try AutomatedBus([
            MIDIEvent(tick: 480, .controlChange(channel: 0, controller: 7, value: 64)),
            MIDIEvent(tick: 480, .controlChange(channel: 0, controller: 1, value: 99)),
            MIDIEvent(tick: 960, .controlChange(channel: 0, controller: 10, value: 0)),
        ], busInputs: [0])
        bus.player.start()
        let (left, right) = bus.render(60_000)
        #expect(left[23_999] == 0.5)
        #expect(abs(left[24_000] - 0.5 * Float(64 * 64) / Float(127 * 127)) < 1e-6)
        #expect(right[47_999] > 0 && right[48_000] == 0 && left[48_000] == left[24_000])
        #expect(bus.log.events.map(\.data1) == [1])   // the modulation wheel still goes to the synth
    }

    @Test("automation, its lines, chases at seeks and loop wraps allocate nothing on the render thread")
    func noAllocation() throws {
        let bus = try AutomatedBus(Self.song)
        bus.player.setLoop(startTick: 0, endTick: 2_600, count: 0)
        bus.player.start()
        let buffer = AudioBuffer(capacity: 256)
        bus.graph.render(into: buffer.slice(frames: 256))   // the file player's first cycle
        var allocations = 0
        for cycle in 0..<1_500 {
            if cycle % 300 == 150 { bus.player.seek(toTick: 700 + cycle) }
            pianola_allocations_start()
            bus.graph.render(into: buffer.slice(frames: 256))
            allocations += pianola_allocations_stop()
            usleep(100)
        }
        #expect(allocations == 0)
    }
}
