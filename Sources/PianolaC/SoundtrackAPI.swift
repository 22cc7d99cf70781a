import CPianola
import Pianola
#if canImport(Glibc)
import Glibc
#endif

// The soundtrack's C functions: version, errors, create and destroy, transport, layers,
// effects, meters and its own output. Each only translates to `Soundtrack` (see pianola.h).

/// The object behind `handle` if it is a live handle of `kind`, or a handle error naming `type`.
func object<T: AnyObject>(_ handle: OpaquePointer?, _ kind: HandleTable.Kind, as _: T.Type, _ type: String) throws(APIError) -> T {
    guard let object = HandleTable.shared.lookUp(handle, kind) else {
        throw APIError(PIANOLA_ERROR_HANDLE, handle == nil ? "the \(type) handle is NULL" : "not a live \(type) handle (destroyed, or never made)")
    }
    return unsafeDowncast(object, to: T.self)
}

/// The soundtrack behind `handle`, or a handle error.
func soundtrack(_ handle: OpaquePointer?) throws(APIError) -> Soundtrack {
    try object(handle, .soundtrack, as: Soundtrack.self, "pianola_soundtrack")
}

/// A new handle for `object` into `out`; `out` was checked before the object was made.
func hand(_ object: AnyObject, as kind: HandleTable.Kind, to out: UnsafeMutablePointer<OpaquePointer?>) throws(APIError) {
    guard let handle = HandleTable.shared.add(object, as: kind) else { throw APIError(PIANOLA_ERROR_BUSY, "a million handles are live: destroy some") }
    out.pointee = handle
}

/// A moment from its C code, with the marker's text for PIANOLA_AT_MARKER.
func moment(_ code: pianola_moment, _ marker: UnsafePointer<CChar>?) throws(APIError) -> Soundtrack.Moment {
    switch Int(code) {
    case PIANOLA_NOW: return .now
    case PIANOLA_NEXT_BEAT: return .nextBeat
    case PIANOLA_NEXT_BAR: return .nextBar
    case PIANOLA_AT_MARKER: return .marker(try string(marker, "marker"))
    case PIANOLA_SECTION_END: return .sectionEnd
    default: throw APIError.argument("moment \(code): use PIANOLA_NOW, PIANOLA_NEXT_BEAT, PIANOLA_NEXT_BAR, PIANOLA_AT_MARKER or PIANOLA_SECTION_END")
    }
}

/// The header's version string, in C memory that is never freed or changed.
nonisolated(unsafe) private let versionString: UnsafePointer<CChar> = UnsafePointer(strdup(PIANOLA_VERSION_STRING)!)

/// pianola_version: the library's version string. Any thread.
@_cdecl("pianola_version")
public func pianolaVersion() -> UnsafePointer<CChar> { versionString }

/// pianola_last_error: the calling thread's last error line. Any thread.
@_cdecl("pianola_last_error")
public func pianolaLastError() -> UnsafePointer<CChar> { UnsafePointer(LastError.buffer) }

/// pianola_default_soundfont: the SoundFont that plays when none is given. Any thread.
@_cdecl("pianola_default_soundfont")
public func pianolaDefaultSoundFont(_ path: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ length: UnsafeMutablePointer<Int>?) -> pianola_status {
    status {
        let length = try required(length, "length")
        let chosen = try defaultSoundFont()
        length.pointee = chosen.utf8.count
        if let path, capacity > chosen.utf8.count { copy(chosen, into: path, capacity: capacity) }
    }
}

/// pianola_soundtrack_config_init: the defaults. Any thread.
@_cdecl("pianola_soundtrack_config_init")
public func pianolaSoundtrackConfigInit(_ config: UnsafeMutablePointer<pianola_soundtrack_config>?) -> pianola_status {
    status {
        let config = try required(config, "config")
        let defaults = Soundtrack.Configuration()
        config.pointee = pianola_soundtrack_config(
            struct_size: UInt32(MemoryLayout<pianola_soundtrack_config>.size), sample_rate: Int32(defaults.sampleRate),
            max_frames: Int32(defaults.maxFrames), limiter: defaults.limiter ? 1 : 0, polyphony: Int32(defaults.pianolaSynthesizer.polyphony),
            sound_voices: Int32(defaults.soundEffectVoices), reverb: defaults.pianolaSynthesizer.reverb != nil ? 1 : 0,
            chorus: defaults.pianolaSynthesizer.chorus != nil ? 1 : 0, gain: defaults.pianolaSynthesizer.gain, synth: pianola_synth(PIANOLA_SYNTH_DEFAULT))
    }
}

/// pianola_soundtrack_create: a soundtrack from a config. Any thread.
@_cdecl("pianola_soundtrack_create")
public func pianolaSoundtrackCreate(_ config: UnsafePointer<pianola_soundtrack_config>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> pianola_status {
    status {
        let c = try required(config, "config").pointee
        let out = try required(out, "soundtrack")
        // A config from before the synth field ends where it starts; it is taken without it.
        let firstRelease = MemoryLayout<pianola_soundtrack_config>.offset(of: \pianola_soundtrack_config.synth)!
        if Int(c.struct_size) != firstRelease {
            try checkSize(c.struct_size, of: "pianola_soundtrack_config", is: MemoryLayout<pianola_soundtrack_config>.size)
        }
        var configuration = Soundtrack.Configuration()
        if Int(c.struct_size) != firstRelease { configuration.engine = try engine(c.synth) }
        configuration.sampleRate = try inRange(c.sample_rate, 8_000...384_000, "sample_rate")
        configuration.maxFrames = try inRange(c.max_frames, 64...65_536, "max_frames")
        configuration.limiter = c.limiter != 0
        configuration.soundEffectVoices = try inRange(c.sound_voices, 1...1024, "sound_voices")
        // The config's synthesizer fields are both engines'.
        let polyphony = try inRange(c.polyphony, 1...65_535, "polyphony"), gain = try inRange(Double(c.gain), 0...10, "gain")
        (configuration.pianolaSynthesizer.polyphony, configuration.fluidSynthesizer.polyphony) = (polyphony, polyphony)
        (configuration.pianolaSynthesizer.gain, configuration.fluidSynthesizer.gain) = (Float(gain), gain)
        if c.reverb == 0 { configuration.pianolaSynthesizer.reverb = nil }
        if c.chorus == 0 { configuration.pianolaSynthesizer.chorus = nil }
        (configuration.fluidSynthesizer.reverb, configuration.fluidSynthesizer.chorus) = (c.reverb != 0, c.chorus != 0)
        try hand(Soundtrack(configuration: configuration), as: .soundtrack, to: out)
    }
}

/// pianola_soundtrack_destroy: stops its output and frees it. Any thread.
@_cdecl("pianola_soundtrack_destroy")
public func pianolaSoundtrackDestroy(_ handle: OpaquePointer?) -> pianola_status {
    status {
        _ = try soundtrack(handle)
        (HandleTable.shared.remove(handle, .soundtrack) as? Soundtrack)?.stopOutput()
    }
}

/// pianola_play: a song from its start on a moment, with fades. Any thread.
@_cdecl("pianola_play")
public func pianolaPlay(_ handle: OpaquePointer?, _ song: OpaquePointer?, _ at: pianola_moment, _ marker: UnsafePointer<CChar>?,
                        _ fadeIn: Double, _ fadeOut: Double) -> pianola_status {
    status { try soundtrack(handle).play(try loadedSong(song), at: try moment(at, marker), fadeIn: fadeIn, fadeOut: fadeOut) }
}

/// pianola_crossfade: to a song over some seconds. Any thread.
@_cdecl("pianola_crossfade")
public func pianolaCrossfade(_ handle: OpaquePointer?, _ song: OpaquePointer?, _ seconds: Double, _ at: pianola_moment,
                             _ marker: UnsafePointer<CChar>?) -> pianola_status {
    status { try soundtrack(handle).crossfade(to: try loadedSong(song), seconds: seconds, at: try moment(at, marker)) }
}

/// pianola_stop: the playing song, on a moment, with a fade. Any thread.
@_cdecl("pianola_stop")
public func pianolaStop(_ handle: OpaquePointer?, _ at: pianola_moment, _ marker: UnsafePointer<CChar>?, _ fadeOut: Double) -> pianola_status {
    status { try soundtrack(handle).stop(at: try moment(at, marker), fadeOut: fadeOut) }
}

/// pianola_jump: the playing song to a section, on a moment. Any thread.
@_cdecl("pianola_jump")
public func pianolaJump(_ handle: OpaquePointer?, _ section: UnsafePointer<CChar>?, _ at: pianola_moment, _ marker: UnsafePointer<CChar>?) -> pianola_status {
    status { try soundtrack(handle).jump(to: try string(section, "section"), at: try moment(at, marker)) }
}

/// pianola_pause: everything, where it is. Any thread.
@_cdecl("pianola_pause")
public func pianolaPause(_ handle: OpaquePointer?) -> pianola_status {
    status { try soundtrack(handle).pause() }
}

/// pianola_resume: after a pause. Any thread.
@_cdecl("pianola_resume")
public func pianolaResume(_ handle: OpaquePointer?) -> pianola_status {
    status { try soundtrack(handle).resume() }
}

/// pianola_set_tempo: percent of the written tempo. Any thread.
@_cdecl("pianola_set_tempo")
public func pianolaSetTempo(_ handle: OpaquePointer?, _ percent: Int32) -> pianola_status {
    status { try soundtrack(handle).setTempo(percent: Int(percent)) }
}

/// pianola_set_transpose: semitones. Any thread.
@_cdecl("pianola_set_transpose")
public func pianolaSetTranspose(_ handle: OpaquePointer?, _ semitones: Int32) -> pianola_status {
    status { try soundtrack(handle).setTranspose(semitones: Int(semitones)) }
}

/// pianola_set_layer: a layer's volume, faded, from a moment. Any thread.
@_cdecl("pianola_set_layer")
public func pianolaSetLayer(_ handle: OpaquePointer?, _ layer: UnsafePointer<CChar>?, _ volume: Float, _ seconds: Double,
                            _ at: pianola_moment, _ marker: UnsafePointer<CChar>?) -> pianola_status {
    status { try soundtrack(handle).setLayer(try string(layer, "layer"), volume: volume, seconds: seconds, at: try moment(at, marker)) }
}

/// pianola_set_master_volume: everything's volume, faded. Any thread.
@_cdecl("pianola_set_master_volume")
public func pianolaSetMasterVolume(_ handle: OpaquePointer?, _ volume: Float, _ seconds: Double) -> pianola_status {
    status { try soundtrack(handle).setMasterVolume(volume, seconds: seconds) }
}

/// pianola_play_sound: a sound on a moment, at a volume and pan. Any thread.
@_cdecl("pianola_play_sound")
public func pianolaPlayEffect(_ handle: OpaquePointer?, _ effect: OpaquePointer?, _ at: pianola_moment, _ marker: UnsafePointer<CChar>?,
                              _ volume: Float, _ pan: Float) -> pianola_status {
    status {
        let effect = try object(effect, .sound, as: Soundtrack.SoundEffect.self, "pianola_sound")
        try soundtrack(handle).playSoundEffect(effect, at: try moment(at, marker), volume: volume, pan: pan)
    }
}

/// pianola_play_stinger: a MIDI phrase over the song, on a moment, at its live tempo. Any thread.
@_cdecl("pianola_play_stinger")
public func pianolaPlayStinger(_ handle: OpaquePointer?, _ stinger: OpaquePointer?, _ at: pianola_moment, _ marker: UnsafePointer<CChar>?,
                               _ priority: Int32, _ volume: Float) -> pianola_status {
    status { try soundtrack(handle).playStinger(try loadedSong(stinger), at: try moment(at, marker), priority: Int(priority), volume: volume) }
}

/// pianola_meters: the last render's peak and RMS. Any thread.
@_cdecl("pianola_meters")
public func pianolaMeters(_ handle: OpaquePointer?, _ peak: UnsafeMutablePointer<Float>?, _ rms: UnsafeMutablePointer<Float>?) -> pianola_status {
    status {
        let (peakOut, rmsOut) = (try required(peak, "peak"), try required(rms, "rms"))
        let meters = try soundtrack(handle).meters
        (peakOut.pointee, rmsOut.pointee) = (meters.peak, meters.rms)
    }
}

/// pianola_output_start_driver: Pianola's own output on a driver. Any thread.
@_cdecl("pianola_output_start_driver")
public func pianolaOutputStartDriver(_ handle: OpaquePointer?, _ driver: pianola_driver, _ device: UnsafePointer<CChar>?, _ periodFrames: Int32, _ periods: Int32) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        let driver = try audioDriver(driver)
        let period = periodFrames == 0 ? 512 : try inRange(periodFrames, 16...soundtrack.configuration.maxFrames, "period_frames")
        let count = periods == 0 ? 3 : try inRange(periods, 2...16, "periods")
        _ = try soundtrack.startOutput(driver: driver, device: device.map { String(cString: $0) }, periodFrames: period, periods: count)
    }
}

/// pianola_output_start: pianola_output_start_driver on the driver `pianola play` chooses. Any thread.
@_cdecl("pianola_output_start")
public func pianolaOutputStart(_ handle: OpaquePointer?, _ device: UnsafePointer<CChar>?, _ periodFrames: Int32, _ periods: Int32) -> pianola_status {
    pianolaOutputStartDriver(handle, pianola_driver(PIANOLA_DRIVER_DEFAULT), device, periodFrames, periods)
}

/// pianola_output_stop: at once. Any thread.
@_cdecl("pianola_output_stop")
public func pianolaOutputStop(_ handle: OpaquePointer?) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        guard soundtrack.isOutputRunning else { throw APIError(PIANOLA_ERROR_STATE, "the soundtrack's own output is not running") }
        soundtrack.stopOutput()
    }
}

/// pianola_position_init: zeros and the struct's size. Any thread.
@_cdecl("pianola_position_init")
public func pianolaPositionInit(_ position: UnsafeMutablePointer<pianola_position>?) -> pianola_status {
    status {
        try initialize(position, "position", to: pianola_position(), size: \.struct_size)
    }
}

/// pianola_soundtrack_position: the playing song and where it is, at the frame last rendered. Any thread.
@_cdecl("pianola_soundtrack_position")
public func pianolaSoundtrackPosition(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<pianola_position>?) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        let out = try required(out, "position")
        try checkSize(out.pointee.struct_size, of: "pianola_position", is: MemoryLayout<pianola_position>.size)
        let p = soundtrack.position
        var c = pianola_position()
        c.struct_size = out.pointee.struct_size
        (c.beats_per_bar, c.beat_unit, c.bar, c.beat) = (Int32(p.beatsPerBar), Int32(p.beatUnit), Int32(clamping: p.bar), Int32(clamping: p.beat))
        (c.beat_fraction, c.sample_time, c.song_frame, c.seconds, c.tick, c.bpm) = (p.beatFraction, p.sampleTime, p.songFrame, p.seconds, Int64(p.tick), p.bpm)
        c.song = p.song.flatMap { HandleTable.shared.handle(of: $0) }
        withUnsafeMutableBytes(of: &c.section) { copy(p.section ?? "", into: $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity: $0.count) }
        out.pointee = c
    }
}
