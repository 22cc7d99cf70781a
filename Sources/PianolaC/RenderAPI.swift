import CPianola
import Pianola
#if canImport(Glibc)
import Glibc
#endif

// The real-time pull renders, and the offline calls: a song to a file, to a device, or read
// out in pieces. Each only translates (see pianola.h).

/// The most frames one render call takes (a quarter of an hour at 48 kHz and more): beyond
/// it a size is a caller's mistake, such as a negative length turned unsigned.
private let maximumRenderFrames = 1 << 26

/// Fails a render call: the code, and its line kept for the thread. Not real-time, but only
/// reached by a call that is wrong.
private func renderFailure(_ code: Int, _ message: String) -> pianola_status {
    LastError.set(message)
    return pianola_status(code)
}

/// Checks a render call's handle, buffers and size, then renders with `body`; no lock, no
/// allocation on the way to a good render.
@inline(__always)
private func render(_ handle: OpaquePointer?, _ buffers: Bool, _ frames: Int, _ body: (Soundtrack) -> Bool) -> pianola_status {
    guard let object = HandleTable.shared.lookUp(handle, .soundtrack) else {
        return renderFailure(PIANOLA_ERROR_HANDLE, handle == nil ? "the pianola_soundtrack handle is NULL" : "not a live pianola_soundtrack handle (destroyed, or never made)")
    }
    guard buffers else { return renderFailure(PIANOLA_ERROR_ARGUMENT, "a render buffer is NULL") }
    guard frames >= 0, frames <= maximumRenderFrames else {
        return renderFailure(PIANOLA_ERROR_ARGUMENT, "frames \(UInt(bitPattern: frames)): render at most \(maximumRenderFrames) frames a call")
    }
    guard body(unsafeDowncast(object, to: Soundtrack.self)) else {
        return renderFailure(PIANOLA_ERROR_STATE, "Pianola's own output is playing this soundtrack; stop it before pulling audio yourself")
    }
    return pianola_status(PIANOLA_OK)
}

/// pianola_render_f32: interleaved float. Audio thread.
@_cdecl("pianola_render_f32")
public func pianolaRenderF32(_ handle: OpaquePointer?, _ interleaved: UnsafeMutablePointer<Float>?, _ frames: Int) -> pianola_status {
    render(handle, interleaved != nil, frames) { $0.render(interleaved: interleaved!, frameCount: frames) }
}

/// pianola_render_s16: interleaved signed 16-bit. Audio thread.
@_cdecl("pianola_render_s16")
public func pianolaRenderS16(_ handle: OpaquePointer?, _ interleaved: UnsafeMutablePointer<Int16>?, _ frames: Int) -> pianola_status {
    render(handle, interleaved != nil, frames) { $0.render(interleaved: interleaved!, frameCount: frames) }
}

/// pianola_render_planar: two float channels. Audio thread.
@_cdecl("pianola_render_planar")
public func pianolaRenderPlanar(_ handle: OpaquePointer?, _ left: UnsafeMutablePointer<Float>?, _ right: UnsafeMutablePointer<Float>?, _ frames: Int) -> pianola_status {
    render(handle, left != nil && right != nil, frames) { $0.render(left: left!, right: right!, frameCount: frames) }
}

/// pianola_render_config_init: the defaults. Any thread.
@_cdecl("pianola_render_config_init")
public func pianolaRenderConfigInit(_ config: UnsafeMutablePointer<pianola_render_config>?) -> pianola_status {
    status {
        let config = try initialize(config, "config", to: pianola_render_config(), size: \.struct_size)
        let defaults = SongGraph.Settings()
        config.pointee.sample_rate = Int32(defaults.sampleRate)
        config.pointee.tail_seconds = defaults.tailSeconds
        config.pointee.reverb = defaults.reverb ? 1 : 0
        config.pointee.chorus = defaults.chorus ? 1 : 0
        config.pointee.gain = Float(defaults.gain)
        config.pointee.bits = 16
    }
}

/// A render config read: the song, its font (a file, or one loaded once), the settings, the
/// sample encoding, and whether notes are labelled.
struct RenderRequest {
    let sequence: MusicSequence
    let font: Font
    let settings: SongGraph.Settings
    let encoding: AudioFileWriter.Encoding
    let labels: Bool

    enum Font {
        case file(FileSource)
        case loaded(LoadedSoundFont)
    }

    /// The font as a file, for playing through a device (a font loaded once is for renders).
    func playableFont() throws(APIError) -> FileSource {
        guard case .file(let font) = font else { throw .argument("loaded_soundfont is for offline renders; give soundfont to play a file") }
        return font
    }

    /// A renderer of the request, recording labels if asked. Control thread.
    func makeRenderer() throws -> SongRenderer {
        let renderer: SongRenderer
        switch font {
        case .file(let source): renderer = try SongRenderer(sequence: sequence, soundFont: source, settings: settings)
        case .loaded(let font): renderer = try SongRenderer(sequence: sequence, soundFont: font, settings: settings)
        }
        if labels { renderer.recordLabels() }
        return renderer
    }
}

/// Tracks counted from 1 (`count` of them at `tracks`, the field `what`), as 0-based indices of `sequence`'s.
private func tracks(_ tracks: UnsafePointer<Int32>?, _ count: Int, _ what: String, of sequence: MusicSequence) throws(APIError) -> Set<Int> {
    guard count == 0 || tracks != nil, (0...65_535).contains(count) else { throw .argument("\(what): give \(what)_count (0 to 65535) tracks") }
    var chosen: Set<Int> = []
    for i in 0..<count {
        let track = Int(tracks![i])
        guard (1...sequence.tracks.count).contains(track) else {
            throw .argument("\(what)[\(i)] \(track): the song has tracks 1 to \(sequence.tracks.count)")
        }
        chosen.insert(track - 1)
    }
    return chosen
}

/// Channels 1–16 from a mask, bit 0 channel 1, as 0-based channels.
private func channels(_ mask: UInt32, _ what: String) throws(APIError) -> Set<Int> {
    guard mask >> 16 == 0 else { throw .argument("\(what) 0x\(String(mask, radix: 16)): bits 0 to 15 are channels 1 to 16") }
    return Set((0..<16).filter { mask & (1 << $0) != 0 })
}

/// What a render config asks for.
func request(_ config: UnsafePointer<pianola_render_config>?) throws -> RenderRequest {
    let c = try required(config, "config").pointee
    // A config from before the 0.3.0 fields ends where they start; it is taken without them.
    let firstRelease = MemoryLayout<pianola_render_config>.offset(of: \pianola_render_config.loaded_soundfont)!
    let isCurrent = Int(c.struct_size) != firstRelease
    if isCurrent { try checkSize(c.struct_size, of: "pianola_render_config", is: MemoryLayout<pianola_render_config>.size) }
    var settings = SongGraph.Settings()
    settings.sampleRate = try inRange(c.sample_rate, 8_000...384_000, "sample_rate")
    settings.tailSeconds = try inRange(c.tail_seconds, 0...60, "tail_seconds")
    settings.reverb = c.reverb != 0
    settings.chorus = c.chorus != 0
    settings.gain = try inRange(Double(c.gain), 0...10, "gain")
    let encodings: [Int32: AudioFileWriter.Encoding] = [16: .int16, 24: .int24, 32: .float32]
    guard let encoding = encodings[c.bits] else { throw APIError.argument("bits \(c.bits): use 16, 24 or 32 (float)") }
    let midi = try c.midi.fileSource("midi")
    let sequence = try midi.musicSequence()
    guard isCurrent else { return RenderRequest(sequence: sequence, font: .file(try c.soundfont.soundFontSource("soundfont")), settings: settings, encoding: encoding, labels: false) }
    let font: RenderRequest.Font
    if let handle = c.loaded_soundfont {
        let loaded = try object(handle, .soundFont, as: LoadedSoundFont.self, "pianola_soundfont")
        settings.engine = loaded.engine
        font = .loaded(loaded)
    } else {
        settings.engine = try engine(c.synth)
        font = .file(try c.soundfont.soundFontSource("soundfont"))
    }
    settings.transpose = try inRange(c.transpose, -48...48, "transpose")
    let name = midi.name
    func position(_ text: UnsafePointer<CChar>?, _ what: String) throws -> Int? {
        guard let text else { return nil }
        let written = String(cString: text)
        do { return try sequence.tick(atPosition: written) } catch { throw APIError.argument("\(what) \"\(written)\": \(error)") }
    }
    if let from = try position(c.from, "from") {
        guard from < sequence.length else {
            throw APIError.argument("from \"\(String(cString: c.from))\" is at or after the end of \(name) (\(sequence.durationSeconds) s)")
        }
        settings.fromTick = from
    }
    settings.toTick = try position(c.to, "to")
    if let end = settings.toTick, end <= settings.fromTick { throw APIError.argument("to \"\(String(cString: c.to))\" is not after from") }
    settings.mutedTracks = try tracks(c.mute_tracks, c.mute_track_count, "mute_tracks", of: sequence)
    settings.soloTracks = try tracks(c.solo_tracks, c.solo_track_count, "solo_tracks", of: sequence)
    settings.mutedChannels = try channels(c.mute_channels, "mute_channels")
    settings.soloChannels = try channels(c.solo_channels, "solo_channels")
    return RenderRequest(sequence: sequence, font: font, settings: settings, encoding: encoding, labels: c.labels != 0)
}

/// pianola_soundfont_load: a font loaded once for many renders. Any thread.
@_cdecl("pianola_soundfont_load")
public func pianolaSoundFontLoad(_ source: UnsafePointer<pianola_source>?, _ synth: pianola_synth, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> pianola_status {
    status {
        let source = try required(source, "source").pointee
        let out = try required(out, "soundfont")
        guard case .path(let path) = try source.soundFontSource("source") else {
            throw APIError.argument("source: a SoundFont shared between renders is read from a path; give path, not data")
        }
        let loaded: LoadedSoundFont
        do { loaded = try LoadedSoundFont(path: path, engine: try engine(synth)) } catch let error as APIError { throw error } catch { throw APIError(PIANOLA_ERROR_FILE, "\(error)") }
        try hand(loaded, as: .soundFont, to: out)
    }
}

/// pianola_soundfont_destroy: lets go of it. Any thread.
@_cdecl("pianola_soundfont_destroy")
public func pianolaSoundFontDestroy(_ handle: OpaquePointer?) -> pianola_status {
    status {
        _ = try object(handle, .soundFont, as: LoadedSoundFont.self, "pianola_soundfont")
        _ = HandleTable.shared.remove(handle, .soundFont)
    }
}

/// pianola_render_file: a song into an audio file. Any thread.
@_cdecl("pianola_render_file")
public func pianolaRenderFile(_ config: UnsafePointer<pianola_render_config>?, _ outputPath: UnsafePointer<CChar>?, _ overwrite: Int32) -> pianola_status {
    status {
        let path = try string(outputPath, "output_path")
        guard let container = AudioFileWriter.Container(path: path) else {
            throw APIError.argument("\(path): unknown audio file type; name it .wav, .flac, .ogg, .opus, .mp3 or .raw")
        }
        let request = try request(config)
        _ = try request.makeRenderer().write(to: path, container: container, encoding: request.encoding, overwrite: overwrite != 0)
    }
}

/// pianola_write_audio: audio the caller holds into a file, whole or not at all. Any thread.
@_cdecl("pianola_write_audio")
public func pianolaWriteAudio(_ outputPath: UnsafePointer<CChar>?, _ interleaved: UnsafePointer<Float>?, _ frames: Int, _ sampleRate: Int32,
                              _ bits: Int32, _ overwrite: Int32) -> pianola_status {
    status {
        let path = try string(outputPath, "output_path")
        guard let container = AudioFileWriter.Container(path: path), container != .raw else {
            throw APIError.argument("\(path): unknown audio file type; name it .wav, .flac, .ogg, .opus or .mp3")
        }
        let encodings: [Int32: AudioFileWriter.Encoding] = [16: .int16, 24: .int24, 32: .float32]
        guard let encoding = encodings[bits] else { throw APIError.argument("bits \(bits): use 16, 24 or 32 (float)") }
        let rate = try inRange(sampleRate, 8_000...384_000, "sample_rate")
        guard frames >= 0, frames == 0 || interleaved != nil else { throw APIError.argument("interleaved is NULL for \(frames) frames") }
        if overwrite == 0 && access(path, F_OK) == 0 { throw APIError(PIANOLA_ERROR_FILE, "\(path): already exists") }
        // Written under a hidden name beside it and renamed when whole: an interrupted
        // write leaves no half file where the file goes.
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let partial = "\(path[..<slash]).\(path[slash...]).\(getpid()).partial"
        do throws(AudioFileError) {
            let writer = try AudioFileWriter(path: partial, container: container, encoding: encoding, sampleRate: rate, overwrite: true)
            if let interleaved, frames > 0 { try writer.write(interleaved: interleaved, frames: frames) }
            try writer.close()
        } catch {
            unlink(partial)
            throw APIError(PIANOLA_ERROR_FILE, error.description.split(separator: partial).joined(separator: path))
        }
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw APIError(PIANOLA_ERROR_FILE, "\(path): cannot write: \(reason)")
        }
    }
}

/// pianola_play_file_driver: a song once through a device on a driver, returning when it has ended. Any thread.
@_cdecl("pianola_play_file_driver")
public func pianolaPlayFileDriver(_ config: UnsafePointer<pianola_render_config>?, _ driver: pianola_driver, _ device: UnsafePointer<CChar>?) -> pianola_status {
    status {
        let driver = try audioDriver(driver)
        let request = try request(config)
        try SongGraph.playThrough(request.sequence, soundFont: try request.playableFont(), settings: request.settings, driver: driver,
                                  device: device.map { String(cString: $0) })
    }
}

/// pianola_play_file: pianola_play_file_driver on the driver `pianola play` chooses. Any thread.
@_cdecl("pianola_play_file")
public func pianolaPlayFile(_ config: UnsafePointer<pianola_render_config>?, _ device: UnsafePointer<CChar>?) -> pianola_status {
    pianolaPlayFileDriver(config, pianola_driver(PIANOLA_DRIVER_DEFAULT), device)
}

/// pianola_renderer_create: an offline render to read out in pieces. Any thread.
@_cdecl("pianola_renderer_create")
public func pianolaRendererCreate(_ config: UnsafePointer<pianola_render_config>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> pianola_status {
    status {
        let out = try required(out, "renderer")
        try hand(try request(config).makeRenderer(), as: .renderer, to: out)
    }
}

/// The renderer behind `handle`, or a handle error.
private func renderer(_ handle: OpaquePointer?) throws(APIError) -> SongRenderer {
    try object(handle, .renderer, as: SongRenderer.self, "pianola_renderer")
}

/// pianola_renderer_max_frames: the length with the whole tail. Any thread.
@_cdecl("pianola_renderer_max_frames")
public func pianolaRendererMaxFrames(_ handle: OpaquePointer?, _ frames: UnsafeMutablePointer<Int64>?) -> pianola_status {
    status {
        let out = try required(frames, "frames")
        out.pointee = try renderer(handle).songGraph.maximumFrames
    }
}

/// pianola_renderer_read: the next frames, interleaved. One thread at a time.
@_cdecl("pianola_renderer_read")
public func pianolaRendererRead(_ handle: OpaquePointer?, _ interleaved: UnsafeMutablePointer<Float>?, _ frames: Int,
                                _ framesRead: UnsafeMutablePointer<Int>?) -> pianola_status {
    status {
        let renderer = try renderer(handle)
        let (buffer, read) = (try required(interleaved, "interleaved"), try required(framesRead, "frames_read"))
        guard frames >= 0, frames <= maximumRenderFrames else { throw APIError.argument("frames \(UInt(bitPattern: frames)): read at most \(maximumRenderFrames) frames a call") }
        read.pointee = renderer.read(interleaved: buffer, frames: frames)
    }
}

/// pianola_renderer_labels: the notes played so far. One thread at a time.
@_cdecl("pianola_renderer_labels")
public func pianolaRendererLabels(_ handle: OpaquePointer?, _ labels: UnsafeMutablePointer<pianola_note_label>?, _ capacity: Int,
                                  _ count: UnsafeMutablePointer<Int>?) -> pianola_status {
    status {
        let renderer = try renderer(handle)
        try fill(labels, capacity: capacity, count: count, "labels", limit: maximumRenderFrames, with: { renderer.labels }) { label in
            pianola_note_label(start_frame: label.startFrame, end_frame: label.endFrame, channel: Int32(label.channel + 1),
                               key: Int32(label.key), velocity: Int32(label.velocity), program: Int32(label.program), bank: Int32(label.bank))
        }
    }
}

/// pianola_renderer_track_count: the song's tracks. Any thread.
@_cdecl("pianola_renderer_track_count")
public func pianolaRendererTrackCount(_ handle: OpaquePointer?, _ count: UnsafeMutablePointer<Int32>?) -> pianola_status {
    status {
        let renderer = try renderer(handle)
        try required(count, "count").pointee = Int32(renderer.songGraph.sequence.tracks.count)
    }
}

/// pianola_renderer_track: one track's notes, channels and name. Any thread.
@_cdecl("pianola_renderer_track")
public func pianolaRendererTrack(_ handle: OpaquePointer?, _ track: Int32, _ info: UnsafeMutablePointer<pianola_track_info>?) -> pianola_status {
    status {
        let tracks = try renderer(handle).songGraph.sequence.tracks
        let info = try required(info, "info")
        guard (1...Int32(tracks.count)).contains(track) else { throw APIError.argument("track \(track): the song has tracks 1 to \(tracks.count)") }
        let chosen = tracks[Int(track) - 1]
        var c = pianola_track_info()
        c.notes = Int64(chosen.noteCount)
        for event in chosen.events where event.message.isSoundingNoteOn {
            if let channel = event.message.channel { c.channels |= 1 << UInt32(channel) }
        }
        withUnsafeMutableBytes(of: &c.name) { copy(chosen.name ?? "", into: $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity: $0.count) }
        info.pointee = c
    }
}

/// pianola_renderer_destroy: frees it. Any thread.
@_cdecl("pianola_renderer_destroy")
public func pianolaRendererDestroy(_ handle: OpaquePointer?) -> pianola_status {
    status {
        _ = try renderer(handle)
        _ = HandleTable.shared.remove(handle, .renderer)
    }
}
