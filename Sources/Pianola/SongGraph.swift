import Synthesis
import AudioFile
import Engine
import FluidSynth
import MIDI
import Playback
import Sequencing
import SoundFontModel
import SoundFontSynth
import Streaming

/// The graph a song plays through — synthesizer (Pianola's own, or libfluidsynth's sampler)
/// → mixer → graph, with the player
/// scheduling the song — set up from one `Settings`. `pianola render` pulls it in a loop,
/// `pianola play` from an audio output (PipeWire, JACK or ALSA), so a song sounds the same
/// both ways. Control thread.
public final class SongGraph {
    /// How to play. Any thread.
    public struct Settings: Hashable, Sendable {
        /// Sample rate. Any thread.
        public var sampleRate = 48_000
        /// The synthesizer asked for (Pianola's own unless told); `SongGraph.engine` says
        /// which plays (libfluidsynth plays DLS banks whichever is asked). Any thread.
        public var engine = SynthesisEngine.pianola
        /// Reverb on (FluidSynth's default). Any thread.
        public var reverb = true
        /// Chorus on (FluidSynth's default). Any thread.
        public var chorus = true
        /// Most voices at once. Any thread.
        public var polyphony = 256
        /// Synth output gain (FluidSynth's default 0.2). Any thread.
        public var gain = 0.2
        /// Threads the song's synthesis is spread over, for offline renders only. On
        /// libfluidsynth the channels are shared among this many synthesizers (balanced by
        /// their notes), rendered at once and summed (`FluidSynthSplitNode`); on Pianola's own the
        /// voices render on this many threads (up to 8), the output the same bit for bit for
        /// any count. Any thread.
        public var threads = 1
        /// Load every sample of the font at once, as libfluidsynth does by default, instead of
        /// only the presets the song selects (on Pianola's engine: the zones its notes play;
        /// set it for notes played live, which nobody knows beforehand). Slower to start, but it is how a font shared by a
        /// batch is loaded, and libfluidsynth sanitizes sample loops differently in the two
        /// modes (up to −58 dBFS apart near loop points), so a single render matches a batch's
        /// bit for bit only with this on. Any thread.
        public var loadWholeFont = false
        /// Times the region plays in all; 0 plays it forever (live play only: `musicFrames`
        /// then counts one play). Any thread.
        public var plays = 1
        /// Tempo in percent of the written tempo. Any thread.
        public var tempoPercent = 100
        /// Semitones, every channel but 10. Any thread.
        public var transpose = 0
        /// Tracks (0-based) to silence. Any thread.
        public var mutedTracks: Set<Int> = []
        /// Tracks (0-based) to hear alone. Any thread.
        public var soloTracks: Set<Int> = []
        /// Channels (0-based) to silence on every track. Any thread.
        public var mutedChannels: Set<Int> = []
        /// Channels (0-based) to hear alone, with the solo tracks. Any thread.
        public var soloChannels: Set<Int> = []
        /// First tick of the region (chased from the start). Any thread.
        public var fromTick = 0
        /// End of the region, `nil` for the song's end. Any thread.
        public var toTick: Int?
        /// Longest time to let voices ring after the music, in seconds. Any thread.
        public var tailSeconds = 5.0
        /// Audio files (a backing track, stems) played with the song, each from a song tick. Any thread.
        public var audioFiles: [AudioAttachment] = []
        /// Effects on the song's output, in order: the song bus's own chain, which the song's
        /// parameter events for `.output` automate. Any thread.
        public var effects: [EffectSpec] = []
        /// Tracks or channels on buses of their own, each with its effects; a track or channel
        /// in two is taken by the first. Any thread.
        public var effectBuses: [EffectBus] = []
        /// Tracks played by LV2 instruments instead of the SoundFont, each with its own. Any thread.
        public var instruments: [InstrumentRoute] = []
        /// Start the player when the graph is built; off when something else starts it (a
        /// `ClockFollower`). Any thread.
        public var startsPlaying = true
        /// Rendered as fast as it goes rather than played (`SongRenderer` sets it): an LV2
        /// plugin's background work (an impulse response loaded) is done at once, inside the
        /// render, so every render of a song is the same. Any thread.
        public var isOffline = false

        /// The defaults. Any thread.
        public init() {}
    }

    /// Tracks (0-based) whose events an LV2 instrument plays instead of the synthesizer. Any thread.
    public struct InstrumentRoute: Hashable, Sendable {
        /// The tracks. Any thread.
        public var tracks: Set<Int>
        /// The instrument. Any thread.
        public var instrument: InstrumentSpec

        /// `tracks` to `instrument`. Any thread.
        public init(tracks: Set<Int>, instrument: InstrumentSpec) {
            self.tracks = tracks
            self.instrument = instrument
        }
    }

    /// Some tracks' or channels' own bus: their events play on a synthesizer of their own (the
    /// song's font and settings, its own reverb and chorus), through `effects`, into the
    /// song's mix before its master effects. Every synthesizer hears every system exclusive
    /// message. Any thread.
    public struct EffectBus: Hashable, Sendable {
        /// Events a bus takes: those of `tracks` (0-based, `nil` for every track) on
        /// `channels` (0-based, `nil` for every channel). Any thread.
        public struct Selector: Hashable, Sendable {
            /// The tracks, 0-based; `nil` for all. Any thread.
            public var tracks: ClosedRange<Int>?
            /// The channels, 0-based; `nil` for all. Any thread.
            public var channels: ClosedRange<Int>?

            /// `tracks` on `channels`. Any thread.
            public init(tracks: ClosedRange<Int>? = nil, channels: ClosedRange<Int>? = nil) {
                self.tracks = tracks
                self.channels = channels
            }

            /// Whether it takes track `track`'s events on `channel`. Any thread.
            public func takes(track: Int, channel: Int) -> Bool {
                (tracks?.contains(track) ?? true) && (channels?.contains(channel) ?? true)
            }
        }

        /// The events it takes: what any of these selects. Any thread.
        public var selectors: [Selector]
        /// Its effects, in order. Any thread.
        public var effects: [EffectSpec]

        /// A bus for what `selectors` select, through `effects`. Any thread.
        public init(_ selectors: [Selector], effects: [EffectSpec]) {
            self.selectors = selectors
            self.effects = effects
        }

        /// Whether it takes track `track`'s events on `channel`. Any thread.
        public func takes(track: Int, channel: Int) -> Bool { selectors.contains { $0.takes(track: track, channel: channel) } }

        /// Its routing rules to the destination `target`.
        func rules(to target: Routing.Target) -> [Routing.Rule] {
            selectors.map { Routing.Rule(tracks: $0.tracks, channels: $0.channels, target: target) }
        }

        /// Whether it takes every track's events on `channel` (what is played live there).
        func takesAllOf(channel: Int) -> Bool { selectors.contains { $0.tracks == nil && ($0.channels?.contains(channel) ?? true) } }
    }

    /// An audio file played with the song, from the song position `tick` (its frame under the
    /// region's start and the tempo setting; a file placed before `fromTick` starts part-way
    /// in). Audio is not stretched by the tempo setting. Any thread.
    public struct AudioAttachment: Hashable, Sendable {
        /// The file. Any thread.
        public var path: String
        /// Where in the song it starts. Any thread.
        public var tick: Int

        /// `path` from song tick `tick`. Any thread.
        public init(path: String, tick: Int = 0) {
            self.path = path
            self.tick = tick
        }
    }

    /// The audio files playing with the song, in the order of `settings.audioFiles`. Render thread once pulled.
    public let filePlayers: [FilePlayerNode]

    /// The sequence played. Any thread.
    public let sequence: MusicSequence
    /// The settings. Any thread.
    public let settings: Settings
    /// The graph to pull. Render thread once pulled.
    public let graph: AudioGraph
    /// The conductor. Its control methods are for the control thread.
    public let player: MusicPlayer
    /// The synthesizer that plays. Any thread.
    public let engine: SynthesisEngine
    /// Why libfluidsynth plays when Pianola's own engine was asked for (a DLS bank), else nil. Any thread.
    public let engineNote: String?
    /// libfluidsynth's synthesizer (the first part's, when the song renders on several
    /// threads), nil on Pianola's own engine. Render thread once pulled.
    public let synthesizer: FluidSynthesizer?
    /// Every libfluidsynth sampler the song plays through: one, or one per thread, then one
    /// per effect bus; none on Pianola's own engine. Render thread once pulled.
    public let samplers: [FluidSynthNode]
    /// Pianola's own synthesizer's nodes, the song's first and then its effect buses'; none on
    /// libfluidsynth. Render thread once pulled.
    public let ownSynths: [SoundFontSynthNode]
    /// The LV2 instruments that play tracks of the song (`--instrument`). Render thread once pulled.
    public let instruments: [LV2InstrumentNode]
    /// Voices sounding in all the synthesizers. Control thread, between renders.
    public var activeVoiceCount: Int { samplers.reduce(0) { $0 + $1.synthesizer.activeVoiceCount } + ownSynths.reduce(0) { $0 + $1.synthesizer.activeVoices } }
    /// Notes and controllers played into the synthesizer now (a keyboard, MIDI thru), from
    /// one thread at a time. Any one thread.
    public let live: LiveMIDI
    private let mixer: MixerNode
    /// Frames of music: the region, times the plays, at the tempo. Any thread.
    public let musicFrames: Int64
    /// The most frames playing can take, tail included. Any thread.
    public var maximumFrames: Int64 { musicFrames + Int64(settings.tailSeconds * Double(settings.sampleRate)) }

    /// Frames the effects may keep sounding after the music and the voices have ended: the
    /// longest bus's, then the master's. Control thread.
    public var effectTailFrames: Int { (busMixers.map(\.inserts.tailFrames).max() ?? 0) + songBus.inserts.tailFrames }
    private let busMixers: [MixerNode]
    /// The song's bus, which the player automates: its inputs (the synthesizer, audio files,
    /// instruments, effect buses) and its own insert chain, the song's effects.
    private let songBus = MixerNode()

    /// Sets the output volume (linear gain, 1 = as rendered) from the next render cycle,
    /// gliding there over 10 ms so the change does not click. Control thread.
    public func setVolume(_ gain: Float) { mixer.setOutputGain(gain, rampFrames: settings.sampleRate / 100) }

    /// Builds the graph for `sequence` with the font `soundFont` (a file or bytes), pulled in
    /// slices of at most `maxFrames`, and starts the player and the audio files. `routing`
    /// sends chosen tracks and channels to the `external` destinations (ALSA ports) instead of
    /// the synthesizer; `sync` receives MIDI clock and timecode (`Player`'s). Throws a
    /// `SynthesizerError` or an `AudioFileError`, one line each. Control thread.
    public convenience init(sequence: MusicSequence, soundFont: FileSource, settings: Settings, maxFrames: Int = 4096,
                            routing: Routing = Routing(), external: [any MIDIDestination] = [], sync: SyncDestinations = SyncDestinations()) throws {
        try self.init(sequence: sequence, font: soundFont.soundFont, settings: settings, maxFrames: maxFrames, routing: routing, external: external, sync: sync)
    }

    /// Builds the graph for `sequence` with `soundFont`, loaded once by libfluidsynth and
    /// shared with other graphs (a batch render), as the other initializer does; libfluidsynth
    /// plays it. Control thread.
    public convenience init(sequence: MusicSequence, soundFont: SharedSoundFont, settings: Settings, maxFrames: Int = 4096) throws {
        try self.init(sequence: sequence, font: .shared(soundFont), settings: settings, maxFrames: maxFrames)
    }

    /// Builds the graph for `sequence` with `soundFont`, loaded once for the engine that plays
    /// it and shared with other graphs (a batch render). Control thread.
    public convenience init(sequence: MusicSequence, soundFont: LoadedSoundFont, settings: Settings, maxFrames: Int = 4096) throws {
        try self.init(sequence: sequence, font: soundFont.source, settings: settings, maxFrames: maxFrames, engineNote: soundFont.engineNote)
    }

    init(sequence: MusicSequence, font: SoundFontSource, settings: Settings, maxFrames: Int = 4096,
         routing: Routing = Routing(), external: [any MIDIDestination] = [], sync: SyncDestinations = SyncDestinations(), engineNote note: String? = nil) throws {
        let secondsPerQuarter = settings.secondsPerQuarter(in: sequence)
        let allEffects = settings.effects + settings.effectBuses.flatMap(\.effects)
        if let problem = allEffects.lazy.compactMap({ $0.problem(atSampleRate: settings.sampleRate, secondsPerQuarter: secondsPerQuarter) }).first {
            throw problem
        }
        let parts = SongParts(sampleRate: settings.sampleRate, maxFrames: maxFrames, secondsPerQuarter: secondsPerQuarter, offline: settings.isOffline)
        let effectUnits = try parts.effectUnits(settings.effects)
        let busUnits = try settings.effectBuses.map { bus throws(EffectSpecError) in try parts.effectUnits(bus.effects) }
        self.sequence = sequence
        self.settings = settings
        let configurations = settings.engineConfigurations
        let engineAsked = { if case .model = font { SynthesisEngine.pianola } else { settings.engine } }()
        let (source, resolvedNote) = try font.resolved(for: engineAsked)
        let synth: any AudioNode & MIDIDestination
        var samplers: [FluidSynthNode] = [], ownSynths: [SoundFontSynthNode] = []
        // Pianola's engine reads the samples of the zones the song's notes play (the font's
        // every sample when asked to load it whole, as for notes played live).
        let touching: SoundFontSynthesizer.Touching = settings.loadWholeFont ? .font : .notes(transposedBy: settings.transpose)
        var threaded = configurations
        threaded.pianola.threads = settings.threads
        if case .model = source, case .pianola(let own) = try source.makeSongSynthesizer(configurations: threaded, selectedBy: sequence.messagesInTimeOrder,
                                                                                          touching: touching) {
            ownSynths = [SoundFontSynthNode(synthesizer: own)]
            synth = ownSynths[0]
            (engine, engineNote, synthesizer) = (.pianola, nil, nil)
        } else {
            let channelParts = Self.channelParts(of: sequence, parts: settings.threads)
            samplers = try (0..<(channelParts.max() ?? 0) + 1).map { part in
                let own = sequence.messagesInTimeOrder.lazy.filter { message in message.channel.map { channelParts[Int($0)] == part } ?? true }
                return FluidSynthNode(synthesizer: try source.makeSynthesizer(configuration: configurations.fluidSynth, selectedBy: own))
            }
            synthesizer = samplers[0].synthesizer
            synth = samplers.count == 1 ? samplers[0] : FluidSynthSplitNode(parts: samplers, channelParts: channelParts)
            (engine, engineNote) = (.fluidsynth, note ?? resolvedNote)
        }
        // Each effect bus plays on a synthesizer of its own, through a mixer with its effects.
        var busSynths: [any AudioNode & MIDIDestination] = []
        for _ in settings.effectBuses {
            let node = try source.makeSongSynthesizer(configurations: configurations, selectedBy: sequence.messagesInTimeOrder, touching: touching).makeNode()
            if let sampler = node as? FluidSynthNode { samplers.append(sampler) }
            if let own = node as? SoundFontSynthNode { ownSynths.append(own) }
            busSynths.append(node)
        }
        (self.samplers, self.ownSynths) = (samplers, ownSynths)
        busMixers = zip(busSynths, busUnits).map { synth, units in parts.bus(for: synth, through: units) }
        mixer = MixerNode()
        for unit in effectUnits { songBus.inserts.append(unit) }
        graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: settings.sampleRate), maxFrames: maxFrames)
        let instrumentNodes = try settings.instruments.map { route throws(EffectSpecError) in try parts.instrumentNode(route.instrument) }
        instruments = instrumentNodes
        // An instrument's tracks go to it whatever else the routing says, then the effect
        // buses take theirs; every synthesizer hears every system exclusive message.
        let sysex = SharedSysex(synthesizers: [synth] + busSynths)
        var routing = routing
        routing.rules.insert(contentsOf: settings.instruments.enumerated().flatMap { index, route in
            route.tracks.sorted().map { Routing.Rule(tracks: $0...$0, target: .external(external.count + index)) }
        } + settings.effectBuses.enumerated().flatMap { index, bus in
            bus.rules(to: .external(external.count + instrumentNodes.count + index))
        }, at: 0)
        let routes = routing.destinations(trackCount: sequence.tracks.count, synth: busSynths.isEmpty ? synth : sysex.route(0),
                                          external: external + instrumentNodes + busSynths.indices.map { sysex.route($0 + 1) })
        let bus = songBus
        player = MusicPlayer(sequence: sequence, sampleRate: settings.sampleRate, destinations: routes.destinations,
                        trackDestinations: routes.trackDestinations, parameters: bus, sync: sync)
        // Played live, a channel on an effect bus goes to the bus's synthesizer.
        let liveTable = (0..<16).map { channel in
            settings.effectBuses.firstIndex { $0.takesAllOf(channel: channel) }.map { $0 + 1 } ?? 0
        }
        live = LiveMIDI(to: liveTable.allSatisfy { $0 == 0 } ? synth : ChannelSplitter(destinations: [synth] + busSynths, channelDestinations: liveTable))
        graph.add(live)
        var musicFrames = settings.musicFrames(of: sequence)
        var players: [FilePlayerNode] = []
        let map = sequence.tempoMap
        let origin = map.sampleFrame(atTick: min(settings.fromTick, sequence.length), sampleRate: settings.sampleRate)
        for file in settings.audioFiles {
            let at = (map.sampleFrame(atTick: file.tick, sampleRate: settings.sampleRate) - origin) * 100 / Int64(settings.tempoPercent)
            var playing = FilePlayerNode.Playing()
            playing.startTime = at
            let node = try FilePlayerNode(path: file.path, sampleRate: settings.sampleRate, playing: playing)
            players.append(node)
            musicFrames = max(musicFrames, node.endTime ?? 0)
        }
        filePlayers = players
        mixer.connect(SongNode(player: player, bus: bus, sources: [synth] + players + instrumentNodes + busMixers))
        self.musicFrames = musicFrames
        settings.configure(player, for: sequence)
        if settings.startsPlaying { player.start() }
    }
}

extension SongGraph {
    /// Which of at most `parts` synthesizers plays each of the 16 channels: the channels with
    /// notes shared out by how long their voices sound (each note's length, plus a second of
    /// release), the busiest first, each to the least loaded part; channels without notes to
    /// the first. All to the first for one part, or one busy channel.
    static func channelParts(of sequence: MusicSequence, parts: Int) -> [Int] {
        let map = sequence.tempoMap
        var load = [Double](repeating: 0, count: 16)
        for note in sequence.tracks.flatMap(\.notes) {
            load[note.channel] += 1 + (note.end.map { map.seconds(atTick: $0) - map.seconds(atTick: note.start) } ?? 0)
        }
        let busy = (0..<16).filter { load[$0] > 0 }.sorted { (load[$1], $0) < (load[$0], $1) }
        var partLoad = [Double](repeating: 0, count: max(1, min(parts, busy.count)))
        var assignment = [Int](repeating: 0, count: 16)
        for channel in busy {
            let part = partLoad.indices.min { (partLoad[$0], $0) < (partLoad[$1], $1) }!
            assignment[channel] = part
            partLoad[part] += load[channel]
        }
        return assignment
    }
}

extension SongGraph.Settings {
    /// Each engine's configuration, as these settings say (one thread).
    var engineConfigurations: EngineConfigurations {
        var pianola = SoundFontSynthesizer.Configuration()
        var fluidSynth = FluidSynthesizer.Configuration()
        pianola.polyphony = polyphony
        fluidSynth.polyphony = polyphony
        pianola.gain = Float(gain)
        fluidSynth.gain = gain
        if !reverb { pianola.reverb = nil }
        if !chorus { pianola.chorus = nil }
        (fluidSynth.reverb, fluidSynth.chorus) = (reverb, chorus)
        fluidSynth.lazySampleLoading = !loadWholeFont
        return EngineConfigurations(pianola: pianola, fluidSynth: fluidSynth).at(sampleRate: sampleRate)
    }

    /// These settings, rendered offline. Any thread.
    func offline() -> Self {
        var settings = self
        settings.isOffline = true
        return settings
    }

    /// Frames of music: the region, times the plays, at the tempo. Any thread.
    public func musicFrames(of sequence: MusicSequence) -> Int64 {
        let map = sequence.tempoMap
        let from = min(fromTick, sequence.length)
        let to = max(from, min(toTick ?? sequence.length, sequence.length))
        let regionFrames = map.sampleFrame(atTick: to, sampleRate: sampleRate) - map.sampleFrame(atTick: from, sampleRate: sampleRate)
        return regionFrames * Int64(max(1, plays)) * 100 / Int64(tempoPercent)
    }

    /// How long a quarter note lasts where the region starts, at the tempo setting: what an
    /// effect's note values (a delay of 1/8.) are timed by. Any thread.
    public func secondsPerQuarter(in sequence: MusicSequence) -> Double {
        let segment = sequence.tempoMap.segment(atTick: min(fromTick, sequence.length))
        return Double(segment.microsecondsPerQuarter) / 1_000_000 * 100 / Double(tempoPercent)
    }

    /// Gives `player` (of `sequence`, not yet started) these mutes, solos, transposition,
    /// tempo, loop and region. Control thread.
    public func configure(_ player: MusicPlayer, for sequence: MusicSequence) {
        let from = min(fromTick, sequence.length)
        let to = max(from, min(toTick ?? sequence.length, sequence.length))
        for track in mutedTracks { player.setMuted(true, track: track) }
        for track in soloTracks { player.setSoloed(true, track: track) }
        for channel in mutedChannels { player.setMuted(true, channel: channel) }
        for channel in soloChannels { player.setSoloed(true, channel: channel) }
        if transpose != 0 { player.setTranspose(semitones: transpose) }
        if tempoPercent != 100 { player.setRate(percent: tempoPercent) }
        if plays != 1 && to > from { player.setLoop(startTick: from, endTick: to, count: max(0, plays)) }
        if to < sequence.length { player.setEnd(tick: to) }
        if from > 0 { player.seek(toTick: from) }
    }
}
