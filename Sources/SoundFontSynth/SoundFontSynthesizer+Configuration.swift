import DSP
import SoundFontModel

extension SoundFontSynthesizer {
    /// How Pianola's own synthesizer is set up: its rate, voices, gain, effects and threads
    /// (libfluidsynth's is `FluidSynthesizer.Configuration`). Any thread.
    public struct Configuration: Hashable, Sendable {
        /// Sample rate in Hz. Any thread.
        public var sampleRate: Double = 48_000
        /// Most voices at once. Any thread.
        public var polyphony = 256
        /// Output gain (libfluidsynth's default 0.2). Any thread.
        public var gain: Float = 0.2
        /// The reverb the notes' reverb sends feed (libfluidsynth's defaults), nil for none. Any thread.
        public var reverb: Reverb.Settings? = Reverb.Settings()
        /// The chorus the notes' chorus sends feed (libfluidsynth's defaults), nil for none. Any thread.
        public var chorus: Chorus.Settings? = Chorus.Settings()
        /// Threads the voices render on (up to 8; for offline rendering), the output the same
        /// bit for bit for any count. Any thread.
        public var threads = 1

        /// The defaults: 48 kHz, 256 voices, gain 0.2, reverb and chorus on, one thread. Any thread.
        public init() {}
    }

    /// A synthesizer of `font` set up as `configuration` says; `readingAllPresets` as the
    /// other initializer's. Control thread.
    public convenience init(font: SoundFont, configuration: Configuration, readingAllPresets: Bool = true) {
        self.init(font: font, sampleRate: configuration.sampleRate, polyphony: configuration.polyphony, gain: configuration.gain,
                  reverb: configuration.reverb, chorus: configuration.chorus, threads: configuration.threads, readingAllPresets: readingAllPresets)
    }
}
