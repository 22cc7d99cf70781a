import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Starts a thread running `body`, with SCHED_FIFO at `priority` when one is given; if the
/// system refuses real-time scheduling, at normal priority, with a note saying so. Join it
/// with `pthread_join`. Control thread.
package func startThread(realTimePriority priority: Int32?, _ body: @escaping @Sendable () -> Void) -> (thread: pthread_t, note: String?) {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    let main: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
        Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
        return nil
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    if let priority {
        var parameters = sched_param(sched_priority: priority)
        pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_EXPLICIT_SCHED))
        pthread_attr_setschedpolicy(&attributes, SCHED_FIFO)
        pthread_attr_setschedparam(&attributes, &parameters)
    }
    var thread = pthread_t()
    var note: String?
    var status = pthread_create(&thread, &attributes, main, context)
    if status == EPERM {
        note = "real-time priority not permitted; playing at normal priority"
        status = pthread_create(&thread, nil, main, context)
    }
    precondition(status == 0, "pthread_create failed: \(status)")
    return (thread, note)
}

/// A worker thread (a file reader, a sequencer reader or sender) that its owner asks to stop
/// and then waits for: the work loop polls `isStopping`; `stop` asks and joins, once.
/// Control thread, except as noted.
package final class StoppableThread: @unchecked Sendable {
    // @unchecked Sendable: `thread` is touched by the control thread only; the flag is atomic.
    private let stopRequested = Atomic<Bool>(false)
    private var thread: pthread_t?

    /// A thread not started yet. Control thread.
    package init() {}

    /// Whether `stop` has been called. Any thread (the worker checks it between pieces of work).
    package var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    /// Runs `body` on a new thread at normal priority. Control thread.
    package func start(_ body: @escaping @Sendable () -> Void) {
        precondition(thread == nil, "the thread is already running")
        thread = startThread(realTimePriority: nil, body).thread
    }

    /// Asks the worker to stop and waits until it has; false when it was not running. Control thread.
    @discardableResult
    package func stop() -> Bool {
        guard let thread else { return false }
        self.thread = nil
        stopRequested.store(true, ordering: .releasing)
        pthread_join(thread, nil)
        return true
    }
}
