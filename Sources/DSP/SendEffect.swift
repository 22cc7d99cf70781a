/// The reverb or the chorus as an insert: the bus's two sides summed to the mono send the
/// synthesizers' CC91/CC93 feed, its wet sound added to the dry (scaled by `dry`). The
/// parameters are libfluidsynth's, as the send's; a change applies at once. Render thread
/// only, after `prepare`.
public final class SendEffect: EffectUnit {
    /// Which processor. Any thread.
    public enum Kind: String, Sendable {
        /// `Reverb`: room, damping, width, level.
        case reverb
        /// `Chorus`: voices, level, speed, depth.
        case chorus
    }

    /// Which it is. Any thread.
    public let kind: Kind
    /// The processor's settings, then `dry`. Any thread.
    public let parameters: [EffectParameter]
    /// None: the dry sound passes at once. Any thread.
    public let latencyFrames = 0
    private var reverb: Reverb?
    private var chorus: Chorus?
    private var reverbSettings = Reverb.Settings()
    private var chorusSettings = Chorus.Settings()
    private var dry: Float = 1
    private var send: AudioBuffer?
    private var sampleRate = 48_000.0

    /// A `kind` insert at libfluidsynth's settings, dry at full level. Control thread.
    public init(_ kind: Kind) {
        self.kind = kind
        let dry = EffectParameter(name: "dry", minimum: 0, maximum: 1, defaultValue: 1, summary: "the untouched sound's level")
        switch kind {
        case .reverb:
            parameters = [
                EffectParameter(name: "room", minimum: 0, maximum: 1, defaultValue: 0.2, summary: "the room's size: the tail falls 60 dB in 0.7 s at 0, about 1 s at 0.2, 12.5 s at 1"),
                EffectParameter(name: "damping", minimum: 0, maximum: 1, defaultValue: 0, summary: "how much faster the highs die"),
                EffectParameter(name: "width", minimum: 0, maximum: 1, defaultValue: 0.5, summary: "how far apart the sides are"),
                EffectParameter(name: "level", minimum: 0, maximum: 1, defaultValue: 0.9, summary: "the reverb's level"),
                dry,
            ]
        case .chorus:
            parameters = [
                EffectParameter(name: "voices", minimum: 1, maximum: 99, defaultValue: 3, summary: "copies of the sound"),
                EffectParameter(name: "level", minimum: 0, maximum: 10, defaultValue: 2, summary: "the chorus's level"),
                EffectParameter(name: "speed", minimum: 0.1, maximum: 5, defaultValue: 0.3, unit: "Hz", summary: "how fast the copies sweep"),
                EffectParameter(name: "depth", minimum: 0, maximum: 256, defaultValue: 8, summary: "how far they sweep, in milliseconds"),
                dry,
            ]
        }
    }

    /// Until the reverb's tail has fallen 60 dB; the chorus's longest delay. Any thread (between renders).
    public var tailFrames: Int {
        switch kind {
        case .reverb: Int(reverbSettings.decaySeconds(sampleRate: sampleRate) * sampleRate)
        case .chorus: Int(0.26 * sampleRate)
        }
    }

    /// Makes the processor and the send buffer at `sampleRate`. Control thread.
    public func prepare(sampleRate: Int, maxFrames: Int) {
        self.sampleRate = Double(sampleRate)
        send = AudioBuffer(capacity: maxFrames)
        switch kind {
        case .reverb: reverb = Reverb(sampleRate: Double(sampleRate), settings: reverbSettings)
        case .chorus: chorus = Chorus(sampleRate: Double(sampleRate), settings: chorusSettings)
        }
    }

    /// Sets parameter `index` at once (the processors' settings do not glide). Render thread only.
    public func setParameter(_ index: Int, to value: Double, rampFrames: Int) {
        guard parameters.indices.contains(index) else { return }
        let held = min(max(value, parameters[index].minimum), parameters[index].maximum)
        if index == parameters.count - 1 {
            dry = Float(held)
            return
        }
        switch (kind, index) {
        case (.reverb, 0): reverbSettings.roomSize = held
        case (.reverb, 1): reverbSettings.damping = held
        case (.reverb, 2): reverbSettings.width = held
        case (.reverb, _): reverbSettings.level = held
        case (.chorus, 0): chorusSettings.voices = Int(held.rounded())
        case (.chorus, 1): chorusSettings.level = held
        case (.chorus, 2): chorusSettings.speed = held
        case (.chorus, _): chorusSettings.depth = held
        }
        reverb?.set(reverbSettings)
        chorus?.set(chorusSettings)
    }

    /// Adds the wet sound of the sides' sum to the dry. Render thread only.
    public func process(_ audio: StereoSlice) {
        guard let send else { return }
        let mono = send.left
        for i in 0..<audio.frames {
            mono[i] = 0.5 * (audio.left[i] + audio.right[i])
            audio.left[i] *= dry
            audio.right[i] *= dry
        }
        reverb?.process(mono, addingTo: audio.left, audio.right, frames: audio.frames)
        chorus?.process(mono, addingTo: audio.left, audio.right, frames: audio.frames)
    }

    /// Empties the tail. Render thread only.
    public func reset() {
        reverb?.clear()
        chorus?.clear()
    }
}
