import DSP
import Engine
import Synthesis

/// What a song's node is made of besides its synthesizers and player — effect units, LV2
/// instruments, buses with their effects — made one way for `SongGraph` (a render, `pianola
/// play`) and `Soundtrack` (a game's deck). Control thread.
struct SongParts {
    /// The rate everything runs at.
    let sampleRate: Int
    /// The largest slice a render pulls.
    let maxFrames: Int
    /// How long a quarter note lasts where the song starts: what effects' note values are timed by.
    let secondsPerQuarter: Double
    /// Rendered as fast as it goes: an LV2 plugin's background work is done inside the render.
    let offline: Bool

    /// The units of `specs`, in order.
    func effectUnits(_ specs: [EffectSpec]) throws(EffectSpecError) -> [any EffectUnit] {
        try specs.map { spec throws(EffectSpecError) in
            try spec.makeUnit(sampleRate: sampleRate, maxFrames: maxFrames, secondsPerQuarter: secondsPerQuarter, offline: offline)
        }
    }

    /// The node of the LV2 instrument `spec`.
    func instrumentNode(_ spec: InstrumentSpec) throws(EffectSpecError) -> LV2InstrumentNode {
        LV2InstrumentNode(instrument: try spec.makeInstrument(sampleRate: sampleRate, maxFrames: maxFrames, offline: offline), maxFrames: maxFrames)
    }

    /// A bus of its own for `source`, through `units`.
    func bus(for source: any AudioNode, through units: [any EffectUnit]) -> MixerNode {
        let bus = MixerNode(capacity: 1)
        for unit in units { bus.inserts.append(unit) }
        bus.prepare(format: AudioFormat(sampleRate: sampleRate), maxFrames: maxFrames)
        bus.connect(source)
        return bus
    }
}
