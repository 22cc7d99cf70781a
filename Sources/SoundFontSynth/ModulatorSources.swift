import SoundFontModel
#if canImport(Glibc)
import Glibc
#endif

/// A modulator's sources read and mapped as libfluidsynth maps them (section 8.2): the value
/// over its range (128 for a 7-bit controller, 16384 for the wheel), then its direction,
/// polarity and curve: linear, concave, convex (libfluidsynth's 128-step tables, interpolated)
/// or switch. Any thread.
enum ModulatorSources {
    /// The concave curve at 0...127: 0 at 0, 1 at 127, a fall of 96 dB in the middle steps.
    /// Made on first use (a voice's making touches it off the render thread); read-only after.
    nonisolated(unsafe) static let concave: UnsafePointer<Float> = curve(concave: true)
    /// The default velocity-to-filter modulator, whose like libfluidsynth leaves out.
    static let velocityToFilter = Modulator.defaults[1]
    /// The convex curve, its mirror.
    nonisolated(unsafe) static let convex: UnsafePointer<Float> = curve(concave: false)

    private static func curve(concave: Bool) -> UnsafePointer<Float> {
        let table = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        table.initialize(repeating: 0, count: 128)
        table[127] = 1
        for i in 1..<127 {
            let x = (-200 * 2 / 960) * log10(Double(i) / 127)
            if concave { table[127 - i] = Float(x) } else { table[i] = Float(1 - x) }
        }
        return UnsafePointer(table)
    }

    /// `table` at `x` in 0...127, interpolated between its steps, held at its ends.
    private static func look(_ table: UnsafePointer<Float>, _ x: Float) -> Float {
        if x < 0 { return 0 }
        let i = Int(x)
        if i >= 127 { return table[127] }
        return table[i] + (table[i + 1] - table[i]) * (x - Float(i))
    }

    /// The raw value and range of `source` for a note of `key` at `velocity` on a channel at `controllers`.
    private static func raw(_ source: UInt16, key: Int, velocity: Int, controllers: ChannelControllers) -> (Float, Float) {
        let index = Int(source & 0x7F)
        if source & 0x80 != 0 { return (Float(controllers[index]), 128) }
        switch index {
        case 2: return (Float(velocity), 128)
        case 3: return (Float(key), 128)
        case 13: return (Float(controllers.channelPressure), 128)
        case 14: return (Float(controllers.pitchWheel), 16_384)
        case 16: return (Float(controllers.wheelSensitivity), 128)
        default: return (0, 128)    // poly pressure is not tracked yet
        }
    }

    /// `source`'s mapped value: 0...1 unipolar, −1...1 bipolar.
    static func value(_ source: UInt16, key: Int, velocity: Int, controllers: ChannelControllers) -> Float {
        let (value, range) = raw(source, key: key, velocity: velocity, controllers: controllers)
        let x = value / range
        let negative = source & 0x100 != 0, bipolar = source & 0x200 != 0
        switch (source >> 10) & 0x3F {
        case 0:   // linear
            return bipolar ? (negative ? 1 - 2 * x : -1 + 2 * x) : (negative ? 1 - x : x)
        case 1, 2:  // concave, convex
            let table = (source >> 10) & 0x3F == 1 ? concave : convex
            if !bipolar { return look(table, 127 * (negative ? 1 - x : x)) }
            let side: Float = x > 0.5 ? 1 : -1
            let amount = look(table, 127 * 2 * abs(x - 0.5))
            return (negative ? -side : side) * amount
        case 3:   // switch
            let on = x >= 0.5
            return bipolar ? ((on != negative) ? 1 : -1) : ((on != negative) ? 1 : 0)
        default:
            return 0
        }
    }

    /// What `modulators` add to each generator (indexed by number; 59 is the pitch, in cents)
    /// for a note of `key` at `velocity` on a channel at `controllers`. No heap: a note-on on
    /// the render thread may ask.
    static func contributions(_ modulators: [Modulator], key: Int, velocity: Int, controllers: ChannelControllers) -> SIMD64<Float> {
        var sums = SIMD64<Float>(repeating: 0)
        for index in 0..<modulators.count {   // by index: a debug build's array iterator allocates
            let modulator = modulators[index]
            // libfluidsynth has the velocity-to-filter modulator add nothing (in any amount a
            // font gives it): its specified form makes the cutoff jump at velocity 64.
            guard Int(modulator.destination) < 60, !modulator.isIdentical(to: velocityToFilter) else { continue }
            sums[Int(modulator.destination)] += contribution(of: modulator, key: key, velocity: velocity, controllers: controllers)
        }
        return sums
    }

    /// How far the channel could still lower the attenuation `modulators` give a note of `key`
    /// at `velocity` on a channel at `controllers`, in centibels, as libfluidsynth bounds it:
    /// each modulator of the attenuation that a controller, a pressure or the wheel moves could
    /// fall to its least (−|amount| when a source is bipolar or the amount negative, else 0).
    /// No heap, as `contributions`.
    static func attenuationReduction(_ modulators: [Modulator], key: Int, velocity: Int, controllers: ChannelControllers) -> Float {
        var reduction: Float = 0
        for index in 0..<modulators.count {
            let modulator = modulators[index]
            guard modulator.destination == UInt16(Generator.initialAttenuation.rawValue),
                  movable(modulator.source) || movable(modulator.amountSource) else { continue }
            let now = contribution(of: modulator, key: key, velocity: velocity, controllers: controllers)
            let bipolar = (modulator.source | modulator.amountSource) & 0x200 != 0
            let least: Float = bipolar || modulator.amount < 0 ? -Float(abs(modulator.amount)) : 0
            if now > least { reduction += now - least }
        }
        return reduction
    }

    /// Whether `source` can move while a note sounds: a controller, poly or channel pressure, the wheel.
    private static func movable(_ source: UInt16) -> Bool {
        if source & 0x80 != 0 { return true }
        switch source & 0x7F {
        case 10, 13, 14: return true
        default: return false
        }
    }

    /// What `modulator` adds to its destination now: its amount times its two sources, through
    /// its transform. A source of index 0 ("no controller", whatever its curve) is 0 as the
    /// primary source and 1 as the amount source, as libfluidsynth has them.
    private static func contribution(of modulator: Modulator, key: Int, velocity: Int, controllers: ChannelControllers) -> Float {
        guard modulator.source & 0x7F != 0 else { return 0 }
        var amount = Float(modulator.amount) * value(modulator.source, key: key, velocity: velocity, controllers: controllers)
        if modulator.amountSource & 0x7F != 0 { amount *= value(modulator.amountSource, key: key, velocity: velocity, controllers: controllers) }
        return modulator.transform == 2 ? abs(amount) : amount
    }
}
