import Faults
import DSP
import Synthesis
import ALSA
import Dispatch
import Locks
import Engine
import FluidSynth
import MIDI
import Playback
import Sequencing
import Streaming
import Synchronization

// What a game gives and gets: the configuration, song descriptions, load states, fade
// shapes, moments, beats and events.
extension Soundtrack {
    /// How the soundtrack renders. Any thread.
    public struct Configuration: Hashable, Sendable {
        /// Sample rate of everything it renders. Any thread.
        public var sampleRate = 48_000
        /// The largest slice one render call is cut into. Any thread.
        public var maxFrames = 4096
        /// The master peak limiter (1 ms of latency) that keeps sums from clipping. Any thread.
        public var limiter = true
        /// Pianola's own synthesizer's settings for every song it plays (its sample rate is
        /// `sampleRate`). Any thread.
        public var pianolaSynthesizer = SoundFontSynthesizer.Configuration()
        /// libfluidsynth's settings for every song it plays (its sample rate is `sampleRate`;
        /// a bank-select style but GS's is libfluidsynth's only). Any thread.
        public var fluidSynthesizer = FluidSynthesizer.Configuration()
        /// The synthesizer asked for every song (Pianola's own unless told); libfluidsynth
        /// plays a DLS bank whichever is asked. Any thread.
        public var engine = SynthesisEngine.pianola
        /// Sound effects that can sound at once; the oldest is stolen beyond that. Any thread.
        public var soundEffectVoices = 32
        /// Length of the fade that pause and resume make so they do not click, in seconds. Any thread.
        public var pauseFadeSeconds = 0.01
        /// Stingers (`playStinger`) that can sound at once; beyond that, priority decides. Any thread.
        public var maxStingers = 4
        /// The shortest glide `setParameter` makes, in seconds, so a parameter set at once
        /// still moves what it drives without a step. Any thread.
        public var parameterGlideSeconds = 0.02

        /// The defaults. Any thread.
        public init() {}
    }

    /// A song to load: its MIDI file, the SoundFont it plays with, audio stems and layers,
    /// each from a path or from bytes in memory. Any thread.
    public struct SongDescription: Hashable, Sendable {
        /// The Standard MIDI File. Any thread.
        public var midi: FileSource
        /// The SoundFont. Any thread.
        public var soundFont: FileSource
        /// Audio files that play with the song from its start, by layer name. A stem loops
        /// whole when the song loops. Any thread.
        public var stems: [String: FileSource] = [:]
        /// Names of tracks (their track-name meta event, any case) to fade on their own. Each
        /// gets a synthesizer of its own, so its fader also fades its reverb. Any thread.
        public var trackLayers: [String] = []
        /// The loop conventions to look for, in order (`[]`: play through once). Any thread.
        public var loopConventions = SongLoop.defaultConventions
        /// Named sections and where they start (bar:beat from 1), for a song whose markers do
        /// not name them; empty: the song's markers are its sections. Any thread.
        public var sections: [String: BarBeatTick] = [:]
        /// When true, a track layer's channel volume and pan (CC7, CC10) move the layer's own
        /// fader instead of its synthesizer's channel (times the volume `setLayer` gives it). Any thread.
        public var controllersDriveLayers = false
        /// Tracks (by their track-name meta event, any case) played by an LV2 instrument
        /// instead of the SoundFont, each deck with instances of its own; the plugins must be
        /// hard real-time capable. Any thread.
        public var instruments: [String: InstrumentSpec] = [:]
        /// Effects on the song's own bus, in order: every play of the song gets its own. Any thread.
        public var effects: [EffectSpec] = []
        /// Effects on one layer (a track layer or a stem, by name, any case), in order. Any thread.
        public var layerEffects: [String: [EffectSpec]] = [:]

        /// `midi` played with `soundFont`. Any thread.
        public init(midi: FileSource, soundFont: FileSource) {
            self.midi = midi
            self.soundFont = soundFont
        }

        /// The MIDI file at `midiPath` played with the SoundFont at `soundFontPath`. Any thread.
        public init(midiPath: String, soundFontPath: String) {
            self.init(midi: .path(midiPath), soundFont: .path(soundFontPath))
        }
    }

    /// Where a song or effect stands in its loading. Any thread.
    public enum LoadState: Hashable, Sendable {
        /// Still loading on a worker thread. Any thread.
        case loading
        /// Loaded and ready to play. Any thread.
        case ready
        /// It could not be loaded, for this reason. Any thread.
        case failed(SoundtrackError)
    }

    /// A song: loading on a worker thread from `startLoading`, then ready to play as often as
    /// wanted (its sequence read, its synthesizers made with the font loaded, its stems
    /// checked). Events name songs by this object. Any thread.
    public final class Song: Hashable, Sendable {
        /// What is loaded. Any thread.
        public let description: SongDescription
        /// What messages call it: the MIDI file's path or name. Any thread.
        public var name: String { description.midi.name }
        /// Loading, ready or failed. Any thread.
        public var state: LoadState { loading.state }
        /// The sequence, once loaded. Any thread.
        public var sequence: MusicSequence? { loading.value?.sequence }
        /// Where it loops, if it marks a loop; `nil` too while loading. Any thread.
        public var loop: SongLoop? { loading.value?.loop }
        /// Its sections (its markers, loop markers aside), empty while loading. Any thread.
        public var sections: [SongSection] { loading.value?.sections ?? [] }
        let loading = Loading<Content>()
        let owner: UInt64                        // the `serial` of the soundtrack that loads it, at its rate

        /// What a load makes.
        struct Content: Sendable {
            let sequence: MusicSequence
            let loop: SongLoop?
            let sections: [SongSection]
            let layerTracks: [[Int]]                          // per track layer: its tracks
            var instrumentTracks: [(tracks: [Int], instrument: InstrumentSpec)] = []   // tracks an LV2 instrument plays
            let soundFont: SoundFontSource                    // as the engine plays it (`SoundFontSource.resolved`)
            let spare: ControlLock<[[SongSynthesizer]]>       // sets of (main + one per layer) ready to play
        }

        init(description: SongDescription, owner: Soundtrack) {
            self.description = description
            self.owner = owner.serial
        }

        /// Blocks until loaded; throws the load's one-line error. Not the render thread.
        public func wait() throws(SoundtrackError) { _ = try loading.wait() }

        /// Songs are the same only when they are the same object. Any thread.
        public static func == (a: Song, b: Song) -> Bool { a === b }
        /// Hashes the object's identity. Any thread.
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    /// A sound effect: loading on a worker thread from `startLoadingSoundEffect` (decoded whole
    /// into memory at the soundtrack's rate), or made ready from samples. Any thread.
    public final class SoundEffect: Hashable, Sendable {
        /// What messages call it: its path or name. Any thread.
        public let name: String
        /// Loading, ready or failed. Any thread.
        public var state: LoadState { loading.state }
        /// The samples, once loaded. Any thread.
        public var sound: SoundBuffer? { loading.value }
        let loading: Loading<SoundBuffer>

        init(name: String) {
            self.name = name
            loading = Loading()
        }

        /// An effect of samples already at the soundtrack's rate, called `name` in messages. Any thread.
        public init(sound: SoundBuffer, name: String = "effect") {
            self.name = name
            loading = Loading(ready: sound)
        }

        /// Blocks until loaded; throws the load's one-line error. Not the render thread.
        public func wait() throws(SoundtrackError) { _ = try loading.wait() }

        /// Effects are the same only when they are the same object. Any thread.
        public static func == (a: SoundEffect, b: SoundEffect) -> Bool { a === b }
        /// Hashes the object's identity. Any thread.
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    /// How a fade moves. Any thread.
    public enum FadeShape: Hashable, Sendable {
        /// In a straight line of gain. Any thread.
        case linear
        /// Along a quarter sine (out along a cosine): two songs crossfading this way keep
        /// their summed power, 3 dB louder half-way than a linear crossfade. Any thread.
        case equalPower
    }

    /// When a change happens. Any thread.
    public enum Moment: Hashable, Sendable {
        /// As soon as the audio can take it.
        case now
        /// On the next beat of the playing song (now if none plays).
        case nextBeat
        /// On the next bar line of the playing song (now if none plays).
        case nextBar
        /// When the playing song next sounds the marker with this text (any case), after its
        /// loop's wrap if need be; an error if none plays or it never reaches such a marker again.
        case marker(String)
        /// When the section playing now ends: the next section's marker sounds (after the
        /// loop's wrap if need be); an error if none plays or no section follows.
        case sectionEnd
    }

    /// A beat as a game animates on it: where it falls in the music, and when it is heard. Any thread.
    public struct Beat: Hashable, Sendable {
        /// The bar, from 1. Any thread.
        public var bar: Int
        /// The beat of the bar, from 1 (1 is the bar line). Any thread.
        public var beat: Int
        /// Beats in the bar: 3 in 3/4. Any thread.
        public var beatsPerBar: Int
        /// The beat's note value: 4 in 3/4. Any thread.
        public var beatUnit: Int
        /// The tempo it plays at, in quarter notes a minute: the written tempo there times
        /// `setTempo`'s percent. Any thread.
        public var bpm: Double
        /// The section it falls in (`Song.sections`), `nil` before the first. Any thread.
        public var section: String?
        /// The song's tick. Any thread.
        public var tick: Int
        /// When it sounds on the soundtrack's music clock. Any thread.
        public var sampleTime: SampleTime
        /// When it is heard, in CLOCK_MONOTONIC nanoseconds, while `startOutput`'s output
        /// plays (if no pause comes first); `nil` when the game pulls the audio itself (it
        /// knows its own output's latency). Any thread.
        public var heardAtNanos: Int64?
    }

    /// Something that happened, reported on the caller's side. Any thread.
    public enum Event: Hashable, Sendable {
        /// A marker (or cue point) of `song` sounded. Any thread.
        case marker(song: Song, text: String, sampleTime: SampleTime)
        /// A beat sounded; beat 1 is a bar line. Any thread.
        case beat(song: Song, Beat)
        /// The song went back to its loop's start. Any thread.
        case loopWrapped(song: Song, sampleTime: SampleTime)
        /// The song jumped to its section `section` (`jump(to:at:)`). Any thread.
        case jumped(song: Song, section: String, sampleTime: SampleTime)
        /// The music left `from` (`nil`: none played) for `to` (its section `section`, `nil`:
        /// its start) by the transition rule called `rule` (`transition(to:section:)`). Any thread.
        case transitioned(from: Song?, to: Song, section: String?, rule: String, sampleTime: SampleTime)
        /// `song` started sounding on `sampleTime` (`play`, `crossfade`, `transition`), from
        /// its section `section` (`nil`: from its start). Any thread.
        case songStarted(song: Song, section: String?, sampleTime: SampleTime)
        /// `song` was left before its end (another song played, or `stop`): its fade-out, if
        /// any, begins on `sampleTime`. Any thread.
        case songStopped(song: Song, sampleTime: SampleTime)
        /// The song played to its end. Any thread.
        case songEnded(song: Song, sampleTime: SampleTime)
        /// A song finished loading, ready to play; `sampleTime` is the music clock's frame
        /// then (every frame before it had been rendered). Any thread.
        case songLoaded(song: Song, sampleTime: SampleTime)
        /// A song could not be loaded. Any thread.
        case songLoadFailed(song: Song, error: SoundtrackError, sampleTime: SampleTime)
        /// A sound effect finished loading, ready to play; `sampleTime` as for `songLoaded`. Any thread.
        case soundEffectLoaded(effect: SoundEffect, sampleTime: SampleTime)
        /// An effect could not be loaded. Any thread.
        case soundEffectLoadFailed(effect: SoundEffect, error: SoundtrackError, sampleTime: SampleTime)
    }
}

/// A soundtrack call that could not be done: one line saying what and why, and what kind of
/// fault it was. Any thread.
public struct SoundtrackError: Fault, Hashable, Sendable {
    /// What kind of fault. Any thread.
    public let kind: FaultKind
    /// The line. Any thread.
    public let description: String

    init(_ kind: FaultKind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

extension Soundtrack.Event {
    /// When it sounded, or was reported, on the soundtrack's music clock. Any thread.
    public var sampleTime: SampleTime {
        switch self {
        case .marker(_, _, let t), .loopWrapped(_, let t), .jumped(_, _, let t), .transitioned(_, _, _, _, let t), .songEnded(_, let t),
             .songStarted(_, _, let t), .songStopped(_, let t),
             .songLoaded(_, let t), .songLoadFailed(_, _, let t), .soundEffectLoaded(_, let t), .soundEffectLoadFailed(_, _, let t):
            return t
        case .beat(_, let beat):
            return beat.sampleTime
        }
    }
}
