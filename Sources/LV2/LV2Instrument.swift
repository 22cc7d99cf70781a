import CLilv

/// An LV2 instrument (MDA Piano, JX10, setBfree, synthv1…): MIDI in through its atom input as
/// an event sequence with each message's frame offset, so every note lands on its exact frame;
/// its audio out in stereo: its one or two outputs, or its main output group's (pg:mainOutput,
/// as LSP's direct-out samplers name their mix), else every output summed, a side for those
/// designated left or right and both for the rest (DrumGizmo's microphones, AVL's kit pieces).
/// Its audio inputs, if it has any (synthv1 and its siblings do), hear silence. Its control
/// inputs stand at their defaults. Allocates only at init. Render thread only, after `init`.
public final class LV2Instrument {
    /// The plugin. Any thread.
    public let plugin: LV2PluginInfo
    private let lv2: LV2Instance
    private let controls: UnsafeMutablePointer<Float>
    private let outputs: [UnsafeMutablePointer<Float>]
    /// The outputs each side sums (buffers, not arrays: the render thread walks them).
    private let leftSources: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>
    private let rightSources: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>
    private let silence: UnsafeMutablePointer<Float>        // what its audio inputs hear
    private let auxiliary: LV2AuxiliaryPorts
    private let midiIn: UnsafeMutableRawPointer            // the MIDI input's atom:Sequence
    private let maxFrames: Int
    private var used = 0                                    // bytes of events in `midiIn`
    private let midiType = URIDMap.id("http://lv2plug.in/ns/ext/midi#MidiEvent")
    /// Bytes of MIDI events one run can carry. Any thread.
    public static let sequenceCapacity = LV2AuxiliaryPorts.sequenceCapacity
    /// MIDI messages dropped because a run's sequence was full (should stay 0). Render thread only.
    public private(set) var droppedEvents = 0
    /// Runs whose output had a NaN or infinite sample, and was silenced (should stay 0).
    /// Render thread only.
    public private(set) var silencedRuns = 0

    /// Instantiates `plugin` at `sampleRate` for runs of at most `maxFrames`, restores
    /// `preset`'s state (its URI) when given, and activates it; its worker works at once when
    /// `offline` (a render), else on a thread of its own. Throws one line for a plugin that
    /// takes no MIDI, has no audio output or more than two, needs a feature or port Pianola does
    /// not give, or fails to instantiate. Control thread.
    public init(_ plugin: LV2PluginInfo, sampleRate: Int, maxFrames: Int = 8_192, preset: String? = nil, offline: Bool = false) throws(LV2Error) {
        self.plugin = plugin
        self.maxFrames = maxFrames
        try Self.check(plugin)
        let midiPort = plugin.ports.first { $0.carriesMIDI && $0.isInput }!
        let outs = plugin.audioOutputs
        lv2 = try LV2Instance(plugin, sampleRate: sampleRate, maxFrames: maxFrames, offline: offline, state: preset)
        let instance = lv2.pointer
        controls = .allocate(capacity: max(1, plugin.ports.count))
        controls.initialize(from: plugin.ports.map { $0.defaultValue.isNaN ? 0 : $0.defaultValue }, count: plugin.ports.count)
        outputs = outs.map { _ in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: maxFrames)
            buffer.initialize(repeating: 0, count: maxFrames)
            return buffer
        }
        silence = .allocate(capacity: maxFrames)
        silence.initialize(repeating: 0, count: maxFrames)
        (leftSources, rightSources) = Self.sides(of: outs, buffers: outputs, plugin: plugin)
        auxiliary = LV2AuxiliaryPorts(plugin, instance: instance, maxFrames: maxFrames)
        midiIn = auxiliary.sequence(ofPort: midiPort.index)!
        var o = 0
        for port in plugin.ports {
            switch port.kind {
            case .control: lilv_instance_connect_port(instance, UInt32(port.index), controls + port.index)
            case .audio where !port.isInput:
                lilv_instance_connect_port(instance, UInt32(port.index), outputs[o])
                o += 1
            case .audio where !plugin.sideChainInputs.contains(port): lilv_instance_connect_port(instance, UInt32(port.index), silence)
            default: break
            }
        }
        lv2.activate(auxiliary)
    }

    /// The output buffers each side sums: `outs`' one or two, or those of the main output
    /// group when it has one or two, else all, by their designated side (both for none).
    private static func sides(of outs: [LV2Port], buffers: [UnsafeMutablePointer<Float>], plugin: LV2PluginInfo)
        -> (UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>) {
        var left: [UnsafeMutablePointer<Float>] = [], right: [UnsafeMutablePointer<Float>] = []
        let main = outs.indices.filter { outs[$0].isMainOutput }
        if outs.count <= 2 || (1...2).contains(main.count) {
            let used = outs.count <= 2 ? Array(outs.indices) : main
            (left, right) = ([buffers[used[0]]], [buffers[used[used.count - 1]]])
        } else {
            for (k, port) in outs.enumerated() {
                if port.side != .right { left.append(buffers[k]) }
                if port.side != .left { right.append(buffers[k]) }
            }
            if left.isEmpty { left = right } else if right.isEmpty { right = left }
        }
        let leftBuffer = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: left.count)
        let rightBuffer = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: right.count)
        _ = leftBuffer.initialize(from: left)
        _ = rightBuffer.initialize(from: right)
        return (leftBuffer, rightBuffer)
    }

    /// Throws one line when Pianola cannot play `plugin` as an instrument: it takes no MIDI,
    /// has no audio output, or needs a feature or port Pianola does not give. Any thread.
    public static func check(_ plugin: LV2PluginInfo) throws(LV2Error) {
        guard plugin.takesMIDI else { throw LV2Error(.argument, "LV2 plugin '\(plugin.name)' takes no MIDI: it is not an instrument") }
        guard !plugin.audioOutputs.isEmpty else {
            throw LV2Error(.argument, "LV2 plugin '\(plugin.name)' has no audio output: it plays no sound (a MIDI processor, not an instrument)")
        }
        try LV2Features.check(plugin)
        if let refusal = LV2AuxiliaryPorts.refusal(of: plugin) { throw LV2Error(.argument, refusal) }
    }

    deinit {
        controls.deallocate()
        silence.deallocate()
        leftSources.deallocate()
        rightSources.deallocate()
        for buffer in outputs { buffer.deallocate() }
    }

    /// Sets control input `symbol` to `value` (held to its range); throws one line for a
    /// symbol the plugin has not. Control thread, before rendering.
    public func set(_ symbol: String, to value: Double) throws(LV2Error) {
        guard let port = plugin.controlInputs.first(where: { $0.symbol == symbol }) ?? plugin.controlInputs.first(where: { $0.symbol.lowercased() == symbol.lowercased() }) else {
            throw LV2Error(.argument, "\(plugin.name) has no parameter '\(symbol)' (it has \(plugin.controlInputs.map(\.symbol).joined(separator: ", ")))")
        }
        var held = Float(value)
        if !port.minimum.isNaN { held = max(held, port.minimum) }
        if !port.maximum.isNaN { held = min(held, port.maximum) }
        controls[port.index] = held
    }

    /// Adds a MIDI message (1 to 3 bytes in `bytes`, or a sysex's, F0…F7) for the next run, at
    /// `frame` frames into it; messages go in time order. Render thread only.
    public func add(_ bytes: UnsafeRawBufferPointer, atFrame frame: Int) {
        let size = (16 + bytes.count + 7) & ~7
        guard used + size <= Self.sequenceCapacity, !bytes.isEmpty else {
            droppedEvents += 1
            return
        }
        let event = midiIn + 16 + used
        event.storeBytes(of: Int64(frame), toByteOffset: 0, as: Int64.self)
        event.storeBytes(of: UInt32(bytes.count), toByteOffset: 8, as: UInt32.self)
        event.storeBytes(of: midiType, toByteOffset: 12, as: UInt32.self)
        (event + 16).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        used += size
        midiIn.storeBytes(of: UInt32(8 + used), toByteOffset: 0, as: UInt32.self)
    }

    /// Writes the sum of `sources`' first `frames` into `output`.
    @inline(__always) private static func sum(_ sources: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>,
                                              into output: UnsafeMutablePointer<Float>, frames: Int) {
        output.update(from: sources[0], count: frames)
        for k in 1..<max(sources.count, 1) {
            let source = sources[k]
            for i in 0..<frames { output[i] += source[i] }
        }
    }

    /// Runs `frames` frames (at most `maxFrames`) with the messages added since the last run,
    /// writing its output into `left` and `right` (a mono instrument's to both, a many-output
    /// one's summed as `init` says; silence if it had a NaN or infinite sample). Render thread only.
    public func run(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        auxiliary.beforeRun()
        lv2.run(frames)
        Self.sum(leftSources, into: left, frames: frames)
        Self.sum(rightSources, into: right, frames: frames)
        if silenceNonFinite(left, right, frames: frames) { silencedRuns += 1 }
        auxiliary.afterRun()
        used = 0
    }
}
