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

// The transport a game drives: play, crossfade, stop, jump, stingers, pause, tempo,
// transposition, layers, effects and the master volume.
extension Soundtrack {
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
            promote(deck, state: &state)
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
            let played = Song.Content(sequence: phrase, loop: nil, sections: [], layerTracks: content.layerTracks, instrumentTracks: content.instrumentTracks,
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
                throw SoundtrackError(.argument, "\(deck.song.name) has no layer '\(name)' (\(deck.layers.isEmpty ? "it has none" : "layers: \(deck.layers.keys.sorted().joined(separator: ", "))"))")
            }
            var settings = deck.node.bus.settings(ofInput: input) ?? MixerNode.InputSettings()
            settings.volume = volume
            deck.node.bus.set(settings, forInput: input, at: try startTime(for: moment, state: state), rampFrames: ramp)
        }
    }

    /// Plays a sound effect on `moment` (a stinger on the next bar line) at `volume` (linear,
    /// 0...16) and `pan` (−1 left … 1 right). Throws if it is not loaded, or when 256 starts
    /// already wait for the audio side. Any thread.
    public func playSoundEffect(_ effect: SoundEffect, at moment: Moment = .now, volume: Float = 1, pan: Float = 0) throws(SoundtrackError) {
        guard let sound = effect.sound else { throw Self.notReady(effect.name, effect.state) }
        let volume = try Self.gain(volume, "effect volume")
        guard pan.isFinite, (-1...1).contains(pan) else { throw SoundtrackError(.argument, "pan \(pan): use −1 (left) to 1 (right)") }
        try state.withLock { state throws(SoundtrackError) in
            guard soundEffects.play(sound, at: try startTime(for: moment, state: state), volume: volume, pan: pan) else {
                throw SoundtrackError(.busy, "\(effect.name): 256 sound starts already wait for the audio; pull audio (render), then try again")
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
}
