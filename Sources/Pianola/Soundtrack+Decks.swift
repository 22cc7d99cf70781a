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
#if canImport(Glibc)
import Glibc
#endif

// Inside, under the control lock: moments to frames, and each deck's life from making
// through fades and ringing out to disconnecting.
extension Soundtrack {
    // MARK: Inside (under the lock)

    /// `seconds` as frames at the soundtrack's rate; throws for a negative, endless or
    /// absurd (over an hour) length, which `what` names.
    func frames(_ seconds: Double, _ what: String) throws(SoundtrackError) -> Int {
        guard seconds.isFinite, (0...3600).contains(seconds) else { throw SoundtrackError(.argument, "\(what) of \(seconds) s: use 0 to 3600 seconds") }
        return Int((seconds * Double(configuration.sampleRate)).rounded())
    }

    /// `volume` if it is a gain a fader takes (0...16); else throws, naming `what`.
    static func gain(_ volume: Float, _ what: String) throws(SoundtrackError) -> Float {
        guard volume.isFinite, (0...16).contains(volume) else { throw SoundtrackError(.argument, "\(what) \(volume): use 0 to 16 (1 is as written)") }
        return volume
    }

    /// The loaded content of `song`, or the error that says why it cannot play yet.
    static func ready(_ song: Song) throws(SoundtrackError) -> Song.Content {
        guard let content = song.loading.value else { throw notReady(song.name, song.state) }
        return content
    }

    /// Why `name` in `state` cannot play.
    static func notReady(_ name: String, _ state: LoadState) -> SoundtrackError {
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
                let names = deck.node.player.markerNames
                guard names.contains(where: { $0.lowercased() == name.lowercased() }) else {
                    throw SoundtrackError(.argument, "\(deck.song.name) has no marker '\(name)' (\(names.isEmpty ? "it has none" : "markers: \(names.joined(separator: ", "))"))")
                }
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
    func takeSynthesizers(of content: Song.Content) throws(SoundtrackError) -> [SongSynthesizer] {
        if let ready = content.spare.withLock({ $0.popLast() }) { return ready }
        return try Self.makeSynthesizers(count: 1 + content.layerTracks.count, font: content.soundFont, for: content.sequence,
                                         configurations: engineConfigurations)
    }

    /// A deck playing `content` of `song` through `synthesizers` from `time`, fading in over
    /// `fadeIn` frames to `volume` along `fadeShape`: its ticks `span` only when given (from the state chased at
    /// its start, ending at its end), else the whole song; the game parameters move it by `mappings`.
    func makeDeck(_ song: Song, content: Song.Content, synthesizers: [SongSynthesizer], startingAt time: SampleTime, fadeIn: Int,
                  fadeShape: FadeShape = .linear, volume: Float = 1, transpose: Int = 0, reportsBeats: Bool = true,
                  span: Range<Int>? = nil, mappings: [ParameterMapping]) throws(SoundtrackError) -> Deck {
        let samplers = synthesizers.map { $0.makeNode() }
        var trackDestinations = Array(repeating: 0, count: content.sequence.tracks.count)
        var layers: [String: Int] = [:]
        for (layer, tracks) in content.layerTracks.enumerated() {
            for track in tracks { trackDestinations[track] = layer + 1 }
            layers[song.description.trackLayers[layer].lowercased()] = layer + 1
        }
        let stemNames = song.description.stems.keys.sorted()
        for (i, name) in stemNames.enumerated() { layers[name.lowercased()] = samplers.count + i }
        let secondsPerQuarter = Double(content.sequence.tempoMap.segment(atTick: span?.lowerBound ?? 0).microsecondsPerQuarter) / 1_000_000
        let parts = SongParts(sampleRate: configuration.sampleRate, maxFrames: configuration.maxFrames, secondsPerQuarter: secondsPerQuarter, offline: false)
        let instruments = try content.instrumentTracks.map { entry throws(SoundtrackError) in
            do throws(EffectSpecError) { return try parts.instrumentNode(entry.instrument) } catch { throw SoundtrackError(error.kind, "instrument \(error)") }
        }
        for (index, entry) in content.instrumentTracks.enumerated() {
            for track in entry.tracks { trackDestinations[track] = samplers.count + index }
        }
        let bus = MixerNode()
        let busInputs = song.description.controllersDriveLayers ? samplers.indices.map { $0 == 0 ? -1 : $0 } + instruments.map { _ in -1 } : nil
        let modulation = DeckModulation(mappings, layers: layers, sections: content.sections, board: parameterBoard)
        let player = MusicPlayer(sequence: content.sequence, sampleRate: configuration.sampleRate, destinations: samplers + instruments,
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
        var sources: [any AudioNode] = samplers + stems + instruments
        func units(_ specs: [EffectSpec]) throws(SoundtrackError) -> [any EffectUnit] {
            do throws(EffectSpecError) { return try parts.effectUnits(specs) } catch { throw SoundtrackError(error.kind, "effect \(error)") }
        }
        // A layer with effects gets a bus of its own, in the slot its source had.
        for (name, specs) in song.description.layerEffects.sorted(by: { $0.key < $1.key }) {
            guard let input = layers[name.lowercased()] else { continue }
            sources[input] = parts.bus(for: sources[input], through: try units(specs))
        }
        for unit in try units(song.description.effects) { bus.inserts.append(unit) }
        let node = SongNode(player: player, bus: bus, sources: sources)
        node.modulation = modulation
        var settings = MixerNode.InputSettings()
        settings.volume = fadeIn > 0 ? 0 : volume
        let input = music.connect(node, settings: settings)
        if fadeIn > 0 { fade(input: input, from: 0, to: volume, at: time, frames: fadeIn, shape: fadeShape) }
        player.start(at: time)
        let deck = Deck(song: song, node: node, input: input, layers: layers, startTime: time)
        deck.transpose = transpose
        return deck
    }

    /// Moves master input `input`'s volume from `from` to `to` over `frames` from `time`: one
    /// ramp, or for an equal-power fade a quarter sine drawn as `equalPowerPieces` ramps.
    func fade(input: Int, from: Float, to: Float, at time: SampleTime, frames: Int, shape: FadeShape) {
        var settings = music.settings(ofInput: input) ?? MixerNode.InputSettings()
        guard shape == .equalPower, frames > 0 else {
            settings.volume = to
            music.set(settings, forInput: input, at: time, rampFrames: frames)
            return
        }
        let pieces = Self.equalPowerPieces
        for k in 1...pieces {
            let (start, end) = (frames * (k - 1) / pieces, frames * k / pieces)
            let phase = Double(k) / Double(pieces) * .pi / 2
            let share = to > from ? sin(phase) : 1 - cos(phase)   // rising along a sine, falling along a cosine
            settings.volume = from + (to - from) * Float(share)
            music.set(settings, forInput: input, at: time + SampleTime(start), rampFrames: end - start)
        }
    }

    /// The straight pieces of an equal-power fade.
    static let equalPowerPieces = 16

    /// Songs fading out at once, at most, and transition segments; a game switching faster
    /// than its fades end cuts the oldest (by then the quietest) rather than filling the mixer.
    static let maxFading = 4

    /// Makes `deck` the playing song, reporting its start (from its section `section`) once
    /// it sounds.
    func promote(_ deck: Deck, section: String? = nil, state: inout State) {
        state.current = deck
        state.scheduled.append(.songStarted(song: deck.song, section: section, sampleTime: deck.startTime))
    }

    /// Leaves the playing song `deck` from `time`, fading out over `fade` frames, and stops
    /// its player at the end: reported as stopped when it has sounded and not ended; a start
    /// not reached is taken back.
    func retire(_ deck: Deck, at time: SampleTime, fade: Int, shape: FadeShape = .linear, state: inout State) {
        if time <= deck.startTime {
            state.scheduled.removeAll { if case .songStarted(let song, _, let t) = $0 { song == deck.song && t == deck.startTime } else { false } }
        } else if !deck.node.player.isFinished {
            state.scheduled.append(.songStopped(song: deck.song, sampleTime: time))
        }
        self.fade(input: deck.input, from: music.settings(ofInput: deck.input)?.volume ?? 1, to: 0, at: time, frames: fade, shape: shape)
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
    func ringOut(_ deck: Deck, from time: SampleTime? = nil) {
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
        releaseScheduled(before: now, state: &state)
        let done = state.fading.filter { deck in deck.retireAt.map { $0 + SampleTime(configuration.maxFrames) <= now } ?? false }
        state.fading.removeAll { deck in done.contains { $0 === deck } }
        for deck in done { disconnect(deck, state: &state) }
        music.collectDisconnected()
    }

    /// Reports the scheduled events before `time`.
    func releaseScheduled(before time: SampleTime, state: inout State) {
        state.events += state.scheduled.filter { $0.sampleTime < time }
        state.scheduled.removeAll { $0.sampleTime < time }
    }

    /// `decks` less those rung out, which are disconnected: each rings out once its player
    /// has finished. Taken out as a song's deck is, so its song gets fresh synthesizers in the
    /// background and the next stinger or segment does not load its font on the caller's thread.
    func ringOutFinished(_ decks: [Deck], state: inout State) -> [Deck] {
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
        music.disconnect(input: deck.input)
        guard let content = deck.song.loading.value, content.spare.withLock({ $0.isEmpty }) else { return }
        let configurations = engineConfigurations
        DispatchQueue.global().async {
            guard let fresh = try? Self.makeSynthesizers(count: 1 + content.layerTracks.count, font: content.soundFont, for: content.sequence,
                                                         configurations: configurations) else { return }
            content.spare.withLock { if $0.isEmpty { $0.append(fresh) } }
        }
    }
}
