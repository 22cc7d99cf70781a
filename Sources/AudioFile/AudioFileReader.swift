import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// Reads an audio file through libsndfile — WAV, FLAC, Ogg Vorbis, Opus, MP3 and the rest it
/// knows — as stereo float frames (mono doubled; of more channels, the first two), from a path
/// or from bytes in memory. One thread at a time (a streaming node's reader thread).
public final class AudioFileReader {
    /// The file's path, or the name given to its bytes: what messages call it. Any thread.
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
    private let memory: MemoryFile?
    private var scratch: [Float] = []

    /// Opens `path`. Throws one line for a missing, unreadable, unsupported or corrupt file.
    /// One thread at a time.
    public convenience init(path: String) throws(AudioFileError) {
        var isDirectory: stat = stat()
        if stat(path, &isDirectory) == 0 && (isDirectory.st_mode & S_IFMT) == S_IFDIR {
            throw AudioFileError(path: path, reason: "is a directory, not an audio file")
        }
        guard access(path, R_OK) == 0 else { throw AudioFileError(path: path, reason: String(cString: strerror(errno))) }
        var info = SF_INFO()
        let file = sf_open(path, Int32(SFM_READ), &info)
        try self.init(file: file, info: info, name: path, memory: nil)
    }

    /// Reads a whole audio file held in `bytes` (copied; a game's asset pack), called `name`
    /// in messages. Throws one line for bytes that are not an audio file libsndfile reads.
    /// One thread at a time.
    public convenience init(bytes: [UInt8], name: String) throws(AudioFileError) {
        let memory = MemoryFile(bytes: bytes)
        var info = SF_INFO()
        var io = MemoryFile.virtualIO
        let file = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(memory).toOpaque())
        try self.init(file: file, info: info, name: name, memory: memory)
    }

    /// Takes `file` as libsndfile opened it (`nil`: it refused), checking its header.
    private init(file: OpaquePointer?, info: SF_INFO, name: String, memory: MemoryFile?) throws(AudioFileError) {
        guard let file else {
            throw AudioFileError(path: name, reason: "not an audio file libsndfile can read (\(sndfileMessage(sf_strerror(nil))))")
        }
        guard info.channels > 0, info.samplerate > 0, info.frames > 0 else {
            sf_close(file)
            throw AudioFileError(path: name, reason: info.frames <= 0 ? "holds no audio" : "its header gives \(info.channels) channels at \(info.samplerate) Hz")
        }
        self.file = file
        self.memory = memory
        path = name
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

    /// The whole of a mono file as 16-bit points, converted by libsndfile as libfluidsynth has
    /// it convert an SF3 font's Ogg Vorbis samples. Throws for more than one channel or a
    /// file that goes bad. One thread at a time.
    public func monoPoints() throws(AudioFileError) -> [Int16] {
        guard channels == 1 else { throw AudioFileError(path: path, reason: "holds \(channels) channels, not 1") }
        var points = [Int16](repeating: 0, count: Int(frames))
        let got = points.withUnsafeMutableBufferPointer { Int(sf_readf_short(file, $0.baseAddress, sf_count_t($0.count))) }
        try checkError()
        guard got == points.count else { throw AudioFileError(path: path, reason: "ends after \(got) of its \(frames) frames") }
        return points
    }

    private func checkError() throws(AudioFileError) {
        let code = sf_error(file)
        guard code == 0 else { throw AudioFileError(path: path, reason: "unreadable: \(sndfileMessage(sf_error_number(code)))") }
    }
}

/// Bytes read as a file through libsndfile's virtual I/O: the callbacks find this object
/// through their user-data pointer, which the reader keeps alive.
private final class MemoryFile {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The callbacks, each given the `MemoryFile` as its user data.
    static let virtualIO = SF_VIRTUAL_IO(
        get_filelen: { sf_count_t(MemoryFile.from($0).bytes.count) },
        seek: { offset, whence, data in
            let file = MemoryFile.from(data)
            let base = whence == SEEK_CUR ? file.position : whence == SEEK_END ? file.bytes.count : 0
            let target = base + Int(offset)
            guard target >= 0 else { return -1 }
            file.position = target
            return sf_count_t(target)
        },
        read: { destination, count, data in
            let file = MemoryFile.from(data)
            let n = max(0, min(Int(count), file.bytes.count - file.position))
            guard n > 0, let destination else { return 0 }
            file.bytes.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + file.position, byteCount: n) }
            file.position += n
            return sf_count_t(n)
        },
        write: { _, _, _ in 0 },
        tell: { sf_count_t(MemoryFile.from($0).position) })

    private static func from(_ data: UnsafeMutableRawPointer?) -> MemoryFile {
        Unmanaged<MemoryFile>.fromOpaque(data!).takeUnretainedValue()
    }
}
