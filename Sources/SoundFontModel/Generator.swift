/// The SoundFont 2.04 generators (section 8.1.2), by their numbers in the file, with the
/// default, range and level rules of section 8.1.3. Any thread.
public enum Generator: UInt16, CaseIterable, Sendable {
    /// Generator 0: sample points added to the sample's start (fine part). Any thread.
    case startAddressOffset = 0
    /// Generator 1: sample points added to the sample's end (fine part). Any thread.
    case endAddressOffset
    /// Generator 2: sample points added to the loop's start (fine part). Any thread.
    case startLoopAddressOffset
    /// Generator 3: sample points added to the loop's end (fine part). Any thread.
    case endLoopAddressOffset
    /// Generator 4: 32,768-point steps added to the sample's start. Any thread.
    case startAddressCoarseOffset
    /// Generator 5: how far the modulation LFO moves the pitch, in cents. Any thread.
    case modLFOToPitch
    /// Generator 6: how far the vibrato LFO moves the pitch, in cents. Any thread.
    case vibLFOToPitch
    /// Generator 7: how far the modulation envelope moves the pitch, in cents. Any thread.
    case modEnvToPitch
    /// Generator 8: the low-pass filter's cutoff, in absolute cents (13,500: open). Any thread.
    case initialFilterCutoff
    /// Generator 9: the filter's resonance, in centibels above DC gain. Any thread.
    case initialFilterQ
    /// Generator 10: how far the modulation LFO moves the cutoff, in cents. Any thread.
    case modLFOToFilterCutoff
    /// Generator 11: how far the modulation envelope moves the cutoff, in cents. Any thread.
    case modEnvToFilterCutoff
    /// Generator 12: 32,768-point steps added to the sample's end. Any thread.
    case endAddressCoarseOffset
    /// Generator 13: how far the modulation LFO moves the level, in centibels. Any thread.
    case modLFOToVolume
    /// Generator 14: unused. Any thread.
    case unused1
    /// Generator 15: the share sent to the chorus, in 0.1 %. Any thread.
    case chorusSend
    /// Generator 16: the share sent to the reverb, in 0.1 %. Any thread.
    case reverbSend
    /// Generator 17: where the note sits, in 0.1 % from the centre (−500 left, 500 right). Any thread.
    case pan
    /// Generator 18: unused. Any thread.
    case unused2
    /// Generator 19: unused. Any thread.
    case unused3
    /// Generator 20: unused. Any thread.
    case unused4
    /// Generator 21: the modulation LFO's delay, in timecents. Any thread.
    case modLFODelay
    /// Generator 22: the modulation LFO's frequency, in absolute cents (0: 8.176 Hz). Any thread.
    case modLFOFrequency
    /// Generator 23: the vibrato LFO's delay, in timecents. Any thread.
    case vibLFODelay
    /// Generator 24: the vibrato LFO's frequency, in absolute cents. Any thread.
    case vibLFOFrequency
    /// Generator 25: the modulation envelope's delay, in timecents. Any thread.
    case modEnvDelay
    /// Generator 26: the modulation envelope's attack, in timecents. Any thread.
    case modEnvAttack
    /// Generator 27: the modulation envelope's hold, in timecents. Any thread.
    case modEnvHold
    /// Generator 28: the modulation envelope's decay, in timecents. Any thread.
    case modEnvDecay
    /// Generator 29: the modulation envelope's sustain, in 0.1 % below full. Any thread.
    case modEnvSustain
    /// Generator 30: the modulation envelope's release, in timecents. Any thread.
    case modEnvRelease
    /// Generator 31: timecents the modulation envelope's hold changes by per key from 60. Any thread.
    case keyToModEnvHold
    /// Generator 32: timecents the modulation envelope's decay changes by per key from 60. Any thread.
    case keyToModEnvDecay
    /// Generator 33: the volume envelope's delay, in timecents. Any thread.
    case volEnvDelay
    /// Generator 34: the volume envelope's attack, in timecents. Any thread.
    case volEnvAttack
    /// Generator 35: the volume envelope's hold, in timecents. Any thread.
    case volEnvHold
    /// Generator 36: the volume envelope's decay, in timecents. Any thread.
    case volEnvDecay
    /// Generator 37: the volume envelope's sustain, in centibels below full. Any thread.
    case volEnvSustain
    /// Generator 38: the volume envelope's release, in timecents. Any thread.
    case volEnvRelease
    /// Generator 39: timecents the volume envelope's hold changes by per key from 60. Any thread.
    case keyToVolEnvHold
    /// Generator 40: timecents the volume envelope's decay changes by per key from 60. Any thread.
    case keyToVolEnvDecay
    /// Generator 41: the instrument a preset zone plays (its index). Any thread.
    case instrument
    /// Generator 42: reserved. Any thread.
    case reserved1
    /// Generator 43: the keys the zone answers (low byte the lowest, high byte the highest). Any thread.
    case keyRange
    /// Generator 44: the velocities the zone answers (low byte the lowest, high byte the highest). Any thread.
    case velocityRange
    /// Generator 45: 32,768-point steps added to the loop's start. Any thread.
    case startLoopAddressCoarseOffset
    /// Generator 46: the key the zone plays as, whatever key is pressed (−1: the key pressed). Any thread.
    case keyNumber
    /// Generator 47: the velocity the zone plays at, whatever the note's (−1: the note's). Any thread.
    case velocity
    /// Generator 48: the level taken off, in centibels. Any thread.
    case initialAttenuation
    /// Generator 49: reserved. Any thread.
    case reserved2
    /// Generator 50: 32,768-point steps added to the loop's end. Any thread.
    case endLoopAddressCoarseOffset
    /// Generator 51: the pitch's shift, in semitones. Any thread.
    case coarseTune
    /// Generator 52: the pitch's shift, in cents. Any thread.
    case fineTune
    /// Generator 53: the sample an instrument zone plays (its index). Any thread.
    case sampleID
    /// Generator 54: how the sample loops: 0 not, 1 always, 3 until the key is released. Any thread.
    case sampleModes
    /// Generator 55: reserved. Any thread.
    case reserved3
    /// Generator 56: cents the pitch moves per key (100: equal temperament). Any thread.
    case scaleTuning
    /// Generator 57: a note of this class (not 0) cuts the channel's others of the same class. Any thread.
    case exclusiveClass
    /// Generator 58: the key the sample was recorded at, over its header's (−1: the header's). Any thread.
    case overridingRootKey
    /// Generator 59: unused. Any thread.
    case unused5

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
