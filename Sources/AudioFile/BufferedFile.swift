import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor that libsndfile writes through (its virtual I/O) in writes of 64 KB at
/// offsets that are whole multiples of it, where its own are 8 KB at the header's odd offset:
/// the kernel then fills whole pages instead of zeroing half of each new one, and is called an
/// eighth as often. A write that does not follow the last (the header patched at the end) first
/// sends what is held. Past its first 8 MB, the file behind the writes is handed back to the
/// page cache as they go. The first error is kept for the caller to report. Control thread.
final class BufferedFile {
    /// Bytes held before they are written.
    static let capacity = 1 << 16

    private let descriptor: Int32
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: BufferedFile.capacity, alignment: 4_096)
    private var bufferStart = 0   // the file offset of the buffer's first byte
    private var held = 0                 // bytes in the buffer
    private var position = 0      // where libsndfile reads or writes next
    private var length = 0        // the file's length, with what is held
    /// The `errno` of the first read or write that failed, 0 while none has.
    private(set) var failure: Int32 = 0

    /// Writes through `descriptor`, an empty regular file opened for writing. Control thread.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        buffer.deallocate()
    }

    /// The callbacks libsndfile calls with this object as `user_data`. Any thread.
    static let callbacks = SF_VIRTUAL_IO(
        get_filelen: { sf_count_t(BufferedFile.from($0).length) },
        seek: { offset, whence, file in BufferedFile.from(file).seek(offset, whence: whence) },
        read: { bytes, count, file in BufferedFile.from(file).read(into: bytes!, count: count) },
        write: { bytes, count, file in BufferedFile.from(file).write(bytes!, count: count) },
        tell: { sf_count_t(BufferedFile.from($0).position) })

    private static func from(_ pointer: UnsafeMutableRawPointer?) -> BufferedFile {
        Unmanaged<BufferedFile>.fromOpaque(pointer!).takeUnretainedValue()
    }

    private func seek(_ offset: sf_count_t, whence: Int32) -> sf_count_t {
        let base = switch whence {
        case SEEK_CUR: position
        case SEEK_END: length
        default: 0
        }
        guard base + Int(offset) >= 0 else { return -1 }
        position = base + Int(offset)
        return sf_count_t(position)
    }

    private func read(into bytes: UnsafeMutableRawPointer, count: sf_count_t) -> sf_count_t {
        guard flush() else { return 0 }
        let read = pread(descriptor, bytes, Int(count), position)
        guard read >= 0 else { failure = errno; return 0 }
        position += read
        return sf_count_t(read)
    }

    private func write(_ bytes: UnsafeRawPointer, count: sf_count_t) -> sf_count_t {
        if position != bufferStart + held {
            guard flush() else { return 0 }
            bufferStart = position
        }
        var done = 0
        while done < Int(count) {
            if held == Self.capacity {
                guard flush() else { return sf_count_t(done) }
                bufferStart = position
            }
            let n = min(Int(count) - done, Self.capacity - held)
            (buffer + held).copyMemory(from: bytes + done, byteCount: n)
            held += n
            done += n
            position += n
        }
        length = max(length, position)
        return count
    }

    /// Writes what is held; false if that failed (and has failed before).
    @discardableResult func flush() -> Bool {
        guard failure == 0 else { return false }
        var done = 0
        while done < held {
            let written = pwrite(descriptor, buffer + done, held - done, bufferStart + done)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { failure = written < 0 ? errno : ENOSPC; return false }
            done += written
        }
        bufferStart += held
        held = 0
        releaseWrittenWindows()
        return true
    }

    /// Bytes of the file handed back to the page cache at a time, past the first window
    /// (where the header is patched at the end).
    static let window = 8 << 20
    /// The end of the windows whose writeback was asked for.
    private var kicked = BufferedFile.window

    /// Hands the page cache the file behind the writes: asks for each window's writeback once
    /// it is written, and from two windows back (written back by then; what was not yet is
    /// asked again next time) lets the kernel drop it. A long render then neither fills the
    /// cache with what it will not read again nor has the kernel find fresh pages for it: its
    /// writes land in pages just freed. (`dd oflag=nocache` does the same.)
    private func releaseWrittenWindows() {
        while kicked + Self.window <= bufferStart {
            posix_fadvise(descriptor, off_t(kicked), off_t(Self.window), POSIX_FADV_DONTNEED)   // dirty: starts its writeback
            kicked += Self.window
            let behind = kicked - 3 * Self.window
            if behind > 0 { posix_fadvise(descriptor, off_t(Self.window), off_t(behind), POSIX_FADV_DONTNEED) }
        }
    }
}
