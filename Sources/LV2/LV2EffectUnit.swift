import CLilv
import DSP

/// An LV2 plugin as an insert: instantiated through lilv at a sample rate, with the features
/// Pianola offers (urid:map and unmap, options with the sample rate and block lengths,
/// bounded block lengths, a worker), a preset's state restored when given, its audio ports on the bus — a stereo plugin once, a mono one
/// twice (one a side), one input and two outputs on the sum of the sides — and its control
/// inputs as parameters by symbol, which glide in 32-frame steps. Allocates only at init.
/// Render thread only, after `init` (but `parameters`).
public final class LV2EffectUnit: EffectUnit {
    /// The plugin. Any thread.
    public let plugin: LV2PluginInfo
    /// Its control inputs, by symbol, with their ranges and defaults. Any thread.
    public let parameters: [EffectParameter]
    /// What a render keeps going for after its input falls silent: its latency, and a second
    /// more for a plugin that may ring on (a delay, a reverb, one of no known class: LV2 has no
    /// way to say how long); a render goes on past it while the output still sounds. Any
    /// thread (read between renders).
    public var tailFrames: Int { latencyFrames + (plugin.rings ? sampleRate : 0) }
    private let instances: [LV2Instance]
    private let auxiliaries: [LV2AuxiliaryPorts]                // per instance: its atom, CV and side-chain ports
    private let controls: [UnsafeMutablePointer<Float>]          // per instance: a value per port
    private let inputs: [[UnsafeMutablePointer<Float>]]         // per instance: its audio inputs
    private let outputs: [[UnsafeMutablePointer<Float>]]        // per instance: its audio outputs
    private let controlPorts: [Int]                               // port index of each parameter
    private let latencyPort: Int?
    private var glides: [ParameterGlide]
    /// Another bus's audio fed to the plugin's side-chain inputs (a key: the music ducking
    /// under the sounds), nil: they hear silence. A mono plugin run once a side hears that
    /// side of the key; a stereo one with one key input hears the key's mid. Set on the
    /// control thread before the unit renders.
    public var key: SideChain?
    private let maxFrames: Int
    private let sampleRate: Int


    /// The parameters `plugin`'s control inputs make, by symbol, with their ranges and
    /// defaults; throws one line for a plugin Pianola cannot host as an effect (a feature or a
    /// port it does not give, audio ports a stereo bus cannot take). Any thread.
    public static func parameters(of plugin: LV2PluginInfo) throws(LV2Error) -> [EffectParameter] {
        let (ins, outs) = (plugin.audioInputs.count, plugin.audioOutputs.count)
        guard (1...2).contains(ins) && (1...2).contains(outs) else {
            if ins == 0 && plugin.takesMIDI { throw LV2Error(.argument, "LV2 plugin '\(plugin.name)' is an instrument (MIDI in, no audio in), not an effect") }
            throw LV2Error(.argument, "LV2 plugin '\(plugin.name)' has \(ins) audio inputs and \(outs) outputs; an effect on a stereo bus takes 1 or 2 of each")
        }
        try LV2Features.check(plugin)
        if let refusal = LV2AuxiliaryPorts.refusal(of: plugin) { throw LV2Error(.argument, refusal) }
        return plugin.controlInputs.map { port in
            let low = port.minimum.isNaN ? -Double(Float.greatestFiniteMagnitude) : Double(port.minimum)
            let high = port.maximum.isNaN ? Double(Float.greatestFiniteMagnitude) : Double(port.maximum)
            return EffectParameter(name: port.symbol, minimum: min(low, high), maximum: max(low, high),
                                   defaultValue: port.defaultValue.isNaN ? 0 : Double(port.defaultValue), summary: port.name)
        }
    }

    /// Instantiates `plugin` at `sampleRate` for slices of at most `maxFrames`, restores
    /// `preset`'s state (its URI) when given, and activates it; its worker works at once when
    /// `offline` (a render), else on a thread of its own. Throws one line for a plugin that
    /// needs a feature or port Pianola does not give, has audio ports it cannot put on a stereo
    /// bus, or fails to instantiate. Control thread.
    public init(_ plugin: LV2PluginInfo, sampleRate: Int, maxFrames: Int = 8_192, preset: String? = nil, offline: Bool = false) throws(LV2Error) {
        self.plugin = plugin
        self.sampleRate = sampleRate
        self.maxFrames = maxFrames
        parameters = try Self.parameters(of: plugin)
        let (ins, outs) = (plugin.audioInputs.count, plugin.audioOutputs.count)
        let copies = ins == 1 && outs == 1 ? 2 : 1
        controlPorts = plugin.controlInputs.map(\.index)
        glides = parameters.map { ParameterGlide($0.defaultValue, glide: .linear) }
        let made = try (0..<copies).map { _ throws(LV2Error) in
            try LV2Instance(plugin, sampleRate: sampleRate, maxFrames: maxFrames, offline: offline, state: preset)
        }
        instances = made
        let portCount = plugin.ports.count
        latencyPort = plugin.latencyPort
        controls = made.map { _ in
            let values = UnsafeMutablePointer<Float>.allocate(capacity: max(1, portCount))
            values.initialize(from: plugin.ports.map { $0.defaultValue.isNaN ? 0 : $0.defaultValue }, count: portCount)
            return values
        }
        func buffers(_ count: Int) -> [UnsafeMutablePointer<Float>] {
            (0..<count).map { _ in
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: maxFrames)
                buffer.initialize(repeating: 0, count: maxFrames)
                return buffer
            }
        }
        inputs = made.map { _ in buffers(ins) }
        outputs = made.map { _ in buffers(outs) }
        auxiliaries = made.map { LV2AuxiliaryPorts(plugin, instance: $0.pointer, maxFrames: maxFrames) }
        let signalInputs = Set(plugin.audioInputs.map(\.index))
        for (k, made) in made.enumerated() {
            let instance = made.pointer
            var (i, o) = (0, 0)
            for port in plugin.ports {
                switch port.kind {
                case .control: lilv_instance_connect_port(instance, UInt32(port.index), controls[k] + port.index)
                case .audio where signalInputs.contains(port.index):
                    lilv_instance_connect_port(instance, UInt32(port.index), inputs[k][i])
                    i += 1
                case .audio where !port.isInput:
                    lilv_instance_connect_port(instance, UInt32(port.index), outputs[k][o])
                    o += 1
                default: break   // LV2AuxiliaryPorts connected it (a side chain's input among them)
                }
            }
            made.activate(auxiliaries[k])
        }
    }

    deinit {
        for buffer in controls + inputs.joined() + outputs.joined() { buffer.deallocate() }
    }

    /// Frames of delay the plugin reports on its latency output (lv2:latency). Any thread (read between renders).
    public var latencyFrames: Int { latencyPort.map { Int(controls[0][$0]) } ?? 0 }

    /// Checks the format: the plugin was instantiated for its sample rate and block length. Control thread.
    public func prepare(sampleRate: Int, maxFrames: Int) {
        precondition(sampleRate == self.sampleRate && maxFrames <= self.maxFrames,
                     "LV2 plugin made for \(self.sampleRate) Hz and \(self.maxFrames) frames, prepared for \(sampleRate) Hz and \(maxFrames)")
    }

    /// Moves control input `index` (in `parameters`' order). Render thread only.
    public func setParameter(_ index: Int, to value: Double, rampFrames: Int) {
        guard glides.indices.contains(index) else { return }
        glides[index].move(to: min(max(value, parameters[index].minimum), parameters[index].maximum), frames: rampFrames)
        if !glides[index].isGliding { write(index) }
    }

    /// Runs whose output had a NaN or infinite sample, and was silenced (should stay 0).
    /// Render thread only.
    public private(set) var silencedRuns = 0

    /// Runs the plugin over `audio` in place (silence where its output had a NaN or infinite
    /// sample). Render thread only.
    public func process(_ audio: StereoSlice) {
        var done = 0
        while done < audio.frames {
            var count = min(audio.frames - done, maxFrames)
            if isGliding {
                count = min(count, Self.glideStep)
                for k in glides.indices {
                    for _ in 0..<count { _ = glides[k].advance() }
                    write(k)
                }
            }
            run(audio.dropFirst(done, count: count), keyOffset: done)
            done += count
        }
    }

    /// Frames between two control values along a glide.
    static let glideStep = 32

    private var isGliding: Bool {
        for k in glides.indices where glides[k].isGliding { return true }
        return false
    }

    private func write(_ index: Int) {
        let value = Float(glides[index].value)
        for k in controls.indices { controls[k][controlPorts[index]] = value }
    }

    private func run(_ audio: StereoSlice, keyOffset: Int) {
        let frames = audio.frames
        for k in auxiliaries.indices { auxiliaries[k].beforeRun() }
        if let key { feed(key, from: keyOffset, frames: frames) }
        switch (inputs[0].count, outputs[0].count, instances.count) {
        case (1, 1, _):
            inputs[0][0].update(from: audio.left, count: frames)
            inputs[1][0].update(from: audio.right, count: frames)
            instances[0].run(frames)
            instances[1].run(frames)
            audio.left.update(from: outputs[0][0], count: frames)
            audio.right.update(from: outputs[1][0], count: frames)
        case (1, _, _):
            for i in 0..<frames { inputs[0][0][i] = 0.5 * (audio.left[i] + audio.right[i]) }
            instances[0].run(frames)
            audio.left.update(from: outputs[0][0], count: frames)
            audio.right.update(from: outputs[0][1], count: frames)
        default:
            inputs[0][0].update(from: audio.left, count: frames)
            inputs[0][1].update(from: audio.right, count: frames)
            instances[0].run(frames)
            audio.left.update(from: outputs[0][0], count: frames)
            audio.right.update(from: outputs[0][outputs[0].count - 1], count: frames)
        }
        if silenceNonFinite(audio.left, audio.right, frames: frames) { silencedRuns += 1 }
        for k in auxiliaries.indices { auxiliaries[k].afterRun() }
    }

    /// Writes `frames` of `key`, from `offset` in its slice, into the side-chain inputs:
    /// a side each for two instances or two inputs, the mid for one input of one instance.
    private func feed(_ key: SideChain, from offset: Int, frames: Int) {
        let first = auxiliaries[0].keys
        guard !first.isEmpty else { return }
        if auxiliaries.count == 2 {
            guard !auxiliaries[1].keys.isEmpty else { return }
            key.copy(from: offset, count: frames, left: first[0], right: auxiliaries[1].keys[0])
        } else if first.count >= 2 {
            key.copy(from: offset, count: frames, left: first[0], right: first[1])
        } else {
            let mid = first[0], scratch = outputs[0][0]   // the output is written after the run
            key.copy(from: offset, count: frames, left: mid, right: scratch)
            for i in 0..<frames { mid[i] = 0.5 * (mid[i] + scratch[i]) }
        }
    }

    /// Forgets what the plugin has heard: deactivated and activated again (LV2's reset). Render thread only.
    public func reset() {
        for instance in instances { instance.reset() }
    }
}

#if canImport(Glibc)
import Glibc
#endif
