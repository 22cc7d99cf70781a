/// One sample a note plays: an instrument zone under a preset zone, every generator's value
/// combined as section 9.4 says (the instrument zone's own, else its global zone's, else the
/// default; plus the preset zone's, else its global zone's, for the generators a preset may
/// set), and the keys and velocities where both zones overlap. Any thread.
public struct Region: Sendable {
    /// The sample's index in the font. Any thread.
    public var sample: Int
    /// The keys and velocities it plays: where the preset and instrument zones' ranges overlap. Any thread.
    public var keyRange: ClosedRange<UInt8>
    /// See `keyRange`. Any thread.
    public var velocityRange: ClosedRange<UInt8>
    /// The preset zone's index in its preset, the instrument zone's in its instrument. Any thread.
    public var zones: (preset: Int, instrument: Int)
    /// The modulators its voice runs: the defaults, the instrument level's and the preset
    /// level's, merged as section 9.5 says. Any thread.
    public var modulators: [Modulator]
    private var values: [Int32]

    /// The combined value of `generator`, not yet clamped to its range (a sum may leave it). Any thread.
    public subscript(generator: Generator) -> Int32 { values[Int(generator.rawValue)] }

    init(sample: Int, preset: (zone: Zone, global: Zone?), instrument: (zone: Zone, global: Zone?), zones: (preset: Int, instrument: Int)) {
        self.sample = sample
        self.zones = zones
        values = Generator.allCases.map { generator in
            var value = Int32(instrument.zone.generators[generator] ?? instrument.global?.generators[generator] ?? generator.defaultValue)
            if !generator.isInstrumentOnly, generator != .keyRange, generator != .velocityRange {
                value += Int32(preset.zone.generators[generator] ?? preset.global?.generators[generator] ?? 0)
            }
            return value
        }
        modulators = Modulator.forVoice(instrument: Modulator.merged(instrument.zone.modulators, global: instrument.global?.modulators),
                                        preset: Modulator.merged(preset.zone.modulators, global: preset.global?.modulators))
        keyRange = Self.overlap(preset.zone.keyRange, instrument.zone.keyRange)
        velocityRange = Self.overlap(preset.zone.velocityRange, instrument.zone.velocityRange)
    }

    /// Where two ranges that share the note being played overlap.
    private static func overlap(_ a: ClosedRange<UInt8>, _ b: ClosedRange<UInt8>) -> ClosedRange<UInt8> {
        let low = max(a.lowerBound, b.lowerBound)
        return low...max(low, min(a.upperBound, b.upperBound))
    }
}

extension SoundFont {
    /// Every region of `preset` whose zones both take `key` at `velocity`, in the preset's
    /// and then each instrument's zone order; zones whose sample the file does not hold
    /// (a ROM sample, bounds past the data) play nothing. Any thread.
    public func regions(of preset: Preset, key: UInt8, velocity: UInt8) -> [Region] {
        var found: [Region] = []
        for (p, presetZone) in preset.zones.enumerated() where presetZone.keyRange.contains(key) && presetZone.velocityRange.contains(velocity) {
            guard let link = presetZone.link else { continue }
            let instrument = instruments[link]
            for (i, zone) in instrument.zones.enumerated() where zone.keyRange.contains(key) && zone.velocityRange.contains(velocity) {
                guard let sample = zone.link, samples[sample].isUsable(within: sampleDataCount) else { continue }
                found.append(Region(sample: sample, preset: (presetZone, preset.global), instrument: (zone, instrument.global), zones: (p, i)))
            }
        }
        return found
    }
}
