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

    /// The region of an instrument zone under a preset zone; nil when their key or velocity
    /// ranges do not overlap (no note plays it).
    init?(sample: Int, preset: (zone: Zone, global: Zone?), instrument: (zone: Zone, global: Zone?), zones: (preset: Int, instrument: Int)) {
        guard let keys = Self.overlap(preset.zone.keyRange, instrument.zone.keyRange),
              let velocities = Self.overlap(preset.zone.velocityRange, instrument.zone.velocityRange) else { return nil }
        keyRange = keys
        velocityRange = velocities
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
    }

    /// Where two ranges overlap, nil if they do not.
    private static func overlap(_ a: ClosedRange<UInt8>, _ b: ClosedRange<UInt8>) -> ClosedRange<UInt8>? {
        let low = max(a.lowerBound, b.lowerBound), high = min(a.upperBound, b.upperBound)
        return low <= high ? low...high : nil
    }
}

extension SoundFont {
    /// Every region `preset` can play, whatever the key and velocity: each of its zones with
    /// each zone of the instrument it names, in the preset's and then each instrument's zone
    /// order; zones whose sample the file does not hold (a ROM sample, bounds past the data)
    /// play nothing. Any thread.
    public func allRegions(of preset: Preset) -> [Region] {
        var found: [Region] = []
        for (p, presetZone) in preset.zones.enumerated() {
            guard let link = presetZone.link else { continue }
            let instrument = instruments[link]
            for (i, zone) in instrument.zones.enumerated() {
                guard let sample = zone.link, samples[sample].isUsable(within: sampleDataCount),
                      let region = Region(sample: sample, preset: (presetZone, preset.global), instrument: (zone, instrument.global), zones: (p, i)) else { continue }
                found.append(region)
            }
        }
        return found
    }

    /// The regions of `preset` whose zones both take `key` at `velocity`. Any thread.
    public func regions(of preset: Preset, key: UInt8, velocity: UInt8) -> [Region] {
        allRegions(of: preset).filter { $0.keyRange.contains(key) && $0.velocityRange.contains(velocity) }
    }
}
