import DSP
import MIDI
import Synchronization

/// Sums its inputs with per-input volume, pan, mute and solo, then an output gain. An input
/// can be another mixer, which makes it a bus. Every change lands
/// on the sample frame it is given, at once or along a linear ramp (a fade). Inputs are
/// connected and disconnected while rendering: changes travel to the render thread through
/// a lock-free queue, and a disconnected node comes back through another queue to be released
/// off the render thread (`collectDisconnected`). Its sum passes through its insert chain
/// (`inserts`) before its output gain, as a console's bus does. A player on the render thread automates the
/// inputs' and the output's volume and pan on top of their settings (`scheduleParameter`).
/// Core Audio's multichannel mixer.
public final class MixerNode: AudioNode, ParameterDestination, LatencyReporting, @unchecked Sendable {
    // @unchecked Sendable: `inputs`, `scratch` and `outputGain` belong to the render thread
    // once rendering starts; the control thread talks to it only through the two queues.

    /// One input's settings. Any thread.
    public struct InputSettings: Hashable, Sendable {
        /// Linear gain. Any thread.
        public var volume: Float = 1
        /// −1 (left) ... 1 (right); 0 leaves both sides at full level. Any thread.
        public var pan: Float = 0
        /// Silences the input (it is still rendered, so it stays in time). Any thread.
        public var muted = false
        /// While any input of the mixer is soloed, only soloed inputs sound. Any thread.
        public var soloed = false

        /// Unity, centre, unmuted. Any thread.
        public init() {}

        /// The left and right gains these settings give, alone or beside a soloed input (pan
        /// keeps the near side at full level). Any thread.
        package func gain(anySoloed: Bool = false) -> StereoGain {
            muted || (anySoloed && !soloed) ? .silent : StereoGain(left: volume * min(1, 1 - pan), right: volume * min(1, 1 + pan))
        }
    }

    private enum Change {
        case connect(slot: Int, node: any AudioNode, gain: StereoGain, latent: (any LatencyReporting)?, delay: CompensationDelay?, chain: EffectChain?)
        case gain(slot: Int, GainTimeline.Change)      // slot -1: the output gain
        case disconnect(slot: Int)
        case limiter(Bool)
    }

    private var inputs: [(node: (any AudioNode)?, gain: GainTimeline, chain: EffectChain?)]   // chain: a bus input's inserts
    private var latencies: [(latent: (any LatencyReporting)?, delay: CompensationDelay?)]   // per input: who reports, and its compensation
    private var inputLatency = 0                  // the largest input latency in the last cycle
    /// The longest lag between inputs a mixer compensates (43 ms at 48 kHz; more is left as it
    /// is): 16 KB of delay line an input. Any thread.
    public static let maxCompensation = 2_047
    private let changes: SPSCQueue<Change>
    private let released: SPSCQueue<AnyObject>          // nodes and their compensating delays, let go of
    private var scratch: AudioBuffer?
    private var format: AudioFormat?
    private var maxFrames = 0
    private var outputGain = GainTimeline()
    private var automation: [Automation]          // per input, then the output's at the end
    private var limiter = PeakLimiter()
    private var limiting = false
    private let meterBits = Atomic<UInt64>(0)     // last cycle: peak and RMS (Float bits), both sides
    private let limiterGainBits = Atomic<UInt32>(Float(1).bitPattern)
    private var settings: [InputSettings?]       // control thread: each connected input's settings
    /// The effects the sum passes through before the output gain (and the limiter). Control
    /// thread for its changes.
    public let inserts = EffectChain()

    /// Whether `meters` are measured: a pass over every frame of every cycle, which a mixer
    /// whose meters nobody reads (an offline render) does without. Set before rendering.
    private let metering: Bool

    /// A mixer with room for `capacity` inputs, measuring its output for `meters` when
    /// `metering`. Control thread.
    public init(capacity: Int = 64, metering: Bool = false) {
        self.metering = metering
        inputs = (0..<capacity).map { _ in (nil, GainTimeline(), nil) }   // each its own list: a shared one would be copied on the render thread at its first change
        latencies = Array(repeating: (nil, nil), count: capacity)
        settings = Array(repeating: nil, count: capacity)
        automation = (0...capacity).map { _ in Automation() }
        changes = SPSCQueue(capacity: 256)
        released = SPSCQueue(capacity: 2 * capacity + 512)
    }

    /// Allocates the mixing buffer. Control thread, before rendering.
    public func prepare(format: AudioFormat, maxFrames: Int) {
        self.format = format
        self.maxFrames = maxFrames
        scratch = AudioBuffer(capacity: maxFrames)
        inserts.prepare(format: format, maxFrames: maxFrames)
    }

    /// Connects `node` (prepared here) to a free input and returns the input's number.
    /// Control thread.
    @discardableResult
    public func connect(_ node: any AudioNode, settings: InputSettings = InputSettings()) -> Int {
        guard let format, let slot = self.settings.firstIndex(where: { $0 == nil }) else {
            preconditionFailure("prepare the mixer before connecting; at most \(inputs.count) inputs")
        }
        node.prepare(format: format, maxFrames: maxFrames)
        let wasSoloed = anySoloed
        self.settings[slot] = settings
        // A node that may lag (a bus) reports it; every input gets room to be delayed to meet it.
        let latent = node as? any LatencyReporting
        send(.connect(slot: slot, node: node, gain: settings.gain(anySoloed: anySoloed), latent: latent,
                      delay: CompensationDelay(frames: Self.maxCompensation), chain: (node as? MixerNode)?.inserts))
        if anySoloed != wasSoloed { regain(at: nil, rampFrames: 0, except: slot) }
        return slot
    }

    /// The settings of input `input`, `nil` when nothing is connected there. Control thread.
    public func settings(ofInput input: Int) -> InputSettings? { settings[input] }

    private var anySoloed: Bool { settings.contains { $0?.soloed == true } }

    /// Sends every connected input but `except` the gain its settings give now (a solo changed).
    private func regain(at time: SampleTime?, rampFrames: Int, except: Int) {
        let soloing = anySoloed
        for (slot, input) in settings.enumerated() where slot != except {
            guard let input else { continue }
            send(.gain(slot: slot, GainTimeline.Change(time: time ?? .min, gain: input.gain(anySoloed: soloing), ramp: max(0, rampFrames))))
        }
    }

    /// Changes an input's volume, pan, mute or solo at sample time `time` (`nil`: at the start
    /// of the next render cycle), at once or over `rampFrames` frames; a change of solo moves
    /// the other inputs the same way. Control thread.
    public func set(_ settings: InputSettings, forInput input: Int, at time: SampleTime? = nil, rampFrames: Int = 0) {
        precondition(self.settings[input] != nil, "input \(input) is not connected")
        let wasSoloed = anySoloed
        self.settings[input] = settings
        if anySoloed != wasSoloed {
            regain(at: time, rampFrames: rampFrames, except: -1)
        } else {
            send(.gain(slot: input, GainTimeline.Change(time: time ?? .min, gain: settings.gain(anySoloed: anySoloed), ramp: max(0, rampFrames))))
        }
    }

    /// Disconnects an input; the node is released later by `collectDisconnected`. Control thread.
    public func disconnect(input: Int) {
        let wasSoloed = anySoloed
        settings[input] = nil
        send(.disconnect(slot: input))
        if anySoloed != wasSoloed { regain(at: nil, rampFrames: 0, except: -1) }
    }

    /// Sets the gain applied to the sum at sample time `time` (`nil`: the start of the next
    /// render cycle), at once or over `rampFrames` frames. Control thread.
    public func setOutputGain(_ gain: Float, at time: SampleTime? = nil, rampFrames: Int = 0) {
        send(.gain(slot: -1, GainTimeline.Change(time: time ?? .min, gain: StereoGain(left: gain, right: gain), ramp: max(0, rampFrames))))
    }

    /// Turns the master peak limiter on or off from the next render cycle: with it the output
    /// never passes 0 dBFS however loud the sum, at the price of `limiterLatency` frames of
    /// delay (1 ms). Control thread.
    public func setLimiter(_ enabled: Bool) { send(.limiter(enabled)) }

    /// Frames of delay the limiter adds while on. Any thread.
    public var limiterLatency: Int { PeakLimiter.defaultLookahead - 1 }

    /// Frames the output lags its inputs by: the most lagging input (the others are delayed to
    /// meet it), the inserts' reported latency, and the limiter's while on. Render thread only.
    public var latencyFrames: Int { inputLatency + inserts.renderLatency + (limiting ? limiterLatency : 0) }

    /// The output's peak (largest absolute sample of either side) and RMS (both sides) over the
    /// last render cycle, after the limiter; zeros unless made with `metering`. Any thread.
    public var meters: (peak: Float, rms: Float) {
        let bits = meterBits.load(ordering: .relaxed)
        return (Float(bitPattern: UInt32(bits >> 32)), Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
    }

    /// The smallest gain the limiter applied in the last render cycle (1 when it did nothing). Any thread.
    public var limiterGain: Float { Float(bitPattern: limiterGainBits.load(ordering: .relaxed)) }

    /// Releases the nodes and insert effects the render thread has let go of. Control thread.
    public func collectDisconnected() {
        while released.pop() != nil {}
        inserts.collectRemoved()
    }

    private func send(_ change: Change) {
        while !changes.push(change) {
            collectDisconnected()
            sched_yield()
        }
    }

    /// Mixes the inputs. Render thread only.
    public func render(_ output: StereoSlice, at time: SampleTime) {
        takeChanges()
        let frames = output.frames
        // A lone input at unity all through the cycle renders straight into the output: no copy, no sum.
        var live = 0, lone = -1, lag = 0
        for index in inputs.indices where inputs[index].node != nil {
            live += 1
            lone = index
            lag = max(lag, latencies[index].latent?.latencyFrames ?? 0)
        }
        inputLatency = min(lag, Self.maxCompensation)
        let out = automation.count - 1
        if live == 1, !limiting, let node = inputs[lone].node, inputs[lone].gain.isSteady(at: .unity, from: time, frames: frames),
           outputGain.isSteady(at: .unity, from: time, frames: frames), automation[lone].isUnity(from: time, frames: frames),
           automation[out].isUnity(from: time, frames: frames) {
            node.render(output, at: time)
            inserts.process(output, at: time)
            measure(output)
            return
        }
        output.clear()
        guard let scratch else { return }
        let part = scratch.slice(frames: frames)
        for index in inputs.indices {
            guard let node = inputs[index].node else { continue }
            node.render(part, at: time)
            // An input that lags less than the most lagging one waits for it.
            let behind = inputLatency - min(latencies[index].latent?.latencyFrames ?? 0, inputLatency)
            if behind > 0 { latencies[index].delay?.process(part, by: behind) }
            automation[index].apply(to: part, from: time)
            inputs[index].gain.process(from: time, frames: frames) { range, gain, step in
                if gain == .silent && step == .silent { return }
                for i in range {
                    let k = Float(i - range.lowerBound)
                    output.left[i] += part.left[i] * (gain.left + step.left * k)
                    output.right[i] += part.right[i] * (gain.right + step.right * k)
                }
            }
        }
        inserts.process(output, at: time)
        outputGain.scale(output, from: time)
        automation[out].apply(to: output, from: time)
        if limiting {
            limiter.process(output)
            limiterGainBits.store(limiter.takeLowestGain().bitPattern, ordering: .relaxed)
        }
        measure(output)
    }

    /// Takes the control thread's changes: inputs connected and gone, gains, the limiter.
    private func takeChanges() {
        while let change = changes.pop() {
            switch change {
            case .connect(let slot, let node, let gain, let latent, let delay, let chain):
                inputs[slot].node = node
                inputs[slot].chain = chain
                inputs[slot].gain.reset(to: gain)
                latencies[slot] = (latent, delay)
            case .gain(let slot, let change):
                if slot < 0 { outputGain.schedule(change) } else { inputs[slot].gain.schedule(change) }
            case .disconnect(let slot):
                if let node = inputs[slot].node { _ = released.push(node) }
                if let delay = latencies[slot].delay { _ = released.push(delay) }
                inputs[slot].node = nil
                inputs[slot].chain = nil
                latencies[slot] = (nil, nil)
                automation[slot].reset()
            case .limiter(let enabled):
                limiting = enabled
            }
        }
    }

    /// Sets an input's or the output's automated volume or pan, on top of its settings, or a
    /// parameter of an effect in its own insert chain (`.output`) or in an input's (a bus
    /// mixer's), from `time`. Render thread only (a player scheduling the cycle; before `render`).
    public func scheduleParameter(_ parameter: ParameterEvent.Parameter, of target: ParameterEvent.Target, to value: Float,
                                  at time: SampleTime, rampFrames: Int) {
        let index: Int
        switch target {
        case .output: index = automation.count - 1
        case .input(let n):
            guard n >= 0 && n < inputs.count else { return }
            index = n
        }
        if case .effect(let effect, let effectParameter) = parameter {
            takeChanges()   // an input connected since the last cycle brings its chain
            let chain = index == automation.count - 1 ? inserts : inputs[index].chain
            chain?.scheduleParameter(effectParameter, ofEffect: EffectChain.ID(effect), to: Double(value), at: time, rampFrames: max(0, rampFrames))
            return
        }
        automation[index].schedule(parameter, to: value, at: time, rampFrames: max(0, rampFrames))
    }

    /// Sets input `input`'s trim (a gain on top of its settings and automation: a game
    /// parameter's layer volume) to `gain` from `time`, at once or over `rampFrames` frames.
    /// Render thread only (before `render`).
    public func scheduleTrim(ofInput input: Int, to gain: Float, at time: SampleTime, rampFrames: Int) {
        guard input >= 0 && input < inputs.count else { return }
        automation[input].scheduleTrim(to: gain, at: time, rampFrames: max(0, rampFrames))
    }

    /// Publishes the cycle's peak and RMS.
    private func measure(_ output: StereoSlice) {
        guard metering else { return }
        var peak: Float = 0, squares: Float = 0
        for i in 0..<output.frames {
            let l = output.left[i], r = output.right[i]
            peak = max(peak, abs(l), abs(r))
            squares += l * l + r * r
        }
        let rms = output.frames > 0 ? (squares / Float(2 * output.frames)).squareRoot() : 0
        meterBits.store(UInt64(peak.bitPattern) << 32 | UInt64(rms.bitPattern), ordering: .relaxed)
    }
}

#if canImport(Glibc)
import Glibc
#endif
