import Dispatch
import Locks

/// A value made once on a worker thread: loading until then, then ready or failed for good.
/// Any thread.
final class Loading<Value: Sendable>: Sendable {
    private let result = ControlLock<Result<Value, SoundtrackError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Loading, until `finish`. Any thread.
    init() {}

    /// Already made. Any thread.
    init(ready value: Value) {
        result.withLock { $0 = .success(value) }
        done.signal()
    }

    /// Records the outcome and wakes whoever waits. Once. Any thread.
    func finish(_ outcome: Result<Value, SoundtrackError>) {
        result.withLock { $0 = outcome }
        done.signal()
    }

    /// The outcome, `nil` while loading. Any thread.
    var outcome: Result<Value, SoundtrackError>? { result.withLock { $0 } }

    /// The value if ready. Any thread.
    var value: Value? { try? outcome?.get() }

    /// The state as the public API tells it. Any thread.
    var state: Soundtrack.LoadState {
        switch outcome {
        case nil: return .loading
        case .success?: return .ready
        case .failure(let error)?: return .failed(error)
        }
    }

    /// Blocks until made; returns the value or throws the load's error. Not the render thread.
    func wait() throws(SoundtrackError) -> Value {
        if outcome == nil {
            done.wait()
            done.signal()   // for the next waiter
        }
        return try outcome!.get()
    }

    /// Waits without blocking a thread of the caller's. Any task.
    func value() async throws(SoundtrackError) -> Value {
        if let outcome { return try outcome.get() }
        let outcome = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result { () throws(SoundtrackError) in try self.wait() }) }
        }
        return try outcome.get()
    }
}
