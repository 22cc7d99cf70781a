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
    /// ranges do not overlap (no note plays it). What does not change from one instrument zone
    /// to the next comes worked out: the preset level's `added` values and merged `modulators`,
    /// and the instrument's global zone's values over the defaults (`base`) and modulators.
    init?(sample: Int, instrumentZone zone: SoundFont.Zone, under presetZone: SoundFont.Zone, instrument: (base: [Int32], modulators: [Modulator]?),
          preset: (added: [Int32], modulators: [Modulator]), zones: (preset: Int, instrument: Int)) {
        guard let keys = Self.overlap(presetZone.keyRange, zone.keyRange),
              let velocities = Self.overlap(presetZone.velocityRange, zone.velocityRange) else { return nil }
        keyRange = keys
        velocityRange = velocities
        self.sample = sample
        self.zones = zones
        // Through pointers, over only what the zone sets: a font has thousands of regions, all read at its start.
        values = [Int32](unsafeUninitializedCapacity: Generator.count) { values, count in
            let out = values.baseAddress!
            instrument.base.withUnsafeBufferPointer { out.initialize(from: $0.baseAddress!, count: Generator.count) }
            zone.generators.overlay(onto: out)
            preset.added.withUnsafeBufferPointer { added in for n in 0..<Generator.count { out[n] &+= added[n] } }
            count = Generator.count
        }
        modulators = Modulator.forVoice(instrument: Modulator.merged(zone.modulators, global: instrument.modulators), preset: preset.modulators)
    }

    /// The values of an instrument's generators before its zone's own: its global zone's, else the defaults.
    static func instrumentBase(global: SoundFont.Zone?) -> [Int32] {
        var values = defaults
        values.withUnsafeMutableBufferPointer { global?.generators.overlay(onto: $0.baseAddress!) }
        return values
    }

    /// What a preset zone adds to its regions' values: its own amount of each generator a
    /// preset may set, else its global zone's, else 0.
    static func presetAdded(_ zone: SoundFont.Zone, global: SoundFont.Zone?) -> [Int32] {
        var added = [Int32](repeating: 0, count: Generator.count)
        added.withUnsafeMutableBufferPointer { zone.generators.add(over: global?.generators, allowed: presetAdds, to: $0.baseAddress!) }
        return added
    }

    /// Every generator's default value, by number.
    private static let defaults = Generator.allCases.map { Int32($0.defaultValue) }
    /// A bit for each generator a preset zone's value adds to: not the instrument-only ones,
    /// nor the key and velocity ranges (which overlap instead).
    private static let presetAdds = Generator.allCases.reduce(UInt64(0)) { mask, generator in
        generator.isInstrumentOnly || generator == .keyRange || generator == .velocityRange ? mask : mask | 1 << generator.rawValue
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
    public func allRegions(of preset: SoundFont.Preset) -> [Region] {
        var found: [Region] = []
        for (p, presetZone) in preset.zones.enumerated() {
            guard let link = presetZone.link else { continue }
            let instrument = instruments[link]
            let instrumentLevel = (base: Region.instrumentBase(global: instrument.global), modulators: instrument.global?.modulators)
            let presetLevel = (added: Region.presetAdded(presetZone, global: preset.global),
                               modulators: Modulator.merged(presetZone.modulators, global: preset.global?.modulators))
            for i in instrument.zones.indices {
                guard let sample = instrument.zones[i].link, samples[sample].isUsable(within: sampleDataCount),
                      let region = Region(sample: sample, instrumentZone: instrument.zones[i], under: presetZone, instrument: instrumentLevel,
                                          preset: presetLevel, zones: (p, i)) else { continue }
                found.append(region)
            }
        }
        return found
    }

    /// The regions of `preset` whose zones both take `key` at `velocity`. Any thread.
    public func regions(of preset: SoundFont.Preset, key: UInt8, velocity: UInt8) -> [Region] {
        allRegions(of: preset).filter { $0.keyRange.contains(key) && $0.velocityRange.contains(velocity) }
    }
}
