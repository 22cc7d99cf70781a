import AllocationCounter
import DSP
import Engine
import Foundation
import Testing

@Suite("Insert chains: effects on a bus, changed on the exact frame")
struct EffectChainTests {
    /// A low shelf at `gainDB`: at 0 Hz it scales by the gain, so a constant level shows it exactly.
    static func shelf(_ gainDB: Double) -> FilterEffect {
        let unit = FilterEffect(.lowShelf)
        unit.setParameter(2, to: gainDB, rampFrames: 0)
        return unit
    }

    @Test("the lock counter sees a lock taken (so zero below means zero)")
    func lockCounterWorks() {
        var mutex = pthread_mutex_t()
        pthread_mutex_init(&mutex, nil)
        pianola_allocations_start()
        pthread_mutex_lock(&mutex)
        pthread_mutex_unlock(&mutex)
        _ = pianola_allocations_stop()
        #expect(pianola_locks_taken() == 1)
        pthread_mutex_destroy(&mutex)
    }

    @Test("A parameter change lands on its frame, in the middle of a render slice")
    func exactFrame() {
        let out = MixerTests.render(inputs: [0.5], frames: 48_000) { mixer, _ in
            let shelf = mixer.inserts.append(Self.shelf(0))
            mixer.inserts.set(parameter: 2, ofEffect: shelf, to: -20, at: 1_000)
        }
        #expect(out.left[..<1_000].allSatisfy { $0 == 0.5 }, "the shelf at 0 dB passes the level untouched until frame 1000")
        #expect(out.left[1_000] < 0.5, "frame 1000 is the first changed")
        #expect(abs(out.left[47_999] - 0.05) < 1e-4 && out.left == out.right, "-20 dB at 0 Hz: 0.05 (\(out.left[47_999]))")
    }

    @Test("Bypass fades over 5 ms to the untouched input, and a unit brought back starts afresh")
    func bypass() {
        let sine = SineNode(5_000, amplitude: 0.5)
        let dry = MixerTests.render(nodes: [SineNode(5_000, amplitude: 0.5)], frames: 19_200) { _, _ in }
        let out = MixerTests.render(nodes: [sine], frames: 19_200) { mixer, _ in
            let lowpass = FilterEffect(.lowpass)
            lowpass.setParameter(0, to: 100, rampFrames: 0)
            let id = mixer.inserts.append(lowpass)
            mixer.inserts.setBypassed(true, effect: id, at: 4_800)
            mixer.inserts.setBypassed(false, effect: id, at: 9_600)
        }
        let filtered = out.left[2_400..<4_800].map(abs).max()!
        #expect(filtered < 1e-3, "5 kHz through a 100 Hz low-pass: \(filtered)")
        #expect(out.left[5_040..<9_600] == dry.left[5_040..<9_600], "bypassed: the input itself after 240 frames")
        // Filtered is all but silent here, so the output is the input rising with the fade.
        let fadeError = (4_800..<5_040).map { abs(out.left[$0] - Float($0 - 4_799) / 240 * dry.left[$0]) }.max()!
        #expect(fadeError < 2e-3, "a linear 240-frame fade from the filtered sound to the input (off by \(fadeError))")
        let steps = (4_801..<5_040).map { abs(out.left[$0] - out.left[$0 - 1]) }.max()!
        #expect(steps <= 0.33, "no step larger than the sine's own (\(steps))")
        #expect(out.left[12_000..<19_200].map(abs).max()! < 1e-3, "filtering again after it came back")
    }

    @Test("Removing a unit fades it out over 5 ms; the others keep their identities and their waiting changes")
    func removal() {
        let mixer = MixerNode()
        let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000))
        mixer.connect(ConstantNode(0.5))
        let first = mixer.inserts.append(Self.shelf(-20))
        let second = mixer.inserts.append(Self.shelf(-20))
        mixer.inserts.set(parameter: 2, ofEffect: first, to: 0, at: 30_000)
        #expect(mixer.inserts.ids == [first, second] && first != second)
        let buffer = AudioBuffer(capacity: 4_096)
        var out: [Float] = []
        for cycle in 0..<12 {
            if cycle == 4 {
                mixer.inserts.remove(second)
                #expect(mixer.inserts.ids == [first])
            }
            graph.render(into: buffer.slice(frames: 4_096))
            out += (0..<4_096).map { buffer.left[$0] }
        }
        mixer.collectDisconnected()
        let removedAt = 4 * 4_096
        #expect(abs(out[removedAt - 1] - 0.005) < 1e-5, "two shelves: 0.5 at -40 dB (\(out[removedAt - 1]))")
        // The second shelf fades from -20 dB to nothing over 240 frames: level 0.005 → 0.05 along a line.
        let fadeError = (0..<240).map { abs(out[removedAt + $0] - (0.005 + 0.045 * Float($0 + 1) / 240)) }.max()!
        #expect(fadeError < 1e-4, "a linear 240-frame fade out of the removed unit (off by \(fadeError))")
        #expect(out[removedAt + 240..<30_000].allSatisfy { abs($0 - 0.05) < 1e-4 }, "one shelf left after the fade")
        #expect(abs(out[11 * 4_096 + 4_095] - 0.5) < 1e-4, "the change waiting for the first unit reached it: \(out.last!)")
        let third = mixer.inserts.append(Self.shelf(-20))
        #expect(third.value == 2, "identities are not reused")
    }

    @Test("Automation reaches an effect on an input's bus (a stem's, a track's) on its frame, the bus connected in the same cycle")
    func automationOnAnInputBus() {
        let top = MixerNode()
        let graph = AudioGraph(root: top, format: AudioFormat(sampleRate: 48_000))
        let bus = MixerNode(capacity: 1)
        bus.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: 4_096)
        bus.connect(ConstantNode(0.5))
        bus.inserts.append(Self.shelf(0))
        let input = top.connect(bus)
        top.scheduleParameter(.effect(0, parameter: 2), of: .input(input), to: -20, at: 1_000, rampFrames: 0)
        let buffer = AudioBuffer(capacity: 48_000)
        graph.render(into: buffer.slice(frames: 48_000))
        #expect((0..<1_000).allSatisfy { buffer.left[$0] == 0.5 } && buffer.left[1_000] < 0.5, "the shelf turns down from frame 1,000")
        #expect(abs(buffer.left[47_999] - 0.05) < 1e-4, "to -20 dB: \(buffer.left[47_999])")
    }

    @Test("Every built-in effect (eight or more) gliding, changed, bypassed, removed and added allocate nothing and take no lock on the render thread")
    func noAllocation() {
        let mixer = MixerNode()
        let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000), maxFrames: 512)
        mixer.connect(SineNode(440, amplitude: 0.3))
        for effect in BuiltInEffect.all { mixer.inserts.append(effect.makeUnit()) }
        var ids = mixer.inserts.ids
        #expect(ids.count >= 8)
        let buffer = AudioBuffer(capacity: 512)
        var allocations = 0, locks = 0
        for cycle in 0..<1_000 {
            let time = graph.sampleTime + 100
            mixer.inserts.set(parameter: 0, ofEffect: ids[cycle % ids.count], to: Double(200 + cycle * 10), at: time, rampFrames: 300)
            mixer.inserts.set(parameter: 1, ofEffect: ids[(cycle + 3) % 8], to: 0.5 + Double(cycle % 5), at: time + 50)
            if cycle % 10 == 0 { mixer.inserts.setBypassed(cycle % 20 == 0, effect: ids[cycle % 8], at: time) }
            if cycle % 50 == 25 {   // one taken out (fading over the next cycle) and a fresh one put in
                mixer.inserts.remove(ids.removeLast())
                ids.append(mixer.inserts.append(BuiltInEffect.named("peak")!.makeUnit()))
            }
            if cycle >= 100 { pianola_allocations_start() }
            graph.render(into: buffer.slice(frames: 512))
            if cycle >= 100 {
                allocations += pianola_allocations_stop()
                locks += pianola_locks_taken()
            }
        }
        #expect(allocations == 0, "\(allocations) allocations in 900 render cycles")
        #expect(locks == 0, "\(locks) locks taken in 900 render cycles")
        let peak = (0..<512).map { abs(buffer.left[$0]) }.max()!
        #expect(peak > 0 && peak.isFinite, "the chain still passes sound (\(peak))")
    }
}

/// An effect that delays by `frames` and says so, as a look-ahead plugin does.
final class LaggingEffect: EffectUnit {
    let parameters: [EffectParameter] = []
    let latencyFrames: Int
    let tailFrames = 0
    private var line: [Float]
    private var lineRight: [Float]
    private var at = 0
    init(frames: Int) {
        latencyFrames = frames
        line = Array(repeating: 0, count: frames)
        lineRight = line
    }
    func prepare(sampleRate: Int, maxFrames: Int) {}
    func setParameter(_ index: Int, to value: Double, rampFrames: Int) {}
    func process(_ audio: StereoSlice) {
        for i in 0..<audio.frames {
            (line[at], audio.left[i]) = (audio.left[i], line[at])
            (lineRight[at], audio.right[i]) = (audio.right[i], lineRight[at])
            at = (at + 1) % latencyFrames
        }
    }
    func reset() {}
}

/// A click of 1 on frame 1,000, nothing else.
final class ClickNode: AudioNode, @unchecked Sendable {
    func prepare(format: AudioFormat, maxFrames: Int) {}
    func render(_ output: StereoSlice, at time: SampleTime) {
        output.clear()
        if (time..<time + SampleTime(output.frames)).contains(1_000) {
            output.left[Int(1_000 - time)] = 1
            output.right[Int(1_000 - time)] = 1
        }
    }
}

@Suite("Latency compensation where parallel paths meet")
struct LatencyCompensationTests {
    @Test("A bus lagging 300 frames (a look-ahead effect) and a direct input meet: one click of 2 on frame 1,300; the mixer reports the lag")
    func parallelPathsMeet() {
        let master = MixerNode()
        let graph = AudioGraph(root: master, format: AudioFormat(sampleRate: 48_000), maxFrames: 4_096)
        let lagging = MixerNode()
        lagging.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: 4_096)
        lagging.connect(ClickNode())
        lagging.inserts.append(LaggingEffect(frames: 300))
        master.connect(lagging)
        master.connect(ClickNode())
        let buffer = AudioBuffer(capacity: 4_096)
        var left: [Float] = []
        for _ in 0..<3 {
            graph.render(into: buffer.slice(frames: 777))
            left += UnsafeBufferPointer(start: buffer.left, count: 777)
        }
        let loud = left.indices.filter { left[$0] != 0 }
        #expect(loud == [1_300] && left[1_300] == 2, "clicks at \(loud.map { ($0, left[$0]) })")
        #expect(master.latencyFrames == 300 && lagging.latencyFrames == 300)
    }
}
