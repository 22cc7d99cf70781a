/// A five-band parametric equalizer: a low shelf, three peaking bands and a high shelf in
/// series (the cookbook's shapes, `FilterEffect`s), each band's frequency, gain and (for the
/// peaks) Q a parameter that glides. Flat at its defaults. Render thread only, after `prepare`.
public final class ParametricEQ: EffectUnit {
    /// Per band (`low`, `mid1`, `mid2`, `mid3`, `high`): its frequency, gain, and Q for the
    /// peaks. Any thread.
    public let parameters: [EffectParameter]
    /// None: filters delay nothing. Any thread.
    public let latencyFrames = 0
    /// None worth waiting for. Any thread.
    public let tailFrames = 0
    private let bands: [FilterEffect]
    private let routes: [(band: Int, parameter: Int)]     // per parameter: its band and the band's parameter

    /// A flat equalizer, its bands at 100 Hz, 400 Hz, 1.5 kHz, 5 kHz and 10 kHz. Control thread.
    public init() {
        let layout: [(name: String, shape: Biquad.Shape, frequency: Double)] = [
            ("low", .lowShelf, 100), ("mid1", .peaking, 400), ("mid2", .peaking, 1_500), ("mid3", .peaking, 5_000), ("high", .highShelf, 10_000),
        ]
        var parameters: [EffectParameter] = [], routes: [(Int, Int)] = [], bands: [FilterEffect] = []
        for (index, band) in layout.enumerated() {
            let filter = FilterEffect(band.shape)
            filter.setParameter(0, to: band.frequency, rampFrames: 0)
            bands.append(filter)
            for (k, parameter) in filter.parameters.enumerated() where band.shape == .peaking || parameter.name != "q" {
                let name = parameter.name == "frequency" ? "\(band.name)_freq" : "\(band.name)_\(parameter.name)"
                parameters.append(EffectParameter(name: name, minimum: parameter.minimum, maximum: parameter.maximum,
                                                  defaultValue: k == 0 ? band.frequency : parameter.defaultValue, unit: parameter.unit,
                                                  glide: parameter.glide, summary: "\(band.name) band: \(parameter.summary)"))
                routes.append((index, k))
            }
        }
        self.parameters = parameters
        self.routes = routes
        self.bands = bands
    }

    /// Prepares every band. Control thread.
    public func prepare(sampleRate: Int, maxFrames: Int) {
        for band in bands { band.prepare(sampleRate: sampleRate, maxFrames: maxFrames) }
    }

    /// Moves parameter `index` (in `parameters`' order). Render thread only.
    public func setParameter(_ index: Int, to value: Double, rampFrames: Int) {
        guard routes.indices.contains(index) else { return }
        bands[routes[index].band].setParameter(routes[index].parameter, to: value, rampFrames: rampFrames)
    }

    /// Equalizes `audio` in place, band after band. Render thread only.
    public func process(_ audio: StereoSlice) {
        for k in bands.indices { bands[k].process(audio) }
    }

    /// Forgets every band's state. Render thread only.
    public func reset() {
        for k in bands.indices { bands[k].reset() }
    }
}
