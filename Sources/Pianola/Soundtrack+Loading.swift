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

// Loading songs and sound effects off the caller's thread, and reporting when they are ready.
extension Soundtrack {
    // MARK: Loading (off the caller's thread)

    /// Starts loading a song on a worker thread and returns it at once, loading: its MIDI
    /// file read, its synthesizers made with the SoundFont loaded, its stems checked. Its
    /// `state`, `wait()` or a `songLoaded`/`songLoadFailed` event tell when it is done. Any thread.
    public func startLoading(_ description: SongDescription) -> Song {
        let song = Song(description: description, owner: self)
        let (configurations, engine) = (engineConfigurations, configuration.engine)
        startLoad(into: song.loading, { () throws(SoundtrackError) in try Self.makeContent(description, configurations: configurations, engine: engine) },
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
    public func startLoadingSoundEffect(_ source: FileSource) -> SoundEffect {
        let effect = SoundEffect(name: source.name)
        let rate = configuration.sampleRate
        startLoad(into: effect.loading, { () throws(SoundtrackError) in
            do { return try SoundBuffer(reader: source.audioFileReader(), sampleRate: rate) } catch { throw SoundtrackError(.file, "\(error)") }
        }, loaded: { .soundEffectLoaded(effect: effect, sampleTime: $0) }, failed: { .soundEffectLoadFailed(effect: effect, error: $0, sampleTime: $1) })
        return effect
    }

    /// Loads a sound effect, as `startLoadingSoundEffect`, and returns it ready. Any thread.
    public func loadSoundEffect(_ source: FileSource) async throws(SoundtrackError) -> SoundEffect {
        let effect = startLoadingSoundEffect(source)
        _ = try await effect.loading.value()
        return effect
    }

    /// Runs `make` on a worker thread into `loading`, then reports the `loaded` or `failed` event.
    func startLoad<Value: Sendable>(into loading: Loading<Value>, _ make: @escaping @Sendable () throws(SoundtrackError) -> Value,
                                            loaded: @escaping @Sendable (SampleTime) -> Event,
                                            failed: @escaping @Sendable (SoundtrackError, SampleTime) -> Event) {
        DispatchQueue.global().async { [weak self] in
            let result = Result { () throws(SoundtrackError) in try make() }
            // The frame rendered up to when it finished, read before a waiter can go on and render more.
            let time = self?.clock.renderedTime ?? 0
            loading.finish(result)
            let event = if case .failure(let error) = result { failed(error, time) } else { loaded(time) }
            self?.state.withLock { $0.events.append(event) }
        }
    }

    /// Each engine's configuration, at the soundtrack's rate.
    var engineConfigurations: EngineConfigurations {
        EngineConfigurations(pianola: configuration.pianolaSynthesizer, fluidSynth: configuration.fluidSynthesizer).at(sampleRate: configuration.sampleRate)
    }

    /// The song's sections: its description's table, else its markers.
    static func sections(of sequence: MusicSequence, _ description: SongDescription) throws(SoundtrackError) -> [SongSection] {
        guard !description.sections.isEmpty else { return SongSection.sections(of: sequence) }
        do { return try SongSection.sections(of: sequence, table: description.sections) } catch {
            throw SoundtrackError(.argument, "\(description.midi.name): \(error)")
        }
    }

    static func makeContent(_ description: SongDescription, configurations: EngineConfigurations, engine: SynthesisEngine) throws(SoundtrackError) -> Song.Content {
        let sequence: MusicSequence
        do { sequence = try description.midi.musicSequence() } catch { throw SoundtrackError(.file, "\(error)") }
        var layerTracks: [[Int]] = []
        for name in description.trackLayers {
            let tracks = sequence.tracks.indices.filter { sequence.tracks[$0].name?.lowercased() == name.lowercased() }
            guard !tracks.isEmpty else { throw SoundtrackError(.argument, "\(description.midi.name): no track is named '\(name)'") }
            layerTracks.append(tracks)
        }
        var instrumentTracks: [(tracks: [Int], instrument: InstrumentSpec)] = []
        for (name, instrument) in description.instruments.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            let tracks = sequence.tracks.indices.filter { sequence.tracks[$0].name?.lowercased() == name.lowercased() }
            guard !tracks.isEmpty else { throw SoundtrackError(.argument, "\(description.midi.name): no track is named '\(name)'") }
            guard instrument.plugin.isHardRealTime else {
                throw SoundtrackError(.argument, "instrument '\(instrument)': LV2 plugin '\(instrument.plugin.name)' does not say it is hard real-time capable (lv2:hardRTCapable), and a soundtrack plays live")
            }
            instrumentTracks.append((tracks, instrument))
        }
        let layerNames = Set(description.trackLayers.map { $0.lowercased() } + description.stems.keys.map { $0.lowercased() })
        for name in description.layerEffects.keys where !layerNames.contains(name.lowercased()) {
            throw SoundtrackError(.argument, "\(description.midi.name): effects for layer '\(name)', which is no track layer or stem of the song")
        }
        for spec in description.effects + description.layerEffects.values.joined() {
            let secondsPerQuarter = Double(sequence.tempoMap.segment(atTick: 0).microsecondsPerQuarter) / 1_000_000
            if let problem = spec.problem(atSampleRate: Int(configurations.pianola.sampleRate), secondsPerQuarter: secondsPerQuarter) {
                throw SoundtrackError(.argument, "effect \(problem)")
            }
            guard spec.isHardRealTime else {
                throw SoundtrackError(.argument, "effect '\(spec)': LV2 plugin '\(spec.name)' does not say it is hard real-time capable (lv2:hardRTCapable), and a soundtrack plays live")
            }
        }
        for (name, source) in description.stems {
            do { _ = try source.audioFileReader() } catch { throw SoundtrackError(.file, "stem '\(name)': \(error)") }
        }
        let font: SoundFontSource
        do { font = try description.soundFont.soundFont.resolved(for: engine).source } catch { throw SoundtrackError(.file, "\(error)") }
        let synthesizers = try makeSynthesizers(count: 1 + layerTracks.count, font: font, for: sequence, configurations: configurations)
        return Song.Content(sequence: sequence, loop: SongLoop.find(in: sequence, conventions: description.loopConventions),
                            sections: try sections(of: sequence, description), layerTracks: layerTracks, instrumentTracks: instrumentTracks,
                            soundFont: font, spare: ControlLock([synthesizers]))
    }

    static func makeSynthesizers(count: Int, font: SoundFontSource, for sequence: MusicSequence,
                                         configurations: EngineConfigurations) throws(SoundtrackError) -> [SongSynthesizer] {
        var synthesizers: [SongSynthesizer] = []
        for _ in 0..<count {
            do {   // every sample of the presets the song plays: the game transposes as it plays
                synthesizers.append(try font.makeSongSynthesizer(configurations: configurations, selectedBy: sequence.messagesInTimeOrder,
                                                                  touching: .presets))
            } catch {
                throw SoundtrackError(.file, "\(error)")
            }
        }
        return synthesizers
    }
}
