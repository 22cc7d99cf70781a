/// An effect Pianola has built in: its name in specs (`lowpass`), what it does, its
/// parameters, and how to make one. Any thread.
public struct BuiltInEffect: Sendable {
    /// The name a spec gives (`--fx lowpass,cutoff=800`). Any thread.
    public let name: String
    /// One line saying what it does. Any thread.
    public let summary: String
    /// Its parameters, in the order its units number them. Any thread.
    public let parameters: [EffectParameter]
    private let make: @Sendable () -> any EffectUnit

    /// A new unit at the parameters' defaults, not yet prepared. Control thread.
    public func makeUnit() -> any EffectUnit { make() }

    /// Every built-in effect, in the order `pianola effects` lists them. Any thread.
    public static let all: [BuiltInEffect] = Biquad.Shape.allCases.map { shape in
        let name = shape == .peaking ? "peak" : shape.rawValue.lowercased()
        return BuiltInEffect(name: name, summary: summary(of: shape), parameters: FilterEffect(shape).parameters) { FilterEffect(shape) }
    } + [
        BuiltInEffect(name: "eq", summary: "parametric EQ: low shelf, three peaks, high shelf (RBJ cookbook), flat until set",
                      parameters: ParametricEQ().parameters) { ParametricEQ() },
        BuiltInEffect(name: "delay", summary: "feedback delay: echoes, exact to the frame, in time with the song", parameters: DelayEffect().parameters) { DelayEffect() },
        BuiltInEffect(name: "reverb", summary: "reverb: a feedback delay network with libfluidsynth's settings, on the sides' sum",
                      parameters: SendEffect(.reverb).parameters) { SendEffect(.reverb) },
        BuiltInEffect(name: "chorus", summary: "chorus: swept delays with libfluidsynth's settings, on the sides' sum",
                      parameters: SendEffect(.chorus).parameters) { SendEffect(.chorus) },
        BuiltInEffect(name: "compressor", summary: "compressor: turns down what passes the threshold (keyed by another bus: ducking)",
                      parameters: CompressorEffect().parameters) { CompressorEffect() },
    ]

    /// The built-in effect called `name` (any case), nil when there is none. Any thread.
    public static func named(_ name: String) -> BuiltInEffect? {
        all.first { $0.name == name.lowercased() }
    }

    private static func summary(of shape: Biquad.Shape) -> String {
        switch shape {
        case .lowpass: "low-pass filter, 12 dB/octave (RBJ cookbook)"
        case .highpass: "high-pass filter, 12 dB/octave (RBJ cookbook)"
        case .bandpass: "band-pass filter, 0 dB at its peak (RBJ cookbook)"
        case .notch: "notch filter (RBJ cookbook)"
        case .peaking: "peaking EQ band: raises or lowers a band (RBJ cookbook)"
        case .lowShelf: "low shelf: raises or lowers the lows (RBJ cookbook)"
        case .highShelf: "high shelf: raises or lowers the highs (RBJ cookbook)"
        }
    }
}
