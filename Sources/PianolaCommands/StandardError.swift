#if canImport(Glibc)
import Glibc
#endif

/// Standard error as a `TextOutputStream`, for `print(_:to:)`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var bytes = Array(string.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(2, buffer.baseAddress! + done, buffer.count - done)
                if n <= 0 { if n < 0 && errno == EINTR { continue } else { return } }
                done += n
            }
        }
    }
}
