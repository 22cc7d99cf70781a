import ALSA
import Dispatch
import Engine
import FluidSynth
import MIDI
import Sequencing
import Streaming

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

        /// The defaults. Any thread.
        public init() {}
    }

    /// A song to load: its MIDI file, the SoundFont it plays with, audio stems and layers. Any thread.
    public struct SongDescription: Hashable, Sendable {
        /// The Standard MIDI File. Any thread.
        public var midiPath: String
        /// The SoundFont. Any thread.
        public var soundFontPath: String
        /// Audio files that play with the song from its start, by layer name. A stem loops
        /// whole when the song loops. Any thread.
        public var stems: [String: String] = [:]
        /// Names of tracks (their track-name meta event, any case) to fade on their own. Each
        /// gets a synthesizer of its own, so its fader also fades its reverb. Any thread.
        public var trackLayers: [String] = []
        /// The loop conventions to look for, in order (`[]`: play through once). Any thread.
        public var loopConventions = GameLoop.defaultConventions
        /// When true, a track layer's channel volume and pan (CC7, CC10) move the layer's own
        /// fader instead of its synthesizer's channel (times the volume `setLayer` gives it). Any thread.
        public var controllersDriveLayers = false

        /// `midiPath` played with `soundFontPath`. Any thread.
        public init(midiPath: String, soundFontPath: String) {
            self.midiPath = midiPath
            self.soundFontPath = soundFontPath
        }
    }

    /// A song loaded and ready: its sequence read, its synthesizers made with the font loaded,
    /// its stems checked. Play it as often as wanted. Any thread.
    public final class Song: Sendable {
        /// What was loaded. Any thread.
        public let description: SongDescription
        /// The sequence. Any thread.
        public let sequence: MusicSequence
        /// Where it loops, if it marks a loop. Any thread.
        public let loop: GameLoop?
        fileprivate let synthesizers: ControlLock<[[Synthesizer]]>   // sets of (main + one per layer) ready to play
        fileprivate let layerTracks: [[Int]]                    // per track layer: its tracks

        fileprivate init(description: SongDescription, sequence: MusicSequence, synthesizers: [Synthesizer], layerTracks: [[Int]]) {
            self.description = description
            self.sequence = sequence
            loop = GameLoop.find(in: sequence, conventions: description.loopConventions)
            self.synthesizers = ControlLock([synthesizers])
            self.layerTracks = layerTracks
        }
    }

    /// When a change happens. Any thread.
    public enum Moment: Hashable, Sendable {
        /// As soon as the audio can take it.
        case now
        /// On the next beat of the playing song (now if none plays).
        case nextBeat
        /// On the next bar line of the playing song (now if none plays).
        case nextBar
    }

    /// Something that happened in the music, reported on the caller's side. Any thread.
    public enum Event: Hashable, Sendable {
        /// A marker (or cue point) of `song` sounded. Any thread.
        case marker(song: String, text: String, sampleTime: SampleTime)
        /// A beat sounded; beat 1 is a bar line. Any thread.
        case beat(song: String, bar: Int, beat: Int, sampleTime: SampleTime)
        /// The song went back to its loop's start. Any thread.
        case loopWrapped(song: String, sampleTime: SampleTime)
        /// The song played to its end. Any thread.
        case songEnded(song: String, sampleTime: SampleTime)
    }

    /// One song playing (or fading out) in the graph.
    private final class Deck {
        let song: Song
        let node: SongNode
        let input: Int                       // the master mixer input
        let layers: [String: Int]            // layer name (lowercased) → bus input
        var retireAt: SampleTime?            // silent and stopped from here: disconnect once rendered past it

        init(song: Song, node: SongNode, input: Int, layers: [String: Int]) {
            self.song = song
            self.node = node
            self.input = input
            self.layers = layers
        }
    }

    private struct State {
        var current: Deck?
        var fading: [Deck] = []
        var output: PCMOutput?
        var delivery: Delivery?
    }

    /// The timer that polls events onto the caller's queue.
    private struct Delivery: @unchecked Sendable {
        // @unchecked Sendable: a Dispatch source may be cancelled from any thread.
        let timer: DispatchSourceTimer
    }

    /// The configuration. Any thread.
    public let configuration: Configuration
    /// The graph `startOutput` or `render(into:)` pulls. Render thread once pulled.
    private let graph: AudioGraph
    private let clock: MusicClock
    private let master = MixerNode()
    private let effects: SoundEffectsNode
    private let state = ControlLock(State())

    /// A soundtrack with nothing playing. Any thread.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        effects = SoundEffectsNode(voices: configuration.effectVoices)
        clock = MusicClock(master, fadeFrames: Int(configuration.pauseFadeSeconds * Double(configuration.sampleRate)))
        graph = AudioGraph(root: clock, format: AudioFormat(sampleRate: configuration.sampleRate), maxFrames: configuration.maxFrames)
        master.connect(effects)
        master.setLimiter(configuration.limiter)
    }

    // MARK: Loading (off the caller's thread)

    /// Loads a song on a background thread: reads the MIDI file, makes its synthesizers and
    /// loads the SoundFont into them, and checks its stems open. Throws one line for a bad
    /// file, font or stem. Any thread.
    public func load(_ description: SongDescription) async throws -> Song {
        let configuration = synthesizerConfiguration
        return try await Self.offThread { try Self.makeSong(description, configuration: configuration) }
    }

    /// Loads a sound effect (decoded whole into memory, converted to the soundtrack's rate)
    /// on a background thread. Any thread.
    public func loadEffect(path: String) async throws -> SoundBuffer {
        let rate = configuration.sampleRate
        return try await Self.offThread { try SoundBuffer(path: path, sampleRate: rate) }
    }

    private var synthesizerConfiguration: Synthesizer.Configuration {
        var c = configuration.synthesizer
        c.sampleRate = Double(configuration.sampleRate)
        return c
    }

    /// Runs `work` on a Dispatch worker thread and resumes with its result.
    private static func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    private static func makeSong(_ description: SongDescription, configuration: Synthesizer.Configuration) throws -> Song {
        let file = try MIDIFile(contentsOf: description.midiPath)
        let sequence = MusicSequence(file: file)
        var layerTracks: [[Int]] = []
        for name in description.trackLayers {
            let tracks = sequence.tracks.indices.filter { sequence.tracks[$0].name?.lowercased() == name.lowercased() }
            guard !tracks.isEmpty else { throw SoundtrackError("\(description.midiPath): no track is named '\(name)'") }
            layerTracks.append(tracks)
        }
        for (name, path) in description.stems {
            do { _ = try AudioFileReader(path: path) } catch { throw SoundtrackError("stem '\(name)': \(error)") }
        }
        let synthesizers = try makeSynthesizers(count: 1 + layerTracks.count, font: description.soundFontPath, configuration: configuration)
        return Song(description: description, sequence: sequence, synthesizers: synthesizers, layerTracks: layerTracks)
    }

    private static func makeSynthesizers(count: Int, font: String, configuration: Synthesizer.Configuration) throws -> [Synthesizer] {
        try (0..<count).map { _ in
            let synthesizer = try Synthesizer(configuration: configuration)
            _ = try synthesizer.loadSoundFont(path: font)
            return synthesizer
        }
    }

    // MARK: Transport

    /// Plays `song` from its start, on `moment`, fading in over `fadeIn` seconds. A song
    /// already playing stops on that same frame, fading out over `fadeOut` seconds (both
    /// fades together make a crossfade). Any thread.
    public func play(_ song: Song, at moment: Moment = .now, fadeIn: Double = 0, fadeOut: Double = 0) throws {
        try state.withLock { state in
            maintain(&state)
            let time = startTime(for: moment, state: state)
            let synthesizers = try takeSynthesizers(of: song)
            let deck = try makeDeck(song, synthesizers: synthesizers, startingAt: time, fadeIn: frames(fadeIn))
            if let old = state.current { retire(old, at: time, fade: frames(fadeOut), state: &state) }
            state.current = deck
        }
    }

    /// Crossfades from the playing song to `song` over `seconds`, starting on `moment`. Any thread.
    public func crossfade(to song: Song, seconds: Double, at moment: Moment = .now) throws {
        try play(song, at: moment, fadeIn: seconds, fadeOut: seconds)
    }

    /// Stops the playing song on `moment`, fading out over `fadeOut` seconds. Any thread.
    public func stop(at moment: Moment = .now, fadeOut: Double = 0) {
        state.withLock { state in
            maintain(&state)
            guard let deck = state.current else { return }
            retire(deck, at: startTime(for: moment, state: state), fade: frames(fadeOut), state: &state)
            state.current = nil
        }
    }

    /// Pauses all music and effects where they are (after a short fade); `resume` goes on
    /// from the same frame. Any thread.
    public func pause() { clock.setPaused(true) }
    /// Resumes after `pause`. Any thread.
    public func resume() { clock.setPaused(false) }

    /// Plays the playing song at `percent` of its written tempo (1...1000). Any thread.
    public func setTempo(percent: Int) {
        state.withLock { $0.current?.node.player.setRate(percent: percent) }
    }

    /// Transposes the playing song (every channel but 10) by `semitones`. Any thread.
    public func setTranspose(semitones: Int) {
        state.withLock { $0.current?.node.player.setTranspose(semitones: semitones) }
    }

    /// Fades the playing song's layer `name` (a track layer or a stem) to `volume` over
    /// `seconds`, from the next cycle or on `moment`. Throws if the song has no such layer. Any thread.
    public func setLayer(_ name: String, volume: Float, seconds: Double = 0, at moment: Moment = .now) throws {
        try state.withLock { state in
            guard let deck = state.current else { throw SoundtrackError("no song is playing, so there is no layer '\(name)'") }
            guard let input = deck.layers[name.lowercased()] else {
                throw SoundtrackError("\(deck.song.description.midiPath) has no layer '\(name)' (layers: \(deck.layers.keys.sorted().joined(separator: ", ")))")
            }
            var settings = deck.node.bus.settings(ofInput: input) ?? MixerNode.InputSettings()
            settings.volume = volume
            deck.node.bus.set(settings, forInput: input, at: startTime(for: moment, state: state), rampFrames: frames(seconds))
        }
    }

    /// Plays a sound effect on `moment` (a stinger on the next bar line); false (not played)
    /// when 256 starts already wait for the audio side. Any thread.
    @discardableResult
    public func playEffect(_ sound: SoundBuffer, at moment: Moment = .now, volume: Float = 1, pan: Float = 0) -> Bool {
        state.withLock { state in
            effects.play(sound, at: startTime(for: moment, state: state), volume: volume, pan: pan)
        }
    }

    /// Sets the volume of everything (linear) over `seconds`. Any thread.
    public func setMasterVolume(_ volume: Float, seconds: Double = 0.01) {
        state.withLock { _ in master.setOutputGain(volume, rampFrames: frames(seconds)) }
    }

    /// The output's peak and RMS over the last cycle. Any thread.
    public var meters: (peak: Float, rms: Float) { master.meters }

    // MARK: Events

    /// Takes what happened since the last call, oldest first, and lets go of songs that have
    /// faded out. Call it often (each game frame), or use `deliverEvents`. Any thread.
    public func pollEvents() -> [Event] {
        state.withLock { state in
            maintain(&state)
            var events: [Event] = []
            for deck in state.fading + (state.current.map { [$0] } ?? []) {
                let name = deck.song.description.midiPath
                for event in deck.node.player.pollEvents() {
                    switch event {
                    case .marker(let text, _, let time), .cuePoint(let text, _, let time): events.append(.marker(song: name, text: text, sampleTime: time))
                    case .beat(let bar, let beat, _, let time): events.append(.beat(song: name, bar: bar, beat: beat, sampleTime: time))
                    case .loopWrapped(let time): events.append(.loopWrapped(song: name, sampleTime: time))
                    case .ended(let time): events.append(.songEnded(song: name, sampleTime: time))
                    case .userEvent: break
                    }
                }
            }
            return events.sorted { $0.sampleTime < $1.sampleTime }
        }
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
    /// audio callback. Allocates nothing, takes no lock. Render thread only.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        graph.render(into: StereoSlice(left: left, right: right, frames: frameCount))
    }

    /// Renders the next `output.frames` frames. Render thread only.
    public func render(into output: StereoSlice) { graph.render(into: output) }

    /// Plays through Pianola's own ALSA output on `device`; returns a note if real-time
    /// priority was refused. Throws one line if the device cannot be opened. Any thread.
    @discardableResult
    public func startOutput(device: String = "default", periodFrames: Int = 512, periods: Int = 3) throws -> String? {
        try state.withLock { state in
            guard state.output == nil else { return nil }
            var c = PCMOutput.Configuration()
            c.device = device
            c.sampleRate = configuration.sampleRate
            c.periodFrames = min(periodFrames, configuration.maxFrames)
            c.periods = periods
            let output = try PCMOutput(configuration: c)
            guard output.negotiated.sampleRate == configuration.sampleRate, output.negotiated.periodFrames <= configuration.maxFrames else {
                throw SoundtrackError("audio device '\(device)' gave \(output.negotiated.sampleRate) Hz, \(output.negotiated.periodFrames)-frame periods; the soundtrack renders \(configuration.sampleRate) Hz in at most \(configuration.maxFrames)")
            }
            state.output = output
            return output.start(pulling: graph)
        }
    }

    /// Stops Pianola's own output at once (what the device still holds is dropped). Any thread.
    public func stopOutput() {
        let output = state.withLock { state in
            defer { state.output = nil }
            return state.output
        }
        output?.stop(drain: false)
    }

    // MARK: Inside (under the lock)

    private func frames(_ seconds: Double) -> Int { max(0, Int((seconds * Double(configuration.sampleRate)).rounded())) }

    /// The music time of `moment`.
    private func startTime(for moment: Moment, state: State) -> SampleTime {
        let earliest = clock.earliestUnrenderedTime
        let grid: MeterMap.Grid
        switch moment {
        case .now: return earliest
        case .nextBeat: grid = .beat
        case .nextBar: grid = .bar
        }
        return state.current?.node.player.nextTime(on: grid, atOrAfter: earliest)?.time ?? earliest
    }

    /// A set of synthesizers for `song`: one made in the background if ready, or new ones
    /// made here (a song played again at once, or crossfaded into itself).
    private func takeSynthesizers(of song: Song) throws -> [Synthesizer] {
        if let ready = song.synthesizers.withLock({ $0.popLast() }) { return ready }
        return try Self.makeSynthesizers(count: 1 + song.layerTracks.count, font: song.description.soundFontPath, configuration: synthesizerConfiguration)
    }

    private func makeDeck(_ song: Song, synthesizers: [Synthesizer], startingAt time: SampleTime, fadeIn: Int) throws -> Deck {
        let samplers = synthesizers.map { SamplerNode(synthesizer: $0) }
        var trackDestinations = Array(repeating: 0, count: song.sequence.tracks.count)
        var layers: [String: Int] = [:]
        for (layer, tracks) in song.layerTracks.enumerated() {
            for track in tracks { trackDestinations[track] = layer + 1 }
            layers[song.description.trackLayers[layer].lowercased()] = layer + 1
        }
        let bus = MixerNode()
        let busInputs = song.description.controllersDriveLayers ? samplers.indices.map { $0 == 0 ? -1 : $0 } : nil
        let player = Player(sequence: song.sequence, sampleRate: configuration.sampleRate, destinations: samplers,
                            trackDestinations: trackDestinations, parameters: bus, busInputs: busInputs)
        if let loop = song.loop { player.setLoop(startTick: loop.startTick, endTick: loop.endTick, count: loop.count) }
        player.reportBeats(true)
        var stems: [any AudioNode] = []
        for (name, path) in song.description.stems.sorted(by: { $0.key < $1.key }) {
            var playing = FilePlayerNode.Playing()
            playing.startTime = time
            playing.plays = song.loop?.count ?? 1
            do {
                stems.append(try FilePlayerNode(path: path, sampleRate: configuration.sampleRate, playing: playing))
            } catch {
                throw SoundtrackError("stem '\(name)': \(error)")
            }
            layers[name.lowercased()] = samplers.count + stems.count - 1
        }
        let node = SongNode(player: player, bus: bus, sources: samplers + stems)
        var settings = MixerNode.InputSettings()
        settings.volume = fadeIn > 0 ? 0 : 1
        let input = master.connect(node, settings: settings)
        if fadeIn > 0 { master.set(MixerNode.InputSettings(), forInput: input, at: time, rampFrames: fadeIn) }
        player.start(at: time)
        return Deck(song: song, node: node, input: input, layers: layers)
    }

    /// Songs fading out at once, at most; a game switching faster than its fades end cuts
    /// the oldest (by then the quietest) rather than filling the mixer.
    static let maxFading = 4

    /// Fades `deck` out from `time` over `fade` frames and stops its player at the end.
    private func retire(_ deck: Deck, at time: SampleTime, fade: Int, state: inout State) {
        var silent = MixerNode.InputSettings()
        silent.volume = 0
        master.set(silent, forInput: deck.input, at: time, rampFrames: fade)
        deck.node.player.stop(at: time + SampleTime(fade))
        deck.retireAt = time + SampleTime(fade)
        state.fading.append(deck)
        while state.fading.count > Self.maxFading { disconnect(state.fading.removeFirst()) }
    }

    /// Disconnects decks whose fade has ended, and makes their song a fresh set of
    /// synthesizers in the background, so playing it again does not wait for its font.
    private func maintain(_ state: inout State) {
        let now = clock.earliestUnrenderedTime
        state.fading.removeAll { deck in
            guard let at = deck.retireAt, at + SampleTime(configuration.maxFrames) <= now else { return false }
            disconnect(deck)
            return true
        }
        master.collectDisconnected()
    }

    /// Takes `deck` out of the mix, and makes its song a fresh set of synthesizers in the
    /// background (at most one set waits per song).
    private func disconnect(_ deck: Deck) {
        master.disconnect(input: deck.input)
        let (song, configuration) = (deck.song, synthesizerConfiguration)
        guard song.synthesizers.withLock({ $0.isEmpty }) else { return }
        DispatchQueue.global().async {
            guard let fresh = try? Self.makeSynthesizers(count: 1 + song.layerTracks.count, font: song.description.soundFontPath, configuration: configuration) else { return }
            song.synthesizers.withLock { if $0.isEmpty { $0.append(fresh) } }
        }
    }
}

/// A soundtrack call that could not be done: one line saying what and why. Any thread.
public struct SoundtrackError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line. Any thread.
    public let description: String

    init(_ description: String) { self.description = description }
}

extension Soundtrack.Event {
    /// When it sounded, on the soundtrack's music clock. Any thread.
    public var sampleTime: SampleTime {
        switch self {
        case .marker(_, _, let t), .beat(_, _, _, let t), .loopWrapped(_, let t), .songEnded(_, let t): return t
        }
    }
}
