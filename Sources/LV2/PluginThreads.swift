#if canImport(Glibc)
import Glibc
#endif
import Locks

/// The threads plugins start of their own, so that an instance is not freed while one of them
/// still works for it. padthv1 computes its wave tables on such a thread after it is made, and
/// freeing it in the meantime crashes the process in that thread; a host cannot ask a plugin
/// whether it is done, so it waits until the plugins' threads are seen sleeping. Control thread.
enum PluginThreads {
    /// The threads that appeared while a plugin was instantiated.
    private static let known = ControlLock<Set<Int32>>([])

    /// The ids of this process's threads now (/proc/self/task).
    static func current() -> Set<Int32> {
        var ids: Set<Int32> = []
        guard let folder = opendir("/proc/self/task") else { return ids }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let id = Int32(name) { ids.insert(id) }
        }
        return ids
    }

    /// Whether any plugin has started a thread that has not ended.
    static var exist: Bool {
        known.withLock { known in
            known = known.filter { state(of: $0) != nil }
            return !known.isEmpty
        }
    }

    /// Counts the threads that are here now and were not in `before` as plugins' threads.
    static func noteStarted(since before: Set<Int32>) {
        let started = current().subtracting(before)
        if !started.isEmpty { known.withLock { $0.formUnion(started) } }
    }

    /// Waits until no plugin thread is running, seen twice 5 ms apart, at most `limit` seconds;
    /// threads that have ended are forgotten.
    static func settle(limit: Double = 2) {
        guard exist else { return }
        let threads = known.withLock { $0 }
        var quiet = 0
        for _ in 0..<Int(limit / 0.005) {
            quiet = threads.contains { state(of: $0) == UInt8(ascii: "R") } ? 0 : quiet + 1
            if quiet == 2 { return }
            usleep(5_000)
        }
    }

    /// The state letter of thread `id` (R running, S sleeping…), nil when it has ended.
    private static func state(of id: Int32) -> UInt8? {
        let descriptor = open("/proc/self/task/\(id)/stat", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0, let paren = bytes[..<count].lastIndex(of: UInt8(ascii: ")")), paren + 2 < count else { return nil }
        return bytes[paren + 2]   // "pid (name) S …"
    }
}
