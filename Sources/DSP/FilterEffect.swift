/// A filter insert: one of the cookbook's shapes (`Biquad`) whose frequency, Q and gain change
/// at once or glide, the coefficients worked out afresh on every frame of a glide so that no
/// step is heard (no zipper noise). Render thread only, after `prepare`.
public final class FilterEffect: EffectUnit {
    /// The shape. Any thread.
    public let shape: Biquad.Shape
    /// Frequency (`cutoff` for low- and high-pass), Q, and for peaking and shelves the gain. Any thread.
    public let parameters: [EffectParameter]
    /// None: a filter delays nothing. Any thread.
    public let latencyFrames = 0
    /// None worth waiting for: its ringing dies within milliseconds. Any thread.
    public let tailFrames = 0
    private var filter = Biquad()
    private var glides: [ParameterGlide]
    private var sampleRate = 48_000.0

    /// A `shape` filter at its parameters' defaults. Control thread.
    public init(_ shape: Biquad.Shape) {
        self.shape = shape
        let frequencyName = shape == .lowpass || shape == .highpass ? "cutoff" : "frequency"
        let defaultFrequency: Double = switch shape {
        case .lowpass: 20_000
        case .highpass: 20
        case .lowShelf: 200
        case .highShelf: 4_000
        case .bandpass, .notch, .peaking: 1_000
        }
        var parameters = [
            EffectParameter(name: frequencyName, minimum: 10, maximum: 24_000, defaultValue: defaultFrequency, unit: "Hz", glide: .exponential,
                            summary: shape.hasGain ? "where the band sits (a shelf's midpoint)" : "the filter's frequency"),
            EffectParameter(name: "q", minimum: 0.1, maximum: 40, defaultValue: 0.7071, glide: .exponential,
                            summary: "resonance, or the band's narrowness (0.7071: no peak)"),
        ]
        if shape.hasGain {
            parameters.append(EffectParameter(name: "gain", minimum: -48, maximum: 48, defaultValue: 0, unit: "dB", summary: "how far the band is raised (negative: lowered)"))
        }
        self.parameters = parameters
        glides = parameters.map { ParameterGlide($0.defaultValue, glide: $0.glide) }
    }

    /// Works out the coefficients at `sampleRate`. Control thread.
    public func prepare(sampleRate: Int, maxFrames: Int) {
        self.sampleRate = Double(sampleRate)
        updateCoefficients()
    }

    /// Moves frequency (0), Q (1) or gain (2). Render thread only.
    public func setParameter(_ index: Int, to value: Double, rampFrames: Int) {
        guard glides.indices.contains(index) else { return }
        glides[index].move(to: min(max(value, parameters[index].minimum), parameters[index].maximum), frames: rampFrames)
        if !glides[index].isGliding { updateCoefficients() }
    }

    /// Filters `audio` in place. Render thread only.
    public func process(_ audio: StereoSlice) {
        guard isGliding else {
            filter.process(audio)
            return
        }
        let left = audio.left, right = audio.right
        for i in 0..<audio.frames {
            for k in glides.indices { _ = glides[k].advance() }
            updateCoefficients()
            let y = filter.process(SIMD2(Double(left[i]), Double(right[i])))
            left[i] = Float(y.x)
            right[i] = Float(y.y)
        }
        filter.flushSubnormals()
    }

    /// Forgets the filter's state. Render thread only.
    public func reset() { filter.reset() }

    private var isGliding: Bool {
        // By index: iterating the array itself allocates an iterator in debug builds.
        for k in glides.indices where glides[k].isGliding { return true }
        return false
    }

    private func updateCoefficients() {
        filter.coefficients = Biquad.Coefficients(shape, frequency: glides[0].value, q: glides[1].value,
                                                  gainDB: shape.hasGain ? glides[2].value : 0, sampleRate: sampleRate)
    }
}
