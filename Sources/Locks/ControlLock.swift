#if canImport(Glibc)
import Glibc
#endif

/// A value behind a pthread mutex, for control threads. A pthread mutex rather than
/// Synchronization's `Mutex`: on Linux that one is built on raw futexes, which
/// ThreadSanitizer cannot see, so the TSan run would report every guarded access as a race.
/// The render thread never takes it. Any thread.
package final class ControlLock<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched between lock and unlock.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// A lock around `value`. Any thread.
    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Any thread.
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
