#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SoundFont generators the project's fonts use (SF2.04 section 8.1.2), with their
/// amounts in the spec's units. Any thread.
public enum SF2Generator: Sendable, Comparable {
    /// Key range (must come first in a zone). Any thread.
    case keyRange(UInt8, UInt8)
    /// Velocity range. Any thread.
    case velocityRange(UInt8, UInt8)
    /// Initial filter cutoff, absolute cents. Any thread.
    case filterCutoff(Int16)
    /// Initial filter resonance, centibels above the DC gain. Any thread.
    case filterQ(Int16)
    /// Chorus send, 0.1 % units. Any thread.
    case chorusSend(Int16)
    /// Reverb send, 0.1 % units. Any thread.
    case reverbSend(Int16)
    /// Pan, −500 (left) ... 500 (right). Any thread.
    case pan(Int16)
    /// Volume envelope attack, timecents. Any thread.
    case attack(Int16)
    /// Volume envelope hold, timecents. Any thread.
    case hold(Int16)
    /// Volume envelope decay, timecents. Any thread.
    case decay(Int16)
    /// Volume envelope sustain attenuation, centibels. Any thread.
    case sustain(Int16)
    /// Volume envelope release, timecents. Any thread.
    case release(Int16)
    /// Initial attenuation, centibels. Any thread.
    case attenuation(Int16)
    /// Coarse tune, semitones. Any thread.
    case coarseTune(Int16)
    /// Scale tuning, cents per key (100 normal, 0: every key at the root pitch). Any thread.
    case scaleTuning(Int16)
    /// Sample modes: 0 no loop, 1 loop continuously, 3 loop until release. Any thread.
    case sampleModes(Int16)
    /// Exclusive class (a new note cuts the others of the class). Any thread.
    case exclusiveClass(Int16)
    /// Overriding root key. Any thread.
    case rootKey(Int16)
    /// The instrument of a preset zone (written last by the file). Any thread.
    case instrument(Int)
    /// The sample of an instrument zone (written last by the file). Any thread.
    case sampleID(Int)
    /// Any other generator by its number in the spec (the LFOs' and the modulation
    /// envelope's, say), with its amount. Any thread.
    case other(Int, Int16)

    /// The generator's number in the spec.
    var operation: Int {
        switch self {
        case .keyRange: return 43
        case .velocityRange: return 44
        case .filterCutoff: return 8
        case .filterQ: return 9
        case .chorusSend: return 15
        case .reverbSend: return 16
        case .pan: return 17
        case .attack: return 34
        case .hold: return 35
        case .decay: return 36
        case .sustain: return 37
        case .release: return 38
        case .attenuation: return 48
        case .coarseTune: return 51
        case .scaleTuning: return 56
        case .sampleModes: return 54
        case .exclusiveClass: return 57
        case .rootKey: return 58
        case .instrument: return 41
        case .sampleID: return 53
        case .other(let operation, _): return operation
        }
    }

    /// Key range first, velocity range second, then by generator number; instrument and
    /// sample last — the order the spec requires. Any thread.
    public static func < (a: SF2Generator, b: SF2Generator) -> Bool { a.rank < b.rank }

    private var rank: Int {
        switch self {
        case .keyRange: return -2
        case .velocityRange: return -1
        case .instrument, .sampleID: return 1000
        default: return operation
        }
    }

    /// The generator's number and its 16-bit amount, as the file stores them (a range's low
    /// byte first). Any thread.
    public var record: (operation: Int, amount: UInt16) {
        switch self {
        case .keyRange(let lo, let hi), .velocityRange(let lo, let hi): return (operation, UInt16(lo) | UInt16(hi) << 8)
        case .instrument(let i), .sampleID(let i): return (operation, UInt16(truncatingIfNeeded: i))
        case .filterCutoff(let v), .filterQ(let v), .chorusSend(let v), .reverbSend(let v), .pan(let v), .attack(let v), .hold(let v),
             .decay(let v), .sustain(let v), .release(let v), .attenuation(let v), .coarseTune(let v),
             .scaleTuning(let v), .sampleModes(let v), .exclusiveClass(let v), .rootKey(let v), .other(_, let v):
            return (operation, UInt16(bitPattern: v))
        }
    }

    /// The 4-byte `sfGenList` record.
    var bytes: [UInt8] { le16(record.operation) + le16(Int(record.amount)) }

    /// Timecents for a time in seconds (1200 × log2 s), clamped to the 16-bit range. Any thread.
    public static func timecents(_ seconds: Double) -> Int16 {
        guard seconds > 0 else { return -32768 }
        return Int16(clamping: Int((1200 * log2(seconds)).rounded()))
    }
}

/// An instrument-level modulator (SF2.04 section 8.2): a source, optionally scaled by a second
/// source, added to a generator. Any thread.
public struct SF2Modulator: Sendable {
    /// Source operator (controller, curve, polarity, direction). Any thread.
    public var source: UInt16
    /// Destination generator number. Any thread.
    public var destination: UInt16
    /// Amount. Any thread.
    public var amount: Int16
    /// Amount source operator. Any thread.
    public var amountSource: UInt16

    /// Makes a modulator. Any thread.
    public init(source: UInt16, destination: UInt16, amount: Int16, amountSource: UInt16 = 0) {
        self.source = source
        self.destination = destination
        self.amount = amount
        self.amountSource = amountSource
    }

    /// Zero-amount copies of the default modulators that colour a test tone: velocity to filter
    /// cutoff, CC1 and channel pressure to vibrato, CC91 to reverb and CC93 to chorus. In an
    /// instrument zone each replaces its default (same sources and destination), so the zone
    /// sounds dry, unfiltered and steady whatever the controllers say. Any thread.
    public static let neutralizingDefaults: [SF2Modulator] = [
        SF2Modulator(source: 0x0102, destination: 8, amount: 0, amountSource: 0x0C02),   // velocity → filter (FluidSynth's form)
        SF2Modulator(source: 0x0102, destination: 8, amount: 0),                          // velocity → filter (SF2.01 form)
        SF2Modulator(source: 0x000D, destination: 6, amount: 0),                          // channel pressure → vibrato
        SF2Modulator(source: 0x0081, destination: 6, amount: 0),                          // CC1 → vibrato
        SF2Modulator(source: 0x00DB, destination: 16, amount: 0),                         // CC91 → reverb
        SF2Modulator(source: 0x00DD, destination: 15, amount: 0),                         // CC93 → chorus
    ]

    /// The 10-byte `sfModList` record.
    var bytes: [UInt8] { le16(source) + le16(destination) + le16(UInt16(bitPattern: amount)) + le16(amountSource) + le16(0) }
}

