import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// Reads an audio file through libsndfile — WAV, FLAC, Ogg Vorbis, Opus, MP3 and the rest it
/// knows — as stereo float frames (mono doubled; of more channels, the first two). One thread
/// at a time (a streaming node's reader thread).
public final class AudioFileReader {
    /// The file. Any thread.
    public let path: String
    /// Frames per second as stored. Any thread.
    public let sampleRate: Int
    /// Channels as stored. Any thread.
    public let channels: Int
    /// Frames in the file. Any thread.
    public let frames: Int64
    /// The file's own loop (a WAV `smpl` chunk, an AIFF loop) as a frame range, if it has one. Any thread.
    public let loop: Range<Int64>?
    private let file: OpaquePointer
    private var scratch: [Float] = []

    /// Opens `path`. Throws one line for a missing, unreadable, unsupported or corrupt file.
    /// One thread at a time.
    public init(path: String) throws(AudioFileError) {
        self.path = path
        var isDirectory: stat = stat()
        if stat(path, &isDirectory) == 0 && (isDirectory.st_mode & S_IFMT) == S_IFDIR {
            throw AudioFileError(path: path, reason: "is a directory, not an audio file")
        }
        guard access(path, R_OK) == 0 else { throw AudioFileError(path: path, reason: String(cString: strerror(errno))) }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: "not an audio file libsndfile can read (\(sndfileMessage(sf_strerror(nil))))")
        }
        guard info.channels > 0, info.samplerate > 0, info.frames > 0 else {
            sf_close(file)
            throw AudioFileError(path: path, reason: info.frames <= 0 ? "holds no audio" : "its header gives \(info.channels) channels at \(info.samplerate) Hz")
        }
        self.file = file
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        frames = Int64(info.frames)
        var start: UInt32 = 0, end: UInt32 = 0
        if pianola_sf_first_loop(file, &start, &end) == 1, end > start, Int64(end) <= frames {
            loop = Int64(start)..<Int64(end)
        } else {
            loop = nil
        }
    }

    deinit { sf_close(file) }

    /// Moves to `frame`. One thread at a time.
    public func seek(to frame: Int64) throws(AudioFileError) {
        guard sf_seek(file, sf_count_t(frame), SEEK_SET) >= 0 else {
            throw AudioFileError(path: path, reason: "cannot seek to frame \(frame): \(sndfileMessage(sf_strerror(file)))")
        }
    }

    /// Reads up to `count` frames as interleaved stereo into `output`; returns how many (0 at
    /// the end). Throws when the file goes bad mid-stream. One thread at a time.
    public func read(into output: UnsafeMutablePointer<Float>, frames count: Int) throws(AudioFileError) -> Int {
        if channels == 2 {
            let got = Int(sf_readf_float(file, output, sf_count_t(count)))
            try checkError()
            return got
        }
        if scratch.count < count * channels { scratch = [Float](repeating: 0, count: count * channels) }
        let got = scratch.withUnsafeMutableBufferPointer { Int(sf_readf_float(file, $0.baseAddress, sf_count_t(count))) }
        try checkError()
        for i in 0..<got {
            output[2 * i] = scratch[i * channels]
            output[2 * i + 1] = scratch[i * channels + (channels == 1 ? 0 : 1)]
        }
        return got
    }

    private func checkError() throws(AudioFileError) {
        let code = sf_error(file)
        guard code == 0 else { throw AudioFileError(path: path, reason: "unreadable: \(sndfileMessage(sf_error_number(code)))") }
    }
}
