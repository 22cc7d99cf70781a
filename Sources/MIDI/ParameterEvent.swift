/// An automation event: set a mixer parameter of the song's bus (an input's volume or pan, or
/// the bus's own output volume) or a parameter of an effect in an insert chain (the song bus's
/// own, or an input's bus's) at this event's tick, at once or along a straight line from the
/// lane's previous event — Core Audio's parameter event. It is stored in a track as a
/// sequencer-specific meta event (`FF 7F 0B 7D 50 4E 4C target parameter curve value`:
/// manufacturer ID 7D, kept for non-commercial use, then "PNL", then the value as a big-endian
/// 32-bit float; an effect's adds its place in the chain and its parameter's index, 13 bytes),
/// so automation travels inside a Standard MIDI File and other programs skip it. Any thread.
public struct ParameterEvent: Hashable, Sendable {
    /// The parameters automation can set. Any thread.
    public enum Parameter: Hashable, Sendable {
        /// Linear gain, 0 and up (1 = unity). Any thread.
        case volume
        /// −1 (left) … 1 (right). Any thread.
        case pan
        /// Parameter `parameter` (its index, 0...255, as `pianola effects` lists them) of the
        /// effect added `effect`th (0...255) to the target's insert chain, in its own unit. Any thread.
        case effect(Int, parameter: Int)

        /// Its byte in the meta event.
        var code: UInt8 {
            switch self {
            case .volume: 0
            case .pan: 1
            case .effect: 2
            }
        }
    }

    /// What the event sets: one input of the song's bus, or the bus's output. Any thread.
    public enum Target: Hashable, Sendable {
        /// Input `n` (0...254) of the song's bus: 0 is the synthesizer, then what the song
        /// plays with (its audio files, its layers), in order. Any thread.
        case input(Int)
        /// The whole song's bus output. Any thread.
        case output
    }

    /// How the value is reached. Any thread.
    public enum Curve: UInt8, Hashable, Sendable {
        /// At once, on this event's frame.
        case jump = 0
        /// Along a straight line from the lane's previous event (a fade), arriving on this
        /// event's frame; the first event of a lane jumps.
        case linear = 1
    }

    /// The input or output set. Any thread.
    public var target: Target
    /// The parameter set. Any thread.
    public var parameter: Parameter
    /// The value: a gain for volume, −1…1 for pan. Any thread.
    public var value: Float
    /// At once or along a line. Any thread.
    public var curve: Curve

    /// An event setting `parameter` of `target` to `value`. Any thread.
    public init(target: Target, parameter: Parameter, value: Float, curve: Curve = .jump) {
        self.target = target
        self.parameter = parameter
        self.value = switch parameter {
        case .pan: min(1, max(-1, value))
        case .volume: max(0, value)
        case .effect: value
        }
        self.curve = curve
    }

    /// The event a meta event stores, `nil` when it is anything else. Any thread.
    public init?(_ meta: MetaEvent) {
        guard case .sequencerSpecific(let d) = meta, d.count == 11 || d.count == 13, Array(d[0..<4]) == ParameterEvent.signature,
              let curve = Curve(rawValue: d[6]) else { return nil }
        let parameter: Parameter
        switch (d[5], d.count) {
        case (0, 11): parameter = .volume
        case (1, 11): parameter = .pan
        case (2, 13): parameter = .effect(Int(d[11]), parameter: Int(d[12]))
        default: return nil
        }
        let value = Float(bitPattern: d[7...10].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard value.isFinite else { return nil }
        self.init(target: d[4] == 255 ? .output : .input(Int(d[4])), parameter: parameter, value: value, curve: curve)
    }

    /// The meta event that stores it. Any thread.
    public var meta: MetaEvent {
        let bits = value.bitPattern
        let target: UInt8 = switch self.target {
        case .output: 255
        case .input(let n): UInt8(clamping: min(n, 254))
        }
        var bytes = ParameterEvent.signature + [target, parameter.code, curve.rawValue,
                                                UInt8(bits >> 24), UInt8((bits >> 16) & 0xFF), UInt8((bits >> 8) & 0xFF), UInt8(bits & 0xFF)]
        if case .effect(let effect, let index) = parameter { bytes += [UInt8(clamping: effect), UInt8(clamping: index)] }
        return .sequencerSpecific(bytes)
    }

    /// Manufacturer ID 7D (non-commercial) and "PNL".
    static let signature: [UInt8] = [0x7D, 0x50, 0x4E, 0x4C]
}

extension ParameterEvent.Target {
    /// The target as the meta event stores it (an input past 254 is 254). Any thread.
    public var stored: Self {
        switch self {
        case .output: .output
        case .input(let n): .input(min(max(n, 0), 254))
        }
    }
}

extension MIDIMessage {
    /// The automation event this message stores, `nil` for any other message. Any thread.
    public var parameterEvent: ParameterEvent? {
        if case .meta(let meta) = self { return ParameterEvent(meta) }
        return nil
    }
}
