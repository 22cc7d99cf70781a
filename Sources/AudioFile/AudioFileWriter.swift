import Faults
import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// Writes stereo float audio to a WAV, FLAC, Ogg Vorbis, Opus or MP3 file through libsndfile. An existing file is
/// never replaced unless asked. Not for the render thread (it does file I/O).
public final class AudioFileWriter {
    /// The container. Any thread.
    public enum Container: String, Sendable, CaseIterable {
        /// RIFF WAVE. Any thread.
        case wav
        /// FLAC (16 or 24 bits). Any thread.
        case flac
        /// Ogg Vorbis, lossy (the encoding is ignored). Any thread.
        case ogg
        /// Opus in Ogg, lossy, at 8, 12, 16, 24 or 48 kHz only (the encoding is ignored). Any thread.
        case opus
        /// MPEG-1 Layer III, lossy (the encoding is ignored). Any thread.
        case mp3
        /// Headerless interleaved samples, little-endian, in the encoding asked for: what a
        /// pipe, a FIFO or `aplay -t raw` takes. Any thread.
        case raw

        /// The container for a path's extension (`.wav`, `.flac`, `.ogg`, `.opus`, `.mp3`, `.raw`), `nil` for any other. Any thread.
        public init?(path: String) {
            let ext = path.split(separator: "/").last?.split(separator: ".", omittingEmptySubsequences: false).last.map { $0.lowercased() }
            guard let ext, let container = Container(rawValue: ext) else { return nil }
            self = container
        }
    }

    /// Sample encoding. Any thread.
    public enum Encoding: String, Sendable, CaseIterable {
        /// 16-bit integer (clipped, no dither). Any thread.
        case int16 = "16"
        /// 24-bit integer. Any thread.
        case int24 = "24"
        /// 32-bit float (WAV and raw only). Any thread.
        case float32 = "32f"
    }

    private let file: OpaquePointer
    private let descriptor: Int32
    /// What libsndfile writes a regular file through (nil for a pipe, written directly).
    private let buffered: BufferedFile?
    private var isClosed = false
    /// The path written. Any thread.
    public let path: String
    private var interleaved: [Float] = []
    /// Whether 16-bit samples are converted here (`SixteenBitPCM`, libsndfile's WAV and raw
    /// conversion, eight at a time) and handed to libsndfile as integers.
    private let convertsItself: Bool
    private var converted: [Int16] = []

    /// Creates `path` (refusing an existing file unless `overwrite`) for stereo audio at
    /// `sampleRate`; `-` writes to standard output (a pipe: formats that need no seek back,
    /// such as FLAC and raw; libsndfile writes WAV's sizes as unknown there). Control thread.
    public init(path: String, container: Container, encoding: Encoding, sampleRate: Int, overwrite: Bool = false) throws(AudioFileError) {
        self.path = path
        if container == .flac && encoding == .float32 {
            throw AudioFileError(path: path, reason: "FLAC holds 16 or 24 bits, not 32-bit float")
        }
        let toStandardOutput = path == "-"
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL)
        let fd = toStandardOutput ? dup(STDOUT_FILENO) : open(path, flags, 0o644)
        guard fd >= 0 else {
            if errno == EEXIST { throw AudioFileError(path: path, reason: "already exists", alreadyExists: true) }
            throw AudioFileError(path: path, reason: String(cString: strerror(errno)))
        }
        // libsndfile cannot write WAV into a pipe (its sizes are patched at the end): write
        // the header here with the sizes unknown (all ones, as streaming writers do, and as
        // aplay and sox read), then the samples as raw little-endian.
        var container = container
        if container == .wav && lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE {
            guard Self.writeStreamingWAVHeader(fd, encoding: encoding, sampleRate: sampleRate) else {
                let reason = String(cString: strerror(errno))
                Glibc.close(fd)
                throw AudioFileError(path: path, reason: reason)
            }
            container = .raw
        }
        let major: Int, minor: Int
        switch (container, encoding) {
        case (.ogg, _): (major, minor) = (SF_FORMAT_OGG, SF_FORMAT_VORBIS)
        case (.opus, _): (major, minor) = (SF_FORMAT_OGG, SF_FORMAT_OPUS)
        case (.mp3, _): (major, minor) = (SF_FORMAT_MPEG, SF_FORMAT_MPEG_LAYER_III)
        case (.raw, .int16): (major, minor) = (SF_FORMAT_RAW | SF_ENDIAN_LITTLE, SF_FORMAT_PCM_16)
        case (.raw, .int24): (major, minor) = (SF_FORMAT_RAW | SF_ENDIAN_LITTLE, SF_FORMAT_PCM_24)
        case (.raw, .float32): (major, minor) = (SF_FORMAT_RAW | SF_ENDIAN_LITTLE, SF_FORMAT_FLOAT)
        case (_, .int16): (major, minor) = (container == .wav ? SF_FORMAT_WAV : SF_FORMAT_FLAC, SF_FORMAT_PCM_16)
        case (_, .int24): (major, minor) = (container == .wav ? SF_FORMAT_WAV : SF_FORMAT_FLAC, SF_FORMAT_PCM_24)
        case (_, .float32): (major, minor) = (SF_FORMAT_WAV, SF_FORMAT_FLOAT)
        }
        convertsItself = minor == SF_FORMAT_PCM_16 && (container == .wav || container == .raw)
        var info = SF_INFO(frames: 0, samplerate: Int32(sampleRate), channels: 2, format: Int32(major | minor), sections: 0, seekable: 0)
        let buffered = lseek(fd, 0, SEEK_CUR) < 0 ? nil : BufferedFile(descriptor: fd)
        let opened = if let buffered {
            withUnsafePointer(to: BufferedFile.callbacks) {
                sf_open_virtual(UnsafeMutablePointer(mutating: $0), Int32(SFM_WRITE), &info, Unmanaged.passUnretained(buffered).toOpaque())
            }
        } else {
            sf_open_fd(fd, Int32(SFM_WRITE), &info, 0)
        }
        guard let file = opened else {
            let reason = sndfileMessage(sf_strerror(nil))
            Glibc.close(fd)
            if !toStandardOutput { unlink(path) }   // the empty file this call created
            throw AudioFileError(path: path, reason: reason)
        }
        // Integer formats clip instead of wrapping around.
        sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        self.file = file
        self.descriptor = fd
        self.buffered = buffered
    }

    /// Writes a WAV header for stereo `encoding` at `sampleRate` whose lengths say "unknown";
    /// false if the write failed.
    private static func writeStreamingWAVHeader(_ fd: Int32, encoding: Encoding, sampleRate: Int) -> Bool {
        let (bits, format): (UInt16, UInt16) = switch encoding {
        case .int16: (16, 1)
        case .int24: (24, 1)
        case .float32: (32, 3)
        }
        var header: [UInt8] = []
        func append(_ text: String) { header += Array(text.utf8) }
        func append32(_ value: UInt32) { header += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func append16(_ value: UInt16) { header += [UInt8(truncatingIfNeeded: value), UInt8(value >> 8)] }
        let blockAlign = 2 * bits / 8
        append("RIFF"); append32(.max); append("WAVE")
        append("fmt "); append32(16); append16(format); append16(2); append32(UInt32(sampleRate))
        append32(UInt32(sampleRate) * UInt32(blockAlign)); append16(blockAlign); append16(bits)
        append("data"); append32(.max)
        return header.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == header.count
    }

    deinit {
        if !isClosed {
            sf_close(file)
            buffered?.flush()
            Glibc.close(descriptor)
        }
    }

    /// Appends `frames` frames from two channel buffers. Control thread.
    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) throws(AudioFileError) {
        if convertsItself {
            return try writeConverted(frames: frames) { SixteenBitPCM.interleave(left, right, into: $0, frames: frames) }
        }
        if interleaved.count < frames * 2 { interleaved = [Float](repeating: 0, count: frames * 2) }
        try interleaved.withUnsafeMutableBufferPointer { (buffer) throws(AudioFileError) in
            let out = buffer.baseAddress!
            for i in 0..<frames {
                out[2 * i] = left[i]
                out[2 * i + 1] = right[i]
            }
            try write(interleaved: out, frames: frames)
        }
    }

    /// Appends `frames` frames of interleaved stereo (left, right, left, …). Control thread.
    public func write(interleaved frames: UnsafePointer<Float>, frames count: Int) throws(AudioFileError) {
        if convertsItself {
            return try writeConverted(frames: count) { SixteenBitPCM.convert(frames, into: $0, count: 2 * count) }
        }
        guard sf_writef_float(file, frames, sf_count_t(count)) == count else { throw writeError }
    }

    /// Writes `frames` frames of 16-bit samples that `convert` puts in the buffer it is given.
    private func writeConverted(frames: Int, _ convert: (UnsafeMutablePointer<Int16>) -> Void) throws(AudioFileError) {
        if converted.count < frames * 2 { converted = [Int16](repeating: 0, count: frames * 2) }
        let written = converted.withUnsafeMutableBufferPointer { buffer in
            convert(buffer.baseAddress!)
            return sf_writef_short(file, buffer.baseAddress!, sf_count_t(frames))
        }
        guard written == frames else { throw writeError }
    }

    /// What a write that libsndfile did not finish failed on.
    private var writeError: AudioFileError { AudioFileError(path: path, reason: failure ?? sndfileMessage(sf_strerror(file))) }

    /// Why the buffered file's last read or write failed, if one did.
    private var failure: String? {
        guard let buffered, buffered.failure != 0 else { return nil }
        return String(cString: strerror(buffered.failure))
    }

    /// Finishes the file (headers, FLAC stream end). Control thread.
    public func close() throws(AudioFileError) {
        guard !isClosed else { return }
        isClosed = true
        let status = sf_close(file)
        buffered?.flush()
        Glibc.close(descriptor)
        if let failure { throw AudioFileError(path: path, reason: failure) }
        guard status == 0 else { throw AudioFileError(path: path, reason: sndfileMessage(sf_error_number(status))) }
    }
}

/// An audio file that could not be read or written: path and libsndfile's or the system's reason. Any thread.
public struct AudioFileError: Fault, Hashable, Sendable {
    /// A file's fault. Any thread.
    public var kind: FaultKind { .file }
    /// The file. Any thread.
    public var path: String
    /// Why. Any thread.
    public var reason: String
    /// True when a file to be written exists and was not to be replaced. Any thread.
    public var alreadyExists: Bool

    /// The error for `path`, because of `reason`. Any thread.
    public init(path: String, reason: String, alreadyExists: Bool = false) {
        self.path = path
        self.reason = reason
        self.alreadyExists = alreadyExists
    }

    /// `path: reason`. Any thread.
    public var description: String { "\(path): \(reason)" }
}

/// One of libsndfile's messages without its "Error : " prefix and final full stop, to sit
/// inside one of our lines. Any thread.
func sndfileMessage(_ message: UnsafePointer<CChar>) -> String {
    var text = Substring(String(cString: message))
    if text.hasPrefix("Error : ") { text = text.dropFirst(8) }
    if text.hasSuffix(".") { text = text.dropLast() }
    return String(text)
}
