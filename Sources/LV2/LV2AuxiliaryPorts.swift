import CLilv

/// The ports of one instance that carry neither its bus's audio nor its controls, connected as
/// the plugin expects: each atom input an event sequence (empty, or the MIDI an instrument
/// plays), each atom output a chunk to write into, each CV input and side-chain input
/// silence, each CV output a scratch buffer. Allocates only at init. Render thread only, after
/// `init`.
final class LV2AuxiliaryPorts {
    /// Bytes of events one run's sequence can carry. Any thread.
    static let sequenceCapacity = 1 << 16
    /// Each atom input's port index and sequence, and each atom output's chunk (buffers, not
    /// arrays: the render thread walks them without touching an array's machinery).
    private let sequencePorts: [Int], sequences: UnsafeMutableBufferPointer<UnsafeMutableRawPointer>
    private let chunks: UnsafeMutableBufferPointer<UnsafeMutableRawPointer>
    private let signals: [UnsafeMutablePointer<Float>]
    /// The side-chain inputs' buffers, in port order: silence, or what a key writes into them. Render thread only.
    let keys: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>
    private let sequenceType = URIDMap.id("http://lv2plug.in/ns/ext/atom#Sequence")
    private let chunkType = URIDMap.id("http://lv2plug.in/ns/ext/atom#Chunk")

    /// Why `plugin` has a port that must be connected and that Pianola cannot connect (one
    /// line), or nil. Any thread.
    static func refusal(of plugin: LV2PluginInfo) -> String? {
        guard let port = plugin.ports.first(where: { $0.kind == .other && !$0.isOptional }) else { return nil }
        return "LV2 plugin '\(plugin.name)': its port '\(port.symbol)' is of a kind Pianola does not connect (not audio, control, CV or atom)"
    }

    /// Connects `plugin`'s atom, CV and side-chain ports of `instance` (runs of at most
    /// `maxFrames`) to buffers of their own; ports of another kind to nothing. Control thread.
    init(_ plugin: LV2PluginInfo, instance: UnsafeMutablePointer<LilvInstance>, maxFrames: Int) {
        /// A buffer of `frames` zeros, kept in `signals`.
        func silence(_ frames: Int, into signals: inout [UnsafeMutablePointer<Float>]) -> UnsafeMutablePointer<Float> {
            let signal = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            signal.initialize(repeating: 0, count: frames)
            signals.append(signal)
            return signal
        }
        func bytes(_ count: Int) -> UnsafeMutableRawPointer {
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
            buffer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
            return buffer
        }
        var sequencePorts: [Int] = [], sequences: [UnsafeMutableRawPointer] = [], chunks: [UnsafeMutableRawPointer] = []
        var signals: [UnsafeMutablePointer<Float>] = [], keyBuffers: [UnsafeMutablePointer<Float>] = []
        let keys = Set(plugin.sideChainInputs.map(\.index))
        for port in plugin.ports {
            let connected: UnsafeMutableRawPointer?
            switch port.kind {
            case .atom where port.isInput:
                connected = bytes(Self.sequenceCapacity + 16)
                sequencePorts.append(port.index)
                sequences.append(connected!)
            case .atom:
                connected = bytes(Self.sequenceCapacity)
                chunks.append(connected!)
            case .cv:
                connected = UnsafeMutableRawPointer(silence(maxFrames, into: &signals))
            case .audio where keys.contains(port.index):
                let key = silence(maxFrames, into: &signals)
                keyBuffers.append(key)
                connected = UnsafeMutableRawPointer(key)
            case .other: connected = nil
            default: continue
            }
            lilv_instance_connect_port(instance, UInt32(port.index), connected)
        }
        self.sequences = .allocate(capacity: sequences.count)
        _ = self.sequences.initialize(from: sequences)
        self.chunks = .allocate(capacity: chunks.count)
        _ = self.chunks.initialize(from: chunks)
        (self.sequencePorts, self.signals) = (sequencePorts, signals)
        self.keys = .allocate(capacity: keyBuffers.count)
        _ = self.keys.initialize(from: keyBuffers)
        for i in 0..<sequences.count { empty(sequences[i]) }
    }

    deinit {
        for buffer in sequences { buffer.deallocate() }
        for buffer in chunks { buffer.deallocate() }
        sequences.deallocate()
        chunks.deallocate()
        keys.deallocate()
        for buffer in signals { buffer.deallocate() }
    }

    /// The sequence connected to atom input `port`. Control thread.
    func sequence(ofPort port: Int) -> UnsafeMutableRawPointer? {
        sequencePorts.firstIndex(of: port).map { sequences[$0] }
    }

    /// Makes the outputs' chunks whole again for the next run. Render thread only.
    func beforeRun() {
        for i in 0..<chunks.count {
            chunks[i].storeBytes(of: UInt32(Self.sequenceCapacity - 8), toByteOffset: 0, as: UInt32.self)
            chunks[i].storeBytes(of: chunkType, toByteOffset: 4, as: UInt32.self)
        }
    }

    /// Empties every input's sequence after a run. Render thread only.
    func afterRun() {
        for i in 0..<sequences.count { empty(sequences[i]) }
    }

    /// Writes an empty atom:Sequence (frames as its unit) into `buffer`.
    private func empty(_ buffer: UnsafeMutableRawPointer) {
        buffer.storeBytes(of: UInt32(8), toByteOffset: 0, as: UInt32.self)          // atom.size: the body alone
        buffer.storeBytes(of: sequenceType, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: UInt32(0), toByteOffset: 8, as: UInt32.self)          // body.unit: frames
        buffer.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)
    }
}
