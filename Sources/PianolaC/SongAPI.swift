import CPianola
import Pianola

// Songs, effects and events: loads that return at once, their states, and the events that
// name songs and effects by handle. Each only translates (see pianola.h).

/// The song behind `handle`, or a handle error.
func loadedSong(_ handle: OpaquePointer?) throws(APIError) -> Soundtrack.Song {
    try object(handle, .song, as: Soundtrack.Song.self, "pianola_song")
}

/// A load state's C code; for a failure, the reason is kept as the thread's last error.
func loadState(_ state: Soundtrack.LoadState) -> pianola_load_state {
    switch state {
    case .loading: return pianola_load_state(PIANOLA_LOADING)
    case .ready: return pianola_load_state(PIANOLA_READY)
    case .failed(let error):
        LastError.set(error.description)
        return pianola_load_state(PIANOLA_FAILED)
    }
}

/// pianola_song_config_init: the defaults. Any thread.
@_cdecl("pianola_song_config_init")
public func pianolaSongConfigInit(_ config: UnsafeMutablePointer<pianola_song_config>?) -> pianola_status {
    status {
        try initialize(config, "config", to: pianola_song_config(), size: \.struct_size).pointee.loop = 1
    }
}

/// pianola_song_load: starts loading a song and hands out its handle at once. Any thread.
@_cdecl("pianola_song_load")
public func pianolaSongLoad(_ handle: OpaquePointer?, _ config: UnsafePointer<pianola_song_config>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        let c = try required(config, "config").pointee
        let out = try required(out, "song")
        // A config from before the effect fields ends where they start; it is taken without them.
        let firstRelease = MemoryLayout<pianola_song_config>.offset(of: \pianola_song_config.effects)!
        let hasEffects = Int(c.struct_size) != firstRelease
        if hasEffects { try checkSize(c.struct_size, of: "pianola_song_config", is: MemoryLayout<pianola_song_config>.size) }
        var description = Soundtrack.SongDescription(midi: try c.midi.fileSource("midi"), soundFont: try c.soundfont.soundFontSource("soundfont"))
        guard c.stem_count == 0 || c.stems != nil, c.stem_count >= 0, c.stem_count <= 256 else { throw APIError.argument("stems: give stem_count (0 to 256) stems") }
        for i in 0..<c.stem_count {
            let stem = c.stems![i]
            let layer = try string(stem.layer, "stems[\(i)].layer")
            guard description.stems[layer] == nil else { throw APIError.argument("stems[\(i)]: a second stem for layer '\(layer)'") }
            description.stems[layer] = try stem.source.fileSource("stems[\(i)].source")
        }
        guard c.track_layer_count == 0 || c.track_layers != nil, c.track_layer_count >= 0, c.track_layer_count <= 256 else {
            throw APIError.argument("track_layers: give track_layer_count (0 to 256) names")
        }
        description.trackLayers = try (0..<c.track_layer_count).map { i throws(APIError) in try string(c.track_layers![i], "track_layers[\(i)]") }
        if c.loop == 0 { description.loopConventions = [] }
        description.controllersDriveLayers = c.controllers_drive_layers != 0
        if hasEffects { try addEffects(c, to: &description) }
        try hand(soundtrack.startLoading(description), as: .song, to: out)
    }
}

/// The effects and instruments of `c` put into `description`, each spec read (one line for a bad one).
private func addEffects(_ c: pianola_song_config, to description: inout Soundtrack.SongDescription) throws(APIError) {
    func count(_ n: Int, _ pointer: UnsafeRawPointer?, _ what: String) throws(APIError) -> Int {
        guard n == 0 || pointer != nil, (0...256).contains(n) else { throw APIError.argument("\(what): give 0 to 256 of them, and the array when more than 0") }
        return n
    }
    func spec<Spec>(_ text: UnsafePointer<CChar>?, _ what: String, _ make: (String) throws(EffectSpecError) -> Spec) throws(APIError) -> Spec {
        let text = try string(text, what)
        do { return try make(text) } catch { throw APIError.argument("\(what): \(error)") }
    }
    for i in 0..<(try count(c.effect_count, c.effects, "effects")) {
        description.effects.append(try spec(c.effects![i], "effects[\(i)]") { text throws(EffectSpecError) in try EffectSpec(text) })
    }
    for i in 0..<(try count(c.layer_effect_count, c.layer_effects, "layer_effects")) {
        let entry = c.layer_effects![i]
        let layer = try string(entry.layer, "layer_effects[\(i)].layer")
        description.layerEffects[layer, default: []].append(try spec(entry.spec, "layer_effects[\(i)].spec") { text throws(EffectSpecError) in try EffectSpec(text) })
    }
    for i in 0..<(try count(c.instrument_count, c.instruments, "instruments")) {
        let entry = c.instruments![i]
        let track = try string(entry.track, "instruments[\(i)].track")
        guard description.instruments[track] == nil else { throw APIError.argument("instruments[\(i)]: a second instrument for track '\(track)'") }
        description.instruments[track] = try spec(entry.plugin, "instruments[\(i)].plugin") { text throws(EffectSpecError) in try InstrumentSpec(text) }
    }
}

/// pianola_song_state: loading, ready or failed. Any thread.
@_cdecl("pianola_song_state")
public func pianolaSongState(_ handle: OpaquePointer?, _ state: UnsafeMutablePointer<pianola_load_state>?) -> pianola_status {
    status {
        let out = try required(state, "state")
        out.pointee = loadState(try loadedSong(handle).state)
    }
}

/// pianola_song_wait: blocks until loaded. Any thread but the audio thread.
@_cdecl("pianola_song_wait")
public func pianolaSongWait(_ handle: OpaquePointer?) -> pianola_status {
    status { try loadedSong(handle).wait() }
}

/// pianola_song_destroy: frees the handle. Any thread.
@_cdecl("pianola_song_destroy")
public func pianolaSongDestroy(_ handle: OpaquePointer?) -> pianola_status {
    status {
        _ = try loadedSong(handle)
        _ = HandleTable.shared.remove(handle, .song)
    }
}

/// pianola_sound_load: starts loading a sound and hands out its handle at once. Any thread.
@_cdecl("pianola_sound_load")
public func pianolaEffectLoad(_ handle: OpaquePointer?, _ source: UnsafePointer<pianola_source>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        let file = try required(source, "source").pointee.fileSource("source")
        try hand(soundtrack.startLoadingSoundEffect(file), as: .sound, to: try required(out, "sound"))
    }
}

/// pianola_sound_state: loading, ready or failed. Any thread.
@_cdecl("pianola_sound_state")
public func pianolaEffectState(_ handle: OpaquePointer?, _ state: UnsafeMutablePointer<pianola_load_state>?) -> pianola_status {
    status {
        let out = try required(state, "state")
        out.pointee = loadState(try object(handle, .sound, as: Soundtrack.SoundEffect.self, "pianola_sound").state)
    }
}

/// pianola_sound_wait: blocks until loaded. Any thread but the audio thread.
@_cdecl("pianola_sound_wait")
public func pianolaEffectWait(_ handle: OpaquePointer?) -> pianola_status {
    status { try object(handle, .sound, as: Soundtrack.SoundEffect.self, "pianola_sound").wait() }
}

/// pianola_sound_destroy: frees the handle. Any thread.
@_cdecl("pianola_sound_destroy")
public func pianolaEffectDestroy(_ handle: OpaquePointer?) -> pianola_status {
    status {
        _ = try object(handle, .sound, as: Soundtrack.SoundEffect.self, "pianola_sound")
        _ = HandleTable.shared.remove(handle, .sound)
    }
}

/// pianola_poll_events: up to `capacity` events into the caller's array. Any thread.
@_cdecl("pianola_poll_events")
public func pianolaPollEvents(_ handle: OpaquePointer?, _ events: UnsafeMutablePointer<pianola_event>?, _ capacity: Int,
                              _ count: UnsafeMutablePointer<Int>?) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        try fill(events, capacity: capacity, count: count, "events", limit: 1 << 24, with: { soundtrack.pollEvents(limit: capacity) }, as: cEvent)
    }
}

/// An event as its C struct, naming its song or sound by live handle.
private func cEvent(_ event: Soundtrack.Event) -> pianola_event {
    var c = pianola_event()
    c.sample_time = event.sampleTime
    /// The event with its code, the song or sound it is about, and its text.
    func made(_ type: Int, _ about: AnyObject, _ text: String = "") -> pianola_event {
        c.type = pianola_event_type(type)
        if about is Soundtrack.Song { c.song = HandleTable.shared.handle(of: about) } else { c.sound = HandleTable.shared.handle(of: about) }
        withUnsafeMutableBytes(of: &c.text) { copy(text, into: $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity: $0.count) }
        return c
    }
    switch event {
    case .beat(let song, let beat):
        (c.bar, c.beat) = (Int32(clamping: beat.bar), Int32(clamping: beat.beat))
        return made(beat.beat == 1 ? PIANOLA_EVENT_BAR : PIANOLA_EVENT_BEAT, song, beat.section ?? "")
    case .marker(let song, let marker, _): return made(PIANOLA_EVENT_MARKER, song, marker)
    case .loopWrapped(let song, _): return made(PIANOLA_EVENT_LOOP_WRAPPED, song)
    case .jumped(let song, let section, _): return made(PIANOLA_EVENT_JUMPED, song, section)
    case .transitioned(_, let song, _, let rule, _): return made(PIANOLA_EVENT_TRANSITIONED, song, rule)
    case .songStarted(let song, let section, _): return made(PIANOLA_EVENT_SONG_STARTED, song, section ?? "")
    case .songStopped(let song, _): return made(PIANOLA_EVENT_SONG_STOPPED, song)
    case .songEnded(let song, _): return made(PIANOLA_EVENT_SONG_ENDED, song)
    case .songLoaded(let song, _): return made(PIANOLA_EVENT_SONG_LOADED, song)
    case .songLoadFailed(let song, let error, _): return made(PIANOLA_EVENT_SONG_LOAD_FAILED, song, error.description)
    case .soundEffectLoaded(let sound, _): return made(PIANOLA_EVENT_SOUND_LOADED, sound)
    case .soundEffectLoadFailed(let sound, let error, _): return made(PIANOLA_EVENT_SOUND_LOAD_FAILED, sound, error.description)
    }
}
