import DSP
import Foundation
import Engine
import RenderHarness
import Testing

/// A node that plays a constant level on both sides.
final class ConstantNode: AudioNode, @unchecked Sendable {
    let level: Float
    init(_ level: Float) { self.level = level }
    func prepare(format: AudioFormat, maxFrames: Int) {}
    func render(_ output: StereoSlice, at time: SampleTime) {
        output.left.update(repeating: level, count: output.frames)
        output.right.update(repeating: level, count: output.frames)
    }
}

/// A node that plays a sine of the graph's clock, the same on both sides.
final class SineNode: AudioNode, @unchecked Sendable {
    let frequency: Double, amplitude: Double
    init(_ frequency: Double, amplitude: Double) {
        self.frequency = frequency
        self.amplitude = amplitude
    }
    func prepare(format: AudioFormat, maxFrames: Int) {}
    func render(_ output: StereoSlice, at time: SampleTime) {
        for i in 0..<output.frames {
            let phase: Double = 2 * Double.pi * frequency * Double(time + SampleTime(i)) / 48_000
            let v = Float(amplitude * sin(phase))
            output.left[i] = v
            output.right[i] = v
        }
    }
}

@Suite("The mixer: changes on the exact frame, fades without steps")
struct MixerTests {
    /// A graph of constant inputs into a mixer; returns it and its left and right output
    /// rendered in slices of `slice` frames after `schedule` has queued its changes.
    static func render(inputs levels: [Float], frames: Int, slice: Int = 777,
                       _ schedule: (MixerNode, [Int]) -> Void) -> (left: [Float], right: [Float]) {
        render(nodes: levels.map { ConstantNode($0) }, frames: frames, slice: slice, schedule)
    }

    static func render(nodes: [any AudioNode], frames: Int, slice: Int = 777,
                       _ schedule: (MixerNode, [Int]) -> Void) -> (left: [Float], right: [Float]) {
        let mixer = MixerNode()
        let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000), maxFrames: 4096)
        let slots = nodes.map { mixer.connect($0) }
        schedule(mixer, slots)
        let buffer = AudioBuffer(capacity: 4096)
        var left: [Float] = [], right: [Float] = []
        while left.count < frames {
            let part = buffer.slice(frames: min(slice, frames - left.count))
            graph.render(into: part)
            left += UnsafeBufferPointer(start: part.left, count: part.frames)
            right += UnsafeBufferPointer(start: part.right, count: part.frames)
        }
        return (left, right)
    }

    @Test("a volume change lands on its frame, whatever the slice size", arguments: [64, 777, 1000, 4096])
    func exactFrame(slice: Int) {
        let out = Self.render(inputs: [0.5], frames: 6_000, slice: slice) { mixer, slots in
            var half = MixerNode.InputSettings()
            half.volume = 0.5
            mixer.set(half, forInput: slots[0], at: 1_234)
            mixer.setOutputGain(2, at: 4_321)
        }
        #expect(out.left[..<1_234].allSatisfy { $0 == 0.5 })
        #expect(out.left[1_234..<4_321].allSatisfy { $0 == 0.25 })
        #expect(out.left[4_321...].allSatisfy { $0 == 0.5 })
        #expect(out.left == out.right)
    }

    @Test("solo: while one input is soloed only it sounds, from its frame; unsoloing brings the rest back; a bus is a mixer inside a mixer")
    func soloAndBuses() {
        let bus = MixerNode()
        let out = Self.render(nodes: [ConstantNode(0.5), ConstantNode(0.25), bus], frames: 9_000, slice: 1000) { mixer, slots in
            let drums = bus.connect(ConstantNode(0.125))
            var busHalf = MixerNode.InputSettings()
            busHalf.volume = 0.5
            bus.set(busHalf, forInput: drums)                 // bus: 0.0625
            var solo = MixerNode.InputSettings()
            solo.soloed = true
            mixer.set(solo, forInput: slots[1], at: 2_500)   // only 0.25
            mixer.set(solo, forInput: slots[2], at: 5_000)   // 0.25 + 0.0625
            mixer.set(MixerNode.InputSettings(), forInput: slots[1], at: 6_000)   // 0.0625
            mixer.set(MixerNode.InputSettings(), forInput: slots[2], at: 7_000)   // all again
            #expect(mixer.settings(ofInput: slots[2])?.soloed == false)
        }
        #expect(out.left[..<2_500].allSatisfy { $0 == 0.8125 })
        #expect(out.left[2_500..<5_000].allSatisfy { $0 == 0.25 })
        #expect(out.left[5_000..<6_000].allSatisfy { $0 == 0.3125 })
        #expect(out.left[6_000..<7_000].allSatisfy { $0 == 0.0625 })
        #expect(out.left[7_000...].allSatisfy { $0 == 0.8125 })
        #expect(out.left == out.right)
    }

    @Test("a fade is a straight line: every frame moves by the ramp's slope, and it ends exactly on its target")
    func smoothFade() {
        let out = Self.render(inputs: [0.5, 0.25], frames: 12_000) { mixer, slots in
            var silent = MixerNode.InputSettings()
            silent.volume = 0
            mixer.set(silent, forInput: slots[0], at: 2_000, rampFrames: 4_800)
        }
        let slope = Float(0.5) / 4_800
        #expect(out.left[..<2_000].allSatisfy { $0 == 0.75 })
        let fade = out.left[2_000...6_800]
        let steps = zip(fade, fade.dropFirst()).map { $0 - $1 }
        #expect(steps.allSatisfy { abs($0 - slope) < 1e-6 }, "largest step \(steps.map(abs).max()!), slope \(slope)")
        #expect(out.left[6_800...].allSatisfy { $0 == 0.25 })
    }

    @Test("pan: hard left silences the right side and keeps the left at full level; mute silences")
    func panAndMute() {
        let out = Self.render(inputs: [0.5, 0.25], frames: 3_000) { mixer, slots in
            var left = MixerNode.InputSettings()
            left.pan = -1
            mixer.set(left, forInput: slots[0], at: 1_000)
            var muted = MixerNode.InputSettings()
            muted.muted = true
            mixer.set(muted, forInput: slots[1], at: 2_000)
        }
        #expect(out.left[1_000..<2_000].allSatisfy { $0 == 0.75 })
        #expect(out.right[1_000..<2_000].allSatisfy { $0 == 0.25 })
        #expect(out.left[2_000...].allSatisfy { $0 == 0.5 })
        #expect(out.right[2_000...].allSatisfy { $0 == 0 })
    }

    @Test("the limiter keeps a +12 dB sum (four full-scale sines in phase) at or below 0 dBFS, gliding, 47 frames late")
    func limiter() {
        let loud = (0..<4).map { _ in SineNode(220, amplitude: 1) as any AudioNode }
        let open = Self.render(nodes: loud, frames: 24_000) { _, _ in }
        #expect(open.left.map(abs).max()! > 3.99, "the sum really is +12 dBFS")
        let limited = Self.render(nodes: loud, frames: 24_000) { mixer, _ in mixer.setLimiter(true) }
        #expect(limited.left.allSatisfy { abs($0) <= 1 } && limited.right.allSatisfy { abs($0) <= 1 })
        // Held down to the ceiling, it still sounds: the gain settles instead of pumping.
        #expect(limited.left[12_000...].map(abs).max()! > 0.9)
        let steps = zip(limited.left, limited.left.dropFirst()).map { abs($0 - $1) }
        #expect(steps.max()! < 0.1, "largest step \(steps.max()!)")
        // How hard it works, readable from any thread: about a quarter for a fourfold sum.
        let meter = MixerNode(metering: true)
        let graph = AudioGraph(root: meter, format: AudioFormat(sampleRate: 48_000), maxFrames: 4096)
        for node in loud { meter.connect(node) }
        meter.setLimiter(true)
        let buffer = AudioBuffer(capacity: 4096)
        for _ in 0..<4 { graph.render(into: buffer.slice(frames: 4096)) }
        #expect(abs(meter.limiterGain - 0.25) < 0.01, "lowest gain \(meter.limiterGain)")
        #expect(meter.meters.peak <= 1 && meter.meters.peak > 0.9)
        // A quiet click passes unchanged, one lookahead late.
        let mixer = MixerNode()
        #expect(mixer.limiterLatency == 47)
        let click = Self.render(inputs: [0.25], frames: 2_000) { mixer, _ in mixer.setLimiter(true) }
        #expect(click.left.firstIndex { $0 != 0 } == 47)
        #expect(click.left[47...].allSatisfy { $0 == 0.25 })
    }

    @Test("meters: the last cycle's peak and RMS, readable from any thread; none measured unless asked for")
    func meters() {
        let unmetered = MixerNode()
        let quiet = AudioGraph(root: unmetered, format: AudioFormat(sampleRate: 48_000), maxFrames: 4800)
        unmetered.connect(SineNode(1_000, amplitude: 0.5))
        let scratch = AudioBuffer(capacity: 4800)
        quiet.render(into: scratch.slice(frames: 4_800))
        withExtendedLifetime(scratch) { #expect(unmetered.meters == (0, 0)) }
        let mixer = MixerNode(metering: true)
        let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000), maxFrames: 4800)
        mixer.connect(SineNode(1_000, amplitude: 0.5))
        let buffer = AudioBuffer(capacity: 4800)
        graph.render(into: buffer.slice(frames: 4_800))
        let (peak, rms) = mixer.meters
        #expect(abs(peak - 0.5) < 1e-4)
        #expect(abs(rms - Float(0.5 / 2.0.squareRoot())) < 1e-3)
    }
}

@Suite("Mixer inputs while rendering")
struct MixerConnectionTests {
    @Test("a node connected and disconnected while rendering joins and leaves the mix, and is freed off the render thread")
    func connectWhileRendering() throws {
        let harness = try RenderHarness(RenderHarness.sequence(program: 0, notes: [(0, 4_800, 69)]))
        let mixer = harness.graph.root as! MixerNode
        _ = harness.render(frames: 4_800)
        weak var weakNode: ConstantNode?
        let input: Int
        do {
            let node = ConstantNode(0.25)
            weakNode = node
            input = mixer.connect(node)
        }
        let alone = try RenderHarness(RenderHarness.sequence(program: 0, notes: [(0, 4_800, 69)])).render(frames: 9_600)
        let mixed = harness.render(frames: 4_800)
        #expect(zip(mixed, alone[4_800...]).allSatisfy { abs($0 - ($1 + 0.25)) < 1e-6 })
        mixer.disconnect(input: input)
        let after = harness.render(frames: 4_800)
        #expect(after.allSatisfy { abs($0) < 0.2 })
        #expect(weakNode != nil, "still waiting in the mixer's return queue")
        mixer.collectDisconnected()
        #expect(weakNode == nil)
    }
}
