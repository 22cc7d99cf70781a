#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reading with the operating system's own words for what went wrong.
enum FileBytes {
    /// Why a file could not be read, in words (`No such file or directory`, `is a directory`).
    struct Failure: Error {
        let reason: String
    }

    /// The largest file read: far beyond any real MIDI file, small enough that an endless
    /// device (`/dev/zero`) or a huge wrong file is refused instead of filling memory.
    static let maximumSize = 64 << 20

    /// Reads the whole file at `path`. Not for the render thread.
    static func read(_ path: String, maximumSize: Int = FileBytes.maximumSize) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw Failure(reason: "is a directory") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(maximumSize, max(0, Int(info.st_size))))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: String(cString: strerror(errno)))
            }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > maximumSize {
                throw Failure(reason: "larger than \(maximumSize >> 20) MB, which no MIDI file is")
            }
        }
        return bytes
    }
}
