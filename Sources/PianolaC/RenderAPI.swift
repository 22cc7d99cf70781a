import CPianola
import Pianola

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

/// What a render config asks for: the song read, its font, the settings and the sample encoding.
private func song(_ config: UnsafePointer<pianola_render_config>?) throws -> (MusicSequence, FileSource, SongGraph.Settings, AudioFileWriter.Encoding) {
    let c = try required(config, "config").pointee
    try checkSize(c.struct_size, of: "pianola_render_config", is: MemoryLayout<pianola_render_config>.size)
    var settings = SongGraph.Settings()
    settings.sampleRate = try inRange(c.sample_rate, 8_000...384_000, "sample_rate")
    settings.tailSeconds = try inRange(c.tail_seconds, 0...60, "tail_seconds")
    settings.reverb = c.reverb != 0
    settings.chorus = c.chorus != 0
    settings.gain = try inRange(Double(c.gain), 0...10, "gain")
    let encodings: [Int32: AudioFileWriter.Encoding] = [16: .int16, 24: .int24, 32: .float32]
    guard let encoding = encodings[c.bits] else { throw APIError.argument("bits \(c.bits): use 16, 24 or 32 (float)") }
    let midi = try c.midi.fileSource("midi"), font = try c.soundfont.fileSource("soundfont")
    return (try midi.musicSequence(), font, settings, encoding)
}

/// pianola_render_file: a song into an audio file. Any thread.
@_cdecl("pianola_render_file")
public func pianolaRenderFile(_ config: UnsafePointer<pianola_render_config>?, _ outputPath: UnsafePointer<CChar>?, _ overwrite: Int32) -> pianola_status {
    status {
        let path = try string(outputPath, "output_path")
        guard let container = AudioFileWriter.Container(path: path) else {
            throw APIError.argument("\(path): unknown audio file type; name it .wav, .flac, .ogg, .opus, .mp3 or .raw")
        }
        let (sequence, font, settings, encoding) = try song(config)
        _ = try SongRenderer(sequence: sequence, soundFont: font, settings: settings).write(to: path, container: container, encoding: encoding, overwrite: overwrite != 0)
    }
}

/// pianola_play_file_driver: a song once through a device on a driver, returning when it has ended. Any thread.
@_cdecl("pianola_play_file_driver")
public func pianolaPlayFileDriver(_ config: UnsafePointer<pianola_render_config>?, _ driver: pianola_driver, _ device: UnsafePointer<CChar>?) -> pianola_status {
    status {
        let driver = try audioDriver(driver)
        let (sequence, font, settings, _) = try song(config)
        try SongGraph.playThrough(sequence, soundFont: font, settings: settings, driver: driver, device: device.map { String(cString: $0) })
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
        let (sequence, font, settings, _) = try song(config)
        try hand(SongRenderer(sequence: sequence, soundFont: font, settings: settings), as: .renderer, to: out)
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

/// pianola_renderer_destroy: frees it. Any thread.
@_cdecl("pianola_renderer_destroy")
public func pianolaRendererDestroy(_ handle: OpaquePointer?) -> pianola_status {
    status {
        _ = try renderer(handle)
        _ = HandleTable.shared.remove(handle, .renderer)
    }
}
