#if canImport(Glibc)
import Glibc
#endif

/// Whether a Unix socket exists at any of `paths`: a sound server's, a client would connect to
/// it. A cheap look before loading a server's client library to ask it. Any thread.
package func socketExists(atAnyOf paths: [String]) -> Bool {
    paths.contains { path in
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
    }
}

/// The environment variable `name`, `nil` when unset or empty. Any thread.
package func environment(_ name: String) -> String? {
    guard let value = getenv(name), value.pointee != 0 else { return nil }
    return String(cString: value)
}
