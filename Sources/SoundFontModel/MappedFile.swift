#if canImport(Glibc)
import Glibc
#endif

/// A file mapped read-only into memory (or bytes copied into a buffer of the same kind),
/// unmapped when the last owner lets go. Its bytes never change. Any thread.
final class MappedFile: @unchecked Sendable {
    // @unchecked Sendable: the mapping is read-only and lives as long as the object.

    /// Why a file could not be mapped, in a few words.
    struct Failure: Error { let reason: String }

    /// The bytes. Any thread.
    let bytes: UnsafeRawBufferPointer
    private let mapped: Bool

    /// Maps the file at `path`. Control thread.
    init(path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw Failure(reason: "is a directory") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(reason: "is not a regular file") }
        guard info.st_size > 0 else { throw Failure(reason: "holds no bytes") }
        let size = Int(info.st_size)
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw Failure(reason: "cannot be mapped: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: address, count: size)
        mapped = true
    }

    /// Holds a copy of `contents`. Control thread.
    init(copying contents: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, contents.count), alignment: 16)
        buffer.copyBytes(from: contents)
        bytes = UnsafeRawBufferPointer(start: buffer.baseAddress, count: contents.count)
        mapped = false
    }

    deinit {
        if mapped { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) } else { bytes.baseAddress.map { $0.deallocate() } }
    }
}
