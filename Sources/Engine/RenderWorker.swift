#if canImport(Glibc)
import Glibc
#endif

/// A thread that does one piece of a render cycle when the render thread tells it to, while
/// the render thread does another, and hands it back: the render thread `start`s it, does
/// its own share, then `finish`es (waits for) it. Its work reads what the render thread set
/// before `start` and writes what the render thread reads after `finish` (the two semaphores
/// order them). For offline rendering: the render thread waits for it. Render thread, but
/// `stop`.
public final class RenderWorker: @unchecked Sendable {
    // @unchecked Sendable: `stopping` is written before `go` is posted and read after it is
    // waited for; the work's own data is handed over the same way.

    private let work: @Sendable () -> Void
    private let go = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var stopping = false
    private var thread = pthread_t()

    /// A thread that runs `work` each time it is started. Control thread.
    public init(_ work: @escaping @Sendable () -> Void) {
        self.work = work
        sem_init(go, 0, 0)
        sem_init(done, 0, 0)
        thread = startThread(realTimePriority: nil) { [self] in run() }.thread
    }

    deinit {
        sem_destroy(go)
        sem_destroy(done)
        go.deallocate()
        done.deallocate()
    }

    private func run() {
        while true {
            while sem_wait(go) != 0 {}
            if stopping { return }
            work()
            sem_post(done)
        }
    }

    /// Has the thread run its work once. Render thread only.
    public func start() { sem_post(go) }

    /// Waits until the work started last is done. Render thread only.
    public func finish() { while sem_wait(done) != 0 {} }

    /// Ends the thread (it must not be working). Control thread, with no render under way.
    public func stop() {
        stopping = true
        sem_post(go)
        pthread_join(thread, nil)
    }
}
