/// The SoundFont 2.04 generators (section 8.1.2), by their numbers in the file, with the
/// default, range and level rules of section 8.1.3. Any thread.
public enum Generator: UInt16, CaseIterable, Sendable {
    case startAddressOffset = 0, endAddressOffset, startLoopAddressOffset, endLoopAddressOffset
    case startAddressCoarseOffset, modLFOToPitch, vibLFOToPitch, modEnvToPitch
    case initialFilterCutoff, initialFilterQ, modLFOToFilterCutoff, modEnvToFilterCutoff
    case endAddressCoarseOffset, modLFOToVolume, unused1, chorusSend
    case reverbSend, pan, unused2, unused3
    case unused4, modLFODelay, modLFOFrequency, vibLFODelay
    case vibLFOFrequency, modEnvDelay, modEnvAttack, modEnvHold
    case modEnvDecay, modEnvSustain, modEnvRelease, keyToModEnvHold
    case keyToModEnvDecay, volEnvDelay, volEnvAttack, volEnvHold
    case volEnvDecay, volEnvSustain, volEnvRelease, keyToVolEnvHold
    case keyToVolEnvDecay, instrument, reserved1, keyRange
    case velocityRange, startLoopAddressCoarseOffset, keyNumber, velocity
    case initialAttenuation, reserved2, endLoopAddressCoarseOffset, coarseTune
    case fineTune, sampleID, sampleModes, reserved3
    case scaleTuning, exclusiveClass, overridingRootKey, unused5

    /// How many generator numbers there are (0 to 59; 60 is the list's end). Any thread.
    public static let count = 60

    /// The value a zone has when neither it nor its global zone sets the generator. Any thread.
    public var defaultValue: Int16 {
        switch self {
        case .initialFilterCutoff: 13_500
        case .modLFODelay, .vibLFODelay, .modEnvDelay, .modEnvAttack, .modEnvHold, .modEnvDecay, .modEnvRelease,
             .volEnvDelay, .volEnvAttack, .volEnvHold, .volEnvDecay, .volEnvRelease: -12_000
        case .keyRange, .velocityRange: 127 << 8   // 0-127: the low byte first
        case .keyNumber, .velocity, .overridingRootKey: -1
        case .scaleTuning: 100
        default: 0
        }
    }

    /// The values the specification allows; a sum outside is clamped to it when a note
    /// plays. `nil` for ranges, indices and the unused numbers. Any thread.
    public var range: ClosedRange<Int32>? {
        switch self {
        case .modLFOToPitch, .vibLFOToPitch, .modEnvToPitch, .modLFOToFilterCutoff, .modEnvToFilterCutoff: -12_000...12_000
        case .initialFilterCutoff: 1_500...13_500
        case .initialFilterQ: 0...960
        case .modLFOToVolume: -960...960
        case .chorusSend, .reverbSend, .modEnvSustain: 0...1_000
        case .pan: -500...500
        case .modLFODelay, .vibLFODelay, .modEnvDelay, .modEnvHold, .volEnvDelay, .volEnvHold: -12_000...5_000
        case .modLFOFrequency, .vibLFOFrequency: -16_000...4_500
        case .modEnvAttack, .modEnvDecay, .modEnvRelease, .volEnvAttack, .volEnvDecay, .volEnvRelease: -12_000...8_000
        case .keyToModEnvHold, .keyToModEnvDecay, .keyToVolEnvHold, .keyToVolEnvDecay: -1_200...1_200
        case .volEnvSustain, .initialAttenuation: 0...1_440
        case .keyNumber, .velocity, .overridingRootKey: -1...127
        case .coarseTune: -120...120
        case .fineTune: -99...99
        case .scaleTuning: 0...1_200
        case .exclusiveClass: 0...127
        case .sampleModes: 0...3
        default: nil
        }
    }

    /// Whether only an instrument zone may set it (section 8.5): a preset zone's value is
    /// ignored. Sample offsets, the fixed key and velocity, sample modes, exclusive class and
    /// the root key. Any thread.
    public var isInstrumentOnly: Bool {
        switch self {
        case .startAddressOffset, .endAddressOffset, .startLoopAddressOffset, .endLoopAddressOffset,
             .startAddressCoarseOffset, .endAddressCoarseOffset, .startLoopAddressCoarseOffset, .endLoopAddressCoarseOffset,
             .keyNumber, .velocity, .sampleModes, .exclusiveClass, .overridingRootKey, .sampleID: true
        default: false
        }
    }

    /// Whether it is one of the numbers the specification leaves unused or reserved (a file's
    /// value there is ignored). Any thread.
    public var isUnused: Bool {
        switch self {
        case .unused1, .unused2, .unused3, .unused4, .unused5, .reserved1, .reserved2, .reserved3: true
        default: false
        }
    }
}

/// A zone's generators: the amount of each one the zone sets, and which it sets. Any thread.
public struct GeneratorSet: Hashable, Sendable {
    private var amounts = [Int16](repeating: 0, count: Generator.count)
    private var setMask: UInt64 = 0

    /// None set. Any thread.
    public init() {}

    /// The amount the zone gives `generator`, nil if it does not set it. Any thread.
    public subscript(generator: Generator) -> Int16? {
        get { setMask & (1 << generator.rawValue) != 0 ? amounts[Int(generator.rawValue)] : nil }
        set {
            if let newValue {
                amounts[Int(generator.rawValue)] = newValue
                setMask |= 1 << generator.rawValue
            } else {
                setMask &= ~(1 << generator.rawValue)
            }
        }
    }

    /// Writes the amount of each generator it sets over the value at its number in `values`.
    func overlay(onto values: UnsafeMutablePointer<Int32>) {
        var unread = setMask
        while unread != 0 {
            let number = unread.trailingZeroBitCount
            values[number] = Int32(amounts[number])
            unread &= unread - 1
        }
    }

    /// Adds to `values` what a preset zone with this set and `global` (its preset's global
    /// zone's) gives the generators `allowed` has a bit for: each one's amount here, else
    /// the global zone's.
    func add(over global: GeneratorSet?, allowed: UInt64, to values: UnsafeMutablePointer<Int32>) {
        let globalMask = global?.setMask ?? 0
        var unread = (setMask | globalMask) & allowed
        while unread != 0 {
            let number = unread.trailingZeroBitCount
            values[number] &+= Int32(setMask & (1 << number) != 0 ? amounts[number] : global!.amounts[number])
            unread &= unread - 1
        }
    }

    /// The generators it sets, in number order. Any thread.
    public var set: [Generator] { Generator.allCases.filter { setMask & (1 << $0.rawValue) != 0 } }

    /// The range a key or velocity range generator gives (low byte first), 0...127 when unset. Any thread.
    public func range(_ generator: Generator) -> ClosedRange<UInt8> {
        guard let amount = self[generator] else { return 0...127 }
        let bits = UInt16(bitPattern: amount)
        let low = UInt8(bits & 0xFF), high = UInt8(bits >> 8)
        return min(low, high)...max(low, high)
    }
}
