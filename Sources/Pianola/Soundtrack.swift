import DSP
import Synthesis
import ALSA
import Dispatch
import Engine
import FluidSynth
import MIDI
import Playback
import Sequencing
import Streaming
import Synchronization

/// A game's music, from any of its threads: songs loaded off the caller's thread, played,
/// stopped with a fade, paused, crossfaded or switched on the next beat or bar line, looped on
/// their loop marks, with layers (tracks and stems) faded in and out by name, tempo and
/// transposition on the fly, sound effects, and callbacks at markers, beats, bars, loop wraps
/// and song ends delivered on the caller's side (`pollEvents` or a DispatchQueue), never on
/// the audio thread. It renders through Pianola's own ALSA output (`startOutput`) or is
/// pulled by the game's audio callback (`render(into:)`), real-time safe either way.
/// Any thread (control calls are serialised by one lock the render thread never takes).
/// Calls queue their changes for the render side, which takes them as it renders (even while
/// paused); a game that stops pulling altogether should stop calling too, or a few hundred
/// calls later they wait for room.
public final class Soundtrack: Sendable {
    /// How the soundtrack renders. Any thread.
    public struct Configuration: Hashable, Sendable {
        /// Sample rate of everything it renders. Any thread.
        public var sampleRate = 48_000
        /// The largest slice one render call is cut into. Any thread.
        public var maxFrames = 4096
        /// The master peak limiter (1 ms of latency) that keeps sums from clipping. Any thread.
        public var limiter = true
        /// Synthesizer settings for every song (its sample rate is `sampleRate`). Any thread.
        public var synthesizer = Synthesizer.Configuration()
        /// Sound effects that can sound at once; the oldest is stolen beyond that. Any thread.
        public var effectVoices = 32
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
        public var loopConventions = GameLoop.defaultConventions
        /// Named sections and where they start (bar:beat from 1), for a song whose markers do
        /// not name them; empty: the song's markers are its sections. Any thread.
        public var sections: [String: BarBeatTick] = [:]
        /// When true, a track layer's channel volume and pan (CC7, CC10) move the layer's own
        /// fader instead of its synthesizer's channel (times the volume `setLayer` gives it). Any thread.
        public var controllersDriveLayers = false

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
        public var loop: GameLoop? { loading.value?.loop }
        /// Its sections (its markers, loop markers aside), empty while loading. Any thread.
        public var sections: [SongSection] { loading.value?.sections ?? [] }
        let loading = Loading<Content>()
        let owner: UInt64                        // the `serial` of the soundtrack that loads it, at its rate

        /// What a load makes.
        struct Content: Sendable {
            let sequence: MusicSequence
            let loop: GameLoop?
            let sections: [SongSection]
            let layerTracks: [[Int]]                          // per track layer: its tracks
            let soundFont: SoundFontSource
            let spare: ControlLock<[[Synthesizer]]>           // sets of (main + one per layer) ready to play
        }

        fileprivate init(description: SongDescription, owner: Soundtrack) {
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

    /// A sound effect: loading on a worker thread from `startLoadingEffect` (decoded whole
    /// into memory at the soundtrack's rate), or made ready from samples. Any thread.
    public final class Effect: Hashable, Sendable {
        /// What messages call it: its path or name. Any thread.
        public let name: String
        /// Loading, ready or failed. Any thread.
        public var state: LoadState { loading.state }
        /// The samples, once loaded. Any thread.
        public var sound: SoundBuffer? { loading.value }
        fileprivate let loading: Loading<SoundBuffer>

        fileprivate init(name: String) {
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
        public static func == (a: Effect, b: Effect) -> Bool { a === b }
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
        /// The song played to its end. Any thread.
        case songEnded(song: Song, sampleTime: SampleTime)
        /// A song finished loading, ready to play; `sampleTime` is the music clock then. Any thread.
        case songLoaded(song: Song, sampleTime: SampleTime)
        /// A song could not be loaded. Any thread.
        case songLoadFailed(song: Song, error: SoundtrackError, sampleTime: SampleTime)
        /// An effect finished loading, ready to play. Any thread.
        case effectLoaded(effect: Effect, sampleTime: SampleTime)
        /// An effect could not be loaded. Any thread.
        case effectLoadFailed(effect: Effect, error: SoundtrackError, sampleTime: SampleTime)
    }

    /// One song playing (or fading out) in the graph.
    final class Deck {
        let song: Song
        let node: SongNode
        let input: Int                       // the master mixer input
        let layers: [String: Int]            // layer name (lowercased) → bus input
        var retireAt: SampleTime?            // silent and stopped from here: disconnect once rendered past it
        var ratePercent = 100                // setTempo's, which a stinger follows
        var transpose = 0                    // setTranspose's, which a stinger follows
        var priority = 0                     // a stinger's

        init(song: Song, node: SongNode, input: Int, layers: [String: Int]) {
            self.song = song
            self.node = node
            self.input = input
            self.layers = layers
        }
    }

    struct State {
        var current: Deck?
        var fading: [Deck] = []
        var stingers: [Deck] = []            // sounding or ringing out, oldest first
        var segments: [Deck] = []            // transition segments, playing or ringing out
        var transitions: [Place.Pair: Transition] = [:]   // the rules set, by (from, to)
        var scheduled: [Event] = []          // reported once the audio has rendered past them
        var parameters: [String: GameParameter] = [:]   // by lower-cased name
        var mappings: [ParameterMapping] = []
        var output: (any AudioOutput)?
        var delivery: Delivery?
        var events: [Event] = []             // reported, not yet polled, in time order

        /// The stingers not yet ringing out (neither finished nor displaced).
        var soundingStingers: [Deck] { stingers.filter { $0.retireAt == nil } }
    }

    /// The timer that polls events onto the caller's queue.
    struct Delivery: @unchecked Sendable {
        // @unchecked Sendable: a Dispatch source may be cancelled from any thread.
        let timer: DispatchSourceTimer
    }

    /// The configuration. Any thread.
    public let configuration: Configuration
    /// The graph `startOutput` or `render(into:)` pulls. Render thread once pulled.
    private let graph: AudioGraph
    let clock: MusicClock
    let parameterBoard = ParameterBoard(capacity: Soundtrack.maxParameters)
    private let master = MixerNode(metering: true)
    private let effects: SoundEffectsNode
    let state = ControlLock(State())
    private let scratch: AudioBuffer         // the interleaved renders' planar slice
    let serial = Soundtrack.serials.add(1, ordering: .relaxed).newValue   // never reused, unlike an address
    private static let serials = Atomic<UInt64>(0)
    private let outputRunning = Atomic<Bool>(false)

    /// A soundtrack with nothing playing. Any thread.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        scratch = AudioBuffer(capacity: configuration.maxFrames)
        effects = SoundEffectsNode(voices: configuration.effectVoices)
        clock = MusicClock(ParametersNode(board: parameterBoard, inner: master), fadeFrames: Int(configuration.pauseFadeSeconds * Double(configuration.sampleRate)))
        graph = AudioGraph(root: clock, format: AudioFormat(sampleRate: configuration.sampleRate), maxFrames: configuration.maxFrames)
        master.connect(effects)
        master.setLimiter(configuration.limiter)
    }

    // MARK: Loading (off the caller's thread)

    /// Starts loading a song on a worker thread and returns it at once, loading: its MIDI
    /// file read, its synthesizers made with the SoundFont loaded, its stems checked. Its
    /// `state`, `wait()` or a `songLoaded`/`songLoadFailed` event tell when it is done. Any thread.
    public func startLoading(_ description: SongDescription) -> Song {
        let song = Song(description: description, owner: self)
        let configuration = synthesizerConfiguration
        startLoad(into: song.loading, { () throws(SoundtrackError) in try Self.makeContent(description, configuration: configuration) },
                  loaded: { .songLoaded(song: song, sampleTime: $0) }, failed: { .songLoadFailed(song: song, error: $0, sampleTime: $1) })
        return song
    }

    /// Loads a song on a worker thread, as `startLoading`, and returns it ready. Throws one
    /// line for a bad file, font or stem. Any thread.
    public func load(_ description: SongDescription) async throws(SoundtrackError) -> Song {
        let song = startLoading(description)
        _ = try await song.loading.value()
        return song
    }

    /// Starts loading a sound effect (decoded whole into memory, converted to the
    /// soundtrack's rate) on a worker thread and returns it at once, loading. Any thread.
    public func startLoadingEffect(_ source: FileSource) -> Effect {
        let effect = Effect(name: source.name)
        let rate = configuration.sampleRate
        startLoad(into: effect.loading, { () throws(SoundtrackError) in
            do { return try SoundBuffer(reader: source.audioFileReader(), sampleRate: rate) } catch { throw SoundtrackError(.file, "\(error)") }
        }, loaded: { .effectLoaded(effect: effect, sampleTime: $0) }, failed: { .effectLoadFailed(effect: effect, error: $0, sampleTime: $1) })
        return effect
    }

    /// Loads a sound effect, as `startLoadingEffect`, and returns it ready. Any thread.
    public func loadEffect(_ source: FileSource) async throws(SoundtrackError) -> Effect {
        let effect = startLoadingEffect(source)
        _ = try await effect.loading.value()
        return effect
    }

    /// Runs `make` on a worker thread into `loading`, then reports the `loaded` or `failed` event.
    private func startLoad<Value: Sendable>(into loading: Loading<Value>, _ make: @escaping @Sendable () throws(SoundtrackError) -> Value,
                                            loaded: @escaping @Sendable (SampleTime) -> Event,
                                            failed: @escaping @Sendable (SoundtrackError, SampleTime) -> Event) {
        DispatchQueue.global().async { [weak self] in
            loading.finish(Result { () throws(SoundtrackError) in try make() })
            if case .failed(let error) = loading.state { self?.report { failed(error, $0) } } else { self?.report(loaded) }
        }
    }

    /// Adds the event `make` builds for the music clock's time now.
    private func report(_ make: (SampleTime) -> Event) {
        let time = clock.earliestUnrenderedTime
        state.withLock { $0.events.append(make(time)) }
    }

    private var synthesizerConfiguration: Synthesizer.Configuration {
        var c = configuration.synthesizer
        c.sampleRate = Double(configuration.sampleRate)
        return c
    }

    /// The song's sections: its description's table, else its markers.
    private static func sections(of sequence: MusicSequence, _ description: SongDescription) throws(SoundtrackError) -> [SongSection] {
        guard !description.sections.isEmpty else { return SongSection.sections(of: sequence) }
        do { return try SongSection.sections(of: sequence, table: description.sections) } catch {
            throw SoundtrackError(.argument, "\(description.midi.name): \(error)")
        }
    }

    private static func makeContent(_ description: SongDescription, configuration: Synthesizer.Configuration) throws(SoundtrackError) -> Song.Content {
        let sequence: MusicSequence
        do { sequence = try description.midi.musicSequence() } catch { throw SoundtrackError(.file, "\(error)") }
        var layerTracks: [[Int]] = []
        for name in description.trackLayers {
            let tracks = sequence.tracks.indices.filter { sequence.tracks[$0].name?.lowercased() == name.lowercased() }
            guard !tracks.isEmpty else { throw SoundtrackError(.argument, "\(description.midi.name): no track is named '\(name)'") }
            layerTracks.append(tracks)
        }
        for (name, source) in description.stems {
            do { _ = try source.audioFileReader() } catch { throw SoundtrackError(.file, "stem '\(name)': \(error)") }
        }
        let font = description.soundFont.soundFont
        let synthesizers = try makeSynthesizers(count: 1 + layerTracks.count, font: font, for: sequence, configuration: configuration)
        return Song.Content(sequence: sequence, loop: GameLoop.find(in: sequence, conventions: description.loopConventions),
                            sections: try sections(of: sequence, description), layerTracks: layerTracks, soundFont: font, spare: ControlLock([synthesizers]))
    }

    private static func makeSynthesizers(count: Int, font: SoundFontSource, for sequence: MusicSequence,
                                         configuration: Synthesizer.Configuration) throws(SoundtrackError) -> [Synthesizer] {
        var synthesizers: [Synthesizer] = []
        for _ in 0..<count {
            do {
                synthesizers.append(try font.makeSynthesizer(configuration: configuration, for: sequence))
            } catch {
                throw SoundtrackError(.file, "\(error)")
            }
        }
        return synthesizers
    }

    // MARK: Transport

    /// Plays `song` from its start, on `moment`, fading in over `fadeIn` seconds. A song
    /// already playing stops on that same frame, fading out over `fadeOut` seconds (both
    /// fades together make a crossfade). Throws if the song is not loaded, or `moment` is a
    /// marker not ahead. Any thread.
    public func play(_ song: Song, at moment: Moment = .now, fadeIn: Double = 0, fadeOut: Double = 0) throws(SoundtrackError) {
        try owned(song)
        let content = try Self.ready(song)
        let (fadeIn, fadeOut) = (try frames(fadeIn, "fade-in"), try frames(fadeOut, "fade-out"))
        try state.withLock { state throws(SoundtrackError) in
            maintain(&state)
            let time = try startTime(for: moment, state: state)
            let synthesizers = try takeSynthesizers(of: content)
            let deck = try makeDeck(song, content: content, synthesizers: synthesizers, startingAt: time, fadeIn: fadeIn, mappings: state.mappings)
            if let old = state.current { retire(old, at: time, fade: fadeOut, state: &state) }
            state.current = deck
        }
    }

    /// Crossfades from the playing song to `song` over `seconds`, starting on `moment`. Any thread.
    public func crossfade(to song: Song, seconds: Double, at moment: Moment = .now) throws(SoundtrackError) {
        try play(song, at: moment, fadeIn: seconds, fadeOut: seconds)
    }

    /// Stops the playing song on `moment`, fading out over `fadeOut` seconds; nothing when
    /// none plays. Throws if `moment` is a marker not ahead. Any thread.
    public func stop(at moment: Moment = .now, fadeOut: Double = 0) throws(SoundtrackError) {
        let fade = try frames(fadeOut, "fade-out")
        try state.withLock { state throws(SoundtrackError) in
            maintain(&state)
            guard let deck = state.current else { return }
            retire(deck, at: try startTime(for: moment, state: state), fade: fade, state: &state)
            state.current = nil
        }
    }

    /// Moves the playing song to its section `name` (a marker's text, any case) on `moment`
    /// (the next bar line unless told), on that frame exactly: the notes sounding are released
    /// and ring out with their release and the reverb, and the section's state (programs,
    /// controllers, pitch bend, from the song's start) is chased there. A `jumped` event
    /// reports it. Throws if no song plays, it has no such section, or `moment` is a marker
    /// not ahead. Any thread.
    public func jump(to name: String, at moment: Moment = .nextBar) throws(SoundtrackError) {
        try state.withLock { state throws(SoundtrackError) in
            guard let deck = state.current else {
                throw SoundtrackError(.state, "no song is playing, so there is no section '\(name)' to jump to")
            }
            let section = try section(name, of: deck.song)
            deck.node.player.jump(toTick: section.startTick, at: try startTime(for: moment, state: state))
        }
    }

    /// Plays `stinger` (a loaded song: a short MIDI phrase) over the playing song on `moment`
    /// (the next beat unless told), at the playing song's live tempo and transposition: its
    /// first tempo becomes the song's tempo there as played, so its notes fall on the song's
    /// grid; it sounds through synthesizers of its own at `volume`, and plays once, loops
    /// aside. At most `configuration.maxStingers` sound at once: when full, the one of lowest
    /// priority (the oldest of those) stops for a new one of at least its priority; a new one
    /// below them all is refused. Throws if it is not loaded or `moment` cannot be. Any thread.
    public func playStinger(_ stinger: Song, at moment: Moment = .nextBeat, priority: Int = 0, volume: Float = 1) throws(SoundtrackError) {
        try owned(stinger)
        let content = try Self.ready(stinger)
        let volume = try Self.gain(volume, "stinger volume")
        try state.withLock { state throws(SoundtrackError) in
            maintain(&state)
            let sounding = state.soundingStingers
            if sounding.count >= configuration.maxStingers {
                guard let lowest = sounding.min(by: { $0.priority < $1.priority }), lowest.priority <= priority else {
                    throw SoundtrackError(.busy, "\(stinger.name): \(sounding.count) stingers of higher priority already sound (priority \(priority))")
                }
                cut(lowest, at: clock.earliestUnrenderedTime)
            }
            let time = try startTime(for: moment, state: state)
            var phrase = content.sequence
            var transpose = 0
            if let deck = state.current, let tick = deck.node.player.tick(at: time) {
                // The song's tempo there as played: the phrase's first tempo becomes it.
                let live = Double(deck.node.player.score.tempoMap.segment(atTick: tick).microsecondsPerQuarter) * 100 / Double(deck.ratePercent)
                phrase = phrase.startingAtTempo(microsecondsPerQuarter: live)
                transpose = deck.transpose
            }
            let played = Song.Content(sequence: phrase, loop: nil, sections: [], layerTracks: content.layerTracks,
                                      soundFont: content.soundFont, spare: content.spare)
            let deck = try makeDeck(stinger, content: played, synthesizers: try takeSynthesizers(of: content), startingAt: time, fadeIn: 0,
                                    volume: volume, transpose: transpose, reportsBeats: false, mappings: state.mappings)
            deck.priority = priority
            state.stingers.append(deck)
        }
    }

    /// Pauses all music and effects where they are (after a short fade); `resume` goes on
    /// from the same frame. Any thread.
    public func pause() { clock.setPaused(true) }
    /// Resumes after `pause`. Any thread.
    public func resume() { clock.setPaused(false) }

    /// Plays the playing song at `percent` (1...1000) of its written tempo. Any thread.
    public func setTempo(percent: Int) throws(SoundtrackError) {
        guard (1...1000).contains(percent) else { throw SoundtrackError(.argument, "tempo \(percent)%: use 1 to 1000 percent") }
        state.withLock { state in
            state.current?.node.player.setRate(percent: percent)
            state.current?.ratePercent = percent
        }
    }

    /// Transposes the playing song (every channel but 10) by `semitones` (−48...48). Any thread.
    public func setTranspose(semitones: Int) throws(SoundtrackError) {
        guard (-48...48).contains(semitones) else { throw SoundtrackError(.argument, "transpose by \(semitones): use −48 to 48 semitones") }
        state.withLock { state in
            state.current?.node.player.setTranspose(semitones: semitones)
            state.current?.transpose = semitones
        }
    }

    /// Fades the playing song's layer `name` (a track layer or a stem) to `volume` (linear,
    /// 0...16) over `seconds`, from the next cycle or on `moment`. Throws if the song has no
    /// such layer. Any thread.
    public func setLayer(_ name: String, volume: Float, seconds: Double = 0, at moment: Moment = .now) throws(SoundtrackError) {
        let volume = try Self.gain(volume, "layer '\(name)' volume")
        let ramp = try frames(seconds, "fade")
        try state.withLock { state throws(SoundtrackError) in
            guard let deck = state.current else { throw SoundtrackError(.state, "no song is playing, so there is no layer '\(name)'") }
            guard let input = deck.layers[name.lowercased()] else {
                throw SoundtrackError(.argument, "\(deck.song.name) has no layer '\(name)' (layers: \(deck.layers.keys.sorted().joined(separator: ", ")))")
            }
            var settings = deck.node.bus.settings(ofInput: input) ?? MixerNode.InputSettings()
            settings.volume = volume
            deck.node.bus.set(settings, forInput: input, at: try startTime(for: moment, state: state), rampFrames: ramp)
        }
    }

    /// Plays a sound effect on `moment` (a stinger on the next bar line) at `volume` (linear,
    /// 0...16) and `pan` (−1 left … 1 right). Throws if it is not loaded, or when 256 starts
    /// already wait for the audio side. Any thread.
    public func playEffect(_ effect: Effect, at moment: Moment = .now, volume: Float = 1, pan: Float = 0) throws(SoundtrackError) {
        guard let sound = effect.sound else { throw Self.notReady(effect.name, effect.state) }
        let volume = try Self.gain(volume, "effect volume")
        guard pan.isFinite, (-1...1).contains(pan) else { throw SoundtrackError(.argument, "pan \(pan): use −1 (left) to 1 (right)") }
        try state.withLock { state throws(SoundtrackError) in
            guard effects.play(sound, at: try startTime(for: moment, state: state), volume: volume, pan: pan) else {
                throw SoundtrackError(.busy, "\(effect.name): 256 effect starts already wait for the audio; is it being pulled?")
            }
        }
    }

    /// Sets the volume of everything (linear, 0...16) over `seconds`. Any thread.
    public func setMasterVolume(_ volume: Float, seconds: Double = 0.01) throws(SoundtrackError) {
        let volume = try Self.gain(volume, "master volume")
        let ramp = try frames(seconds, "fade")
        state.withLock { _ in master.setOutputGain(volume, rampFrames: ramp) }
    }

    /// Stingers sounding now (not those ringing out after their end). Any thread.
    public var stingersSounding: Int {
        state.withLock { state in
            maintain(&state)
            return state.soundingStingers.count
        }
    }

    /// The output's peak and RMS over the last cycle. Any thread.
    public var meters: (peak: Float, rms: Float) { master.meters }

    // MARK: Events

    /// Takes what happened since the last call, oldest first, at most `limit` events (the
    /// rest wait for the next call), and lets go of songs that have faded out. Call it often
    /// (each game frame), or use `deliverEvents`. Any thread.
    public func pollEvents(limit: Int = .max) -> [Event] {
        state.withLock { state in
            maintain(&state)
            for deck in state.fading + state.segments + (state.current.map { [$0] } ?? []) { collectEvents(of: deck, into: &state.events, output: state.output) }
            state.events.sort { $0.sampleTime < $1.sampleTime }   // stable: same-time events keep their order
            let taken = Array(state.events.prefix(max(0, limit)))
            state.events.removeFirst(taken.count)
            return taken
        }
    }

    /// Moves what `deck`'s player has reported into `events`; `output` is the soundtrack's own.
    private func collectEvents(of deck: Deck, into events: inout [Event], output: (any AudioOutput)?) {
        let song = deck.song
        for event in deck.node.player.pollEvents() {
            switch event {
            case .marker(let text, _, let time), .cuePoint(let text, _, let time): events.append(.marker(song: song, text: text, sampleTime: time))
            case .beat(let bar, let beat, let tick, let time, let rate):
                events.append(.beat(song: song, details(ofBeat: (bar, beat, tick, time, rate), deck: deck, output: output)))
            case .loopWrapped(let time): events.append(.loopWrapped(song: song, sampleTime: time))
            case .ended(let time): events.append(.songEnded(song: song, sampleTime: time))
            case .jumped(let tick, let time):
                let section = deck.song.sections.section(atTick: tick)?.name ?? ""
                events.append(.jumped(song: song, section: section, sampleTime: time))
            case .userEvent: break
            }
        }
    }

    /// A beat of `deck`'s song (its player's bar, beat, tick, time and rate) with its meter, tempo,
    /// section and, through `output`, the moment it is heard.
    private func details(ofBeat beat: (bar: Int, beat: Int, tick: Int, time: SampleTime, rate: Int), deck: Deck, output: (any AudioOutput)?) -> Beat {
        let score = deck.node.player.score
        let meter = score.meterMap?.segments.last { $0.tick <= beat.tick }
        let written = score.tempoMap.segment(atTick: beat.tick).beatsPerMinute
        let heard = output?.frameZeroNanos.map { zero in
            zero + clock.graphTime(ofMusicTime: beat.time) * 1_000_000_000 / Int64(configuration.sampleRate)
        }
        return Beat(bar: beat.bar, beat: beat.beat, beatsPerBar: meter?.beatsPerBar ?? 4, beatUnit: meter?.beatUnit ?? 4,
                    bpm: written * Double(beat.rate) / 100, section: deck.song.sections.section(atTick: beat.tick)?.name,
                    tick: beat.tick, sampleTime: beat.time, heardAtNanos: heard)
    }

    /// Calls `handler` on `queue` with each event, polling every `interval` seconds; `nil`
    /// stops delivery. Any thread.
    public func deliverEvents(on queue: DispatchQueue?, every interval: Double = 0.01, _ handler: @escaping @Sendable (Event) -> Void = { _ in }) {
        let timer = queue.map { DispatchSource.makeTimerSource(queue: $0) }
        timer?.schedule(deadline: .now(), repeating: interval)
        timer?.setEventHandler { [weak self] in
            for event in self?.pollEvents() ?? [] { handler(event) }
        }
        let delivery = timer.map(Delivery.init)
        let previous = state.withLock { state in
            defer { state.delivery = delivery }
            return state.delivery
        }
        previous?.timer.cancel()
        timer?.resume()
    }

    // MARK: Output

    /// Renders the next `frameCount` frames into `left` and `right`, for a game that owns the
    /// audio callback. Allocates nothing, takes no lock. False (and silence) while Pianola's
    /// own output runs, which alone pulls the soundtrack then. Render thread only.
    @discardableResult
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) -> Bool {
        render(into: StereoSlice(left: left, right: right, frames: frameCount))
    }

    /// Renders the next `output.frames` frames, as `render(left:right:frameCount:)`. Render thread only.
    @discardableResult
    public func render(into output: StereoSlice) -> Bool {
        guard !outputRunning.load(ordering: .acquiring) else {
            output.clear()
            return false
        }
        graph.render(into: output)
        return true
    }

    /// Renders the next `frameCount` frames as interleaved float pairs (left, right): what SDL,
    /// miniaudio and most engines hand their callback. As `render(into:)`. Render thread only.
    @discardableResult
    public func render(interleaved: UnsafeMutablePointer<Float>, frameCount: Int) -> Bool {
        renderInterleaved(frameCount) { slice, done in slice.interleave(into: interleaved + 2 * done) }
    }

    /// Renders the next `frameCount` frames as interleaved signed 16-bit pairs (each sample
    /// times 32767, rounded, held at full scale). As `render(into:)`. Render thread only.
    @discardableResult
    public func render(interleaved: UnsafeMutablePointer<Int16>, frameCount: Int) -> Bool {
        renderInterleaved(frameCount) { slice, done in slice.interleave(into: interleaved + 2 * done) }
    }

    /// Renders `frameCount` frames through the scratch slice, handing each part and the frames
    /// before it to `store`.
    @inline(__always)
    private func renderInterleaved(_ frameCount: Int, _ store: (StereoSlice, Int) -> Void) -> Bool {
        var done = 0, rendered = true
        while done < frameCount {
            let slice = scratch.slice(frames: min(scratch.capacity, frameCount - done))
            rendered = render(into: slice) && rendered
            store(slice, done)
            done += slice.frames
        }
        return rendered
    }

    /// Plays through Pianola's own output: `device` on `driver` (the default driver's default
    /// device when `nil`: see `AudioOutputs.defaultDriver`), of the JACK server or PipeWire
    /// socket `server` when given (else the default one); returns a note if real-time
    /// priority was refused. Throws one line if the output cannot be opened, or runs at
    /// another rate or a larger period than the soundtrack renders. Any thread.
    @discardableResult
    public func startOutput(driver: AudioDriver? = nil, device: String? = nil, server: String? = nil,
                            periodFrames: Int = 512, periods: Int = 3) throws(SoundtrackError) -> String? {
        try state.withLock { state throws(SoundtrackError) in
            guard state.output == nil else { throw SoundtrackError(.state, "the soundtrack's own output already plays") }
            var c = AudioOutputConfiguration()
            c.device = device
            c.server = server
            c.sampleRate = configuration.sampleRate
            c.periodFrames = min(periodFrames, configuration.maxFrames)
            c.periods = periods
            let output: any AudioOutput
            do { output = try AudioOutputs.open(driver, configuration: c) } catch { throw SoundtrackError(.device, "\(error)") }
            guard output.format.sampleRate == configuration.sampleRate, output.format.periodFrames <= configuration.maxFrames else {
                throw SoundtrackError(.device, "\(output.driver.displayName) output '\(output.deviceName)' runs at \(output.format.sampleRate) Hz in \(output.format.periodFrames)-frame periods; the soundtrack renders \(configuration.sampleRate) Hz in at most \(configuration.maxFrames)")
            }
            state.output = output
            outputRunning.store(true, ordering: .releasing)
            return output.start(pulling: graph)
        }
    }

    /// Whether Pianola's own output is running (the render calls then do nothing). Any thread.
    public var isOutputRunning: Bool { outputRunning.load(ordering: .acquiring) }

    /// Stops Pianola's own output at once (what the device still holds is dropped). Any thread.
    public func stopOutput() {
        let output = state.withLock { state in
            defer { state.output = nil }
            return state.output
        }
        output?.stop(drain: false)
        outputRunning.store(false, ordering: .releasing)
    }

    // MARK: Inside (under the lock)

    /// `seconds` as frames at the soundtrack's rate; throws for a negative, endless or
    /// absurd (over an hour) length, which `what` names.
    func frames(_ seconds: Double, _ what: String) throws(SoundtrackError) -> Int {
        guard seconds.isFinite, (0...3600).contains(seconds) else { throw SoundtrackError(.argument, "\(what) of \(seconds) s: use 0 to 3600 seconds") }
        return Int((seconds * Double(configuration.sampleRate)).rounded())
    }

    /// `volume` if it is a gain a fader takes (0...16); else throws, naming `what`.
    private static func gain(_ volume: Float, _ what: String) throws(SoundtrackError) -> Float {
        guard volume.isFinite, (0...16).contains(volume) else { throw SoundtrackError(.argument, "\(what) \(volume): use 0 to 16 (1 is as written)") }
        return volume
    }

    /// The loaded content of `song`, or the error that says why it cannot play yet.
    static func ready(_ song: Song) throws(SoundtrackError) -> Song.Content {
        guard let content = song.loading.value else { throw notReady(song.name, song.state) }
        return content
    }

    /// Why `name` in `state` cannot play.
    private static func notReady(_ name: String, _ state: LoadState) -> SoundtrackError {
        if case .failed(let error) = state { return SoundtrackError(.state, "\(name) did not load: \(error)") }
        return SoundtrackError(.state, "\(name) is still loading; wait for it (its state, wait(), or its loaded event)")
    }

    /// The music time of `moment`.
    func startTime(for moment: Moment, state: State) throws(SoundtrackError) -> SampleTime {
        let earliest = clock.earliestUnrenderedTime
        let player = state.current?.node.player
        switch moment {
        case .now: return earliest
        case .nextBeat: return player?.nextTime(on: .beat, atOrAfter: earliest)?.time ?? earliest
        case .nextBar: return player?.nextTime(on: .bar, atOrAfter: earliest)?.time ?? earliest
        case .marker(let name):
            guard let deck = state.current else { throw SoundtrackError(.state, "no song is playing, so there is no marker '\(name)' to wait for") }
            guard let next = deck.node.player.nextTime(ofMarker: name, atOrAfter: earliest) else {
                throw SoundtrackError(.state, "\(deck.song.name) does not reach a marker '\(name)' again")
            }
            return next.time
        case .sectionEnd:
            guard let deck = state.current, let content = deck.song.loading.value else {
                throw SoundtrackError(.state, "no song is playing, so no section ends")
            }
            let ends = Set(content.sections.map { $0.name.lowercased() }).compactMap { deck.node.player.nextTime(ofMarker: $0, atOrAfter: earliest)?.time }
            guard let end = ends.min() else { throw SoundtrackError(.state, "\(deck.song.name) reaches no section after the one playing") }
            return end
        }
    }

    /// A set of synthesizers for a song: one made in the background if ready, or new ones
    /// made here (a song played again at once, or crossfaded into itself).
    func takeSynthesizers(of content: Song.Content) throws(SoundtrackError) -> [Synthesizer] {
        if let ready = content.spare.withLock({ $0.popLast() }) { return ready }
        return try Self.makeSynthesizers(count: 1 + content.layerTracks.count, font: content.soundFont, for: content.sequence,
                                         configuration: synthesizerConfiguration)
    }

    /// A deck playing `content` of `song` through `synthesizers` from `time`, fading in over
    /// `fadeIn` frames to `volume` along `fadeShape`: its ticks `span` only when given (from the state chased at
    /// its start, ending at its end), else the whole song; the game parameters move it by `mappings`.
    func makeDeck(_ song: Song, content: Song.Content, synthesizers: [Synthesizer], startingAt time: SampleTime, fadeIn: Int,
                  fadeShape: FadeShape = .linear, volume: Float = 1, transpose: Int = 0, reportsBeats: Bool = true,
                  span: Range<Int>? = nil, mappings: [ParameterMapping]) throws(SoundtrackError) -> Deck {
        let samplers = synthesizers.map { SamplerNode(synthesizer: $0) }
        var trackDestinations = Array(repeating: 0, count: content.sequence.tracks.count)
        var layers: [String: Int] = [:]
        for (layer, tracks) in content.layerTracks.enumerated() {
            for track in tracks { trackDestinations[track] = layer + 1 }
            layers[song.description.trackLayers[layer].lowercased()] = layer + 1
        }
        let stemNames = song.description.stems.keys.sorted()
        for (i, name) in stemNames.enumerated() { layers[name.lowercased()] = samplers.count + i }
        let bus = MixerNode()
        let busInputs = song.description.controllersDriveLayers ? samplers.indices.map { $0 == 0 ? -1 : $0 } : nil
        let modulation = DeckModulation(mappings, layers: layers, sections: content.sections, board: parameterBoard)
        let player = Player(sequence: content.sequence, sampleRate: configuration.sampleRate, destinations: samplers,
                            trackDestinations: trackDestinations, parameters: bus, busInputs: busInputs, controllers: modulation,
                            sections: modulation?.choosesSections == true ? modulation : nil)
        if let loop = content.loop { player.setLoop(startTick: loop.startTick, endTick: loop.endTick, count: loop.count) }
        player.reportBeats(reportsBeats)
        if transpose != 0 { player.setTranspose(semitones: transpose) }
        if let span {
            if span.lowerBound > 0 { player.seek(toTick: span.lowerBound) }
            if span.upperBound < content.sequence.length { player.setEnd(tick: span.upperBound) }
        }
        var stems: [any AudioNode] = []
        for name in stemNames {
            let source = song.description.stems[name]!
            var playing = FilePlayerNode.Playing()
            playing.startTime = time
            // Started into a span, a stem starts as far into its file.
            playing.startOffset = span.map { content.sequence.tempoMap.sampleFrame(atTick: $0.lowerBound, sampleRate: configuration.sampleRate) } ?? 0
            playing.plays = content.loop?.count ?? 1
            do {
                stems.append(try FilePlayerNode(reader: source.audioFileReader(), sampleRate: configuration.sampleRate, playing: playing))
            } catch {
                throw SoundtrackError(.file, "stem '\(name)': \(error)")
            }
        }
        let node = SongNode(player: player, bus: bus, sources: samplers + stems)
        node.modulation = modulation
        var settings = MixerNode.InputSettings()
        settings.volume = fadeIn > 0 ? 0 : volume
        let input = master.connect(node, settings: settings)
        if fadeIn > 0 { fade(input: input, from: 0, to: volume, at: time, frames: fadeIn, shape: fadeShape) }
        player.start(at: time)
        let deck = Deck(song: song, node: node, input: input, layers: layers)
        deck.transpose = transpose
        return deck
    }

    /// Moves master input `input`'s volume from `from` to `to` over `frames` from `time`: one
    /// ramp, or for an equal-power fade a quarter sine drawn as `equalPowerPieces` ramps.
    private func fade(input: Int, from: Float, to: Float, at time: SampleTime, frames: Int, shape: FadeShape) {
        var settings = master.settings(ofInput: input) ?? MixerNode.InputSettings()
        guard shape == .equalPower, frames > 0 else {
            settings.volume = to
            master.set(settings, forInput: input, at: time, rampFrames: frames)
            return
        }
        let pieces = Self.equalPowerPieces
        for k in 1...pieces {
            let (start, end) = (frames * (k - 1) / pieces, frames * k / pieces)
            let phase = Double(k) / Double(pieces) * .pi / 2
            let share = to > from ? sin(phase) : 1 - cos(phase)   // rising along a sine, falling along a cosine
            settings.volume = from + (to - from) * Float(share)
            master.set(settings, forInput: input, at: time + SampleTime(start), rampFrames: end - start)
        }
    }

    /// The straight pieces of an equal-power fade.
    static let equalPowerPieces = 16

    /// Songs fading out at once, at most, and transition segments; a game switching faster
    /// than its fades end cuts the oldest (by then the quietest) rather than filling the mixer.
    static let maxFading = 4

    /// Fades `deck` out from `time` over `fade` frames and stops its player at the end.
    func retire(_ deck: Deck, at time: SampleTime, fade: Int, shape: FadeShape = .linear, state: inout State) {
        self.fade(input: deck.input, from: master.settings(ofInput: deck.input)?.volume ?? 1, to: 0, at: time, frames: fade, shape: shape)
        deck.node.player.stop(at: time + SampleTime(fade))
        deck.retireAt = time + SampleTime(fade)
        state.fading.append(deck)
        while state.fading.count > Self.maxFading {
            let oldest = state.fading.removeFirst()
            disconnect(oldest, state: &state)
        }
    }

    /// How long a stopped or finished stinger or transition segment stays connected, so its
    /// release and reverb ring out.
    static let ringOutSeconds = 3

    /// Leaves `deck` (a stinger or segment) connected for its tail from `time` (now when
    /// `nil`), then `maintain` disconnects it.
    private func ringOut(_ deck: Deck, from time: SampleTime? = nil) {
        deck.retireAt = (time ?? clock.earliestUnrenderedTime) + SampleTime(Self.ringOutSeconds * configuration.sampleRate)
    }

    /// Stops `deck` (a stinger or segment) at `time`, its notes released there to ring out.
    func cut(_ deck: Deck, at time: SampleTime) {
        deck.node.player.stop(at: time)
        ringOut(deck, from: time)
    }

    /// Disconnects decks whose fade has ended, and makes their song a fresh set of
    /// synthesizers in the background, so playing it again does not wait for its font.
    func maintain(_ state: inout State) {
        let now = clock.earliestUnrenderedTime
        for stinger in state.stingers { _ = stinger.node.player.pollEvents() }   // a stinger's markers are not the game's
        state.stingers = ringOutFinished(state.stingers, state: &state)
        state.segments = ringOutFinished(state.segments, state: &state)
        state.events += state.scheduled.filter { $0.sampleTime < now }
        state.scheduled.removeAll { $0.sampleTime < now }
        let done = state.fading.filter { deck in deck.retireAt.map { $0 + SampleTime(configuration.maxFrames) <= now } ?? false }
        state.fading.removeAll { deck in done.contains { $0 === deck } }
        for deck in done { disconnect(deck, state: &state) }
        master.collectDisconnected()
    }

    /// `decks` less those rung out, which are disconnected: each rings out once its player
    /// has finished. Taken out as a song's deck is, so its song gets fresh synthesizers in the
    /// background and the next stinger or segment does not load its font on the caller's thread.
    private func ringOutFinished(_ decks: [Deck], state: inout State) -> [Deck] {
        let now = clock.earliestUnrenderedTime
        for deck in decks where deck.retireAt == nil && deck.node.player.isFinished { ringOut(deck) }
        let rung = decks.filter { deck in deck.retireAt.map { $0 <= now } ?? false }
        for deck in rung { disconnect(deck, state: &state) }
        return decks.filter { deck in !rung.contains { $0 === deck } }
    }

    /// Takes `deck` out of the mix, keeping the events it has not handed out yet, and makes
    /// its song a fresh set of synthesizers in the background (at most one set waits per song).
    func disconnect(_ deck: Deck, state: inout State) {
        collectEvents(of: deck, into: &state.events, output: state.output)
        master.disconnect(input: deck.input)
        guard let content = deck.song.loading.value, content.spare.withLock({ $0.isEmpty }) else { return }
        let configuration = synthesizerConfiguration
        DispatchQueue.global().async {
            guard let fresh = try? Self.makeSynthesizers(count: 1 + content.layerTracks.count, font: content.soundFont, for: content.sequence,
                                                         configuration: configuration) else { return }
            content.spare.withLock { if $0.isEmpty { $0.append(fresh) } }
        }
    }
}

/// A soundtrack call that could not be done: one line saying what and why, and what kind of
/// fault it was. Any thread.
public struct SoundtrackError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of fault. Any thread.
    public enum Kind: Hashable, Sendable {
        /// A value out of its range, or a name the song does not have. Any thread.
        case argument
        /// The call does not fit the moment: a song still loading or failed, none playing,
        /// the output already running. Any thread.
        case state
        /// A file or bytes that cannot be read, or are not what they should be. Any thread.
        case file
        /// An audio device that cannot be opened or does not take the soundtrack's format. Any thread.
        case device
        /// A queue to the audio side is full: pull audio, then try again. Any thread.
        case busy
    }

    /// What kind of fault. Any thread.
    public let kind: Kind
    /// The line. Any thread.
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

extension Soundtrack.Event {
    /// When it sounded, or was reported, on the soundtrack's music clock. Any thread.
    public var sampleTime: SampleTime {
        switch self {
        case .marker(_, _, let t), .loopWrapped(_, let t), .jumped(_, _, let t), .transitioned(_, _, _, _, let t), .songEnded(_, let t),
             .songLoaded(_, let t), .songLoadFailed(_, _, let t), .effectLoaded(_, let t), .effectLoadFailed(_, _, let t):
            return t
        case .beat(_, let beat):
            return beat.sampleTime
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
