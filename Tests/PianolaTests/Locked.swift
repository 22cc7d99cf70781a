import Foundation

/// A value shared between test threads behind an NSLock (a pthread mutex, which
/// ThreadSanitizer sees, unlike Synchronization's futex-based Mutex).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
