extension Modulator {
    /// The source index of a general controller (bit 7 clear): none, note-on velocity, key
    /// number, poly pressure, channel pressure, pitch wheel, its sensitivity, a link.
    private static let generalSources: Set<UInt16> = [0, 2, 3, 10, 13, 14, 16, 127]

    /// Whether `source` names a controller a modulator may follow (section 8.2.1): a general
    /// controller of the list above, or a MIDI controller other than bank select (0, 32),
    /// data entry (6, 38), the other LSBs (33-63), (N)RPN numbers (98-101) and the channel
    /// mode messages (120-127).
    private static func isValid(_ source: UInt16, primary: Bool) -> Bool {
        let index = source & 0x7F
        if source & 0x80 == 0 { return generalSources.contains(index) && !(primary && index == 0) }
        return !(index == 0 || index == 6 || (32...63).contains(index) || (98...101).contains(index) || index >= 120)
    }

    /// Whether a voice uses it: its sources are ones a modulator may follow (a primary source
    /// of none, or a link Pianola does not follow, makes it unused, as libfluidsynth does). Any thread.
    public var isUsable: Bool {
        source & 0x7F != 127 && Self.isValid(source, primary: true) && Self.isValid(amountSource, primary: false)
            && destination & 0x8000 == 0
    }

    /// The ten default modulators of section 8.4, as libfluidsynth applies them (velocity to
    /// filter cutoff in its form: scaled by a velocity switch). Any thread.
    public static let defaults: [Modulator] = [
        Modulator(source: 0x0502, destination: 48, amount: 960, amountSource: 0, transform: 0),        // velocity → attenuation
        Modulator(source: 0x0102, destination: 8, amount: -2400, amountSource: 0x0C02, transform: 0),  // velocity → filter cutoff
        Modulator(source: 0x000D, destination: 6, amount: 50, amountSource: 0, transform: 0),          // channel pressure → vibrato
        Modulator(source: 0x0081, destination: 6, amount: 50, amountSource: 0, transform: 0),          // CC1 → vibrato
        Modulator(source: 0x0587, destination: 48, amount: 960, amountSource: 0, transform: 0),        // CC7 → attenuation
        // CC10 → pan: 500, not section 8.4.8's 1000, as libfluidsynth reads that amount (the
        // full swing of a bipolar source is ±50 %); measured, 1000 pans CC10 = 120 hard right.
        Modulator(source: 0x028A, destination: 17, amount: 500, amountSource: 0, transform: 0),
        Modulator(source: 0x058B, destination: 48, amount: 960, amountSource: 0, transform: 0),        // CC11 → attenuation
        Modulator(source: 0x00DB, destination: 16, amount: 200, amountSource: 0, transform: 0),        // CC91 → reverb send
        Modulator(source: 0x00DD, destination: 15, amount: 200, amountSource: 0, transform: 0),        // CC93 → chorus send
        Modulator(source: 0x020E, destination: 59, amount: 12_700, amountSource: 0x0010, transform: 0), // pitch wheel × sensitivity → pitch
    ]

    /// A zone's modulators with its global zone's (section 9.5.1): the zone's own, then each
    /// usable global one no modulator of the zone's is identical to.
    static func merged(_ local: [Modulator], global: [Modulator]?) -> [Modulator] {
        guard !local.isEmpty || global?.isEmpty == false else { return [] }   // most zones: nothing to copy
        let own = local.filter(\.isUsable)
        return own + (global ?? []).filter { g in g.isUsable && !own.contains { $0.isIdentical(to: g) } }
    }

    /// The modulators a region's voice runs (section 9.5): the defaults; the instrument
    /// level's replace an identical default, or join; the preset level's add their amount to
    /// an identical one, or join.
    static func forVoice(instrument: [Modulator], preset: [Modulator]) -> [Modulator] {
        var voice = defaults
        for modulator in instrument {
            if let same = voice.firstIndex(where: { $0.isIdentical(to: modulator) }) { voice[same] = modulator } else { voice.append(modulator) }
        }
        for modulator in preset {
            if let same = voice.firstIndex(where: { $0.isIdentical(to: modulator) }) { voice[same].amount += modulator.amount } else { voice.append(modulator) }
        }
        return voice
    }
}
