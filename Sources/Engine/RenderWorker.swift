#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A thread that does one piece of a render cycle when the render thread tells it to, while
/// the render thread does another, and hands it back: the render thread `start`s it, does
/// its own share, then `finish`es (waits for) it. Its work reads what the render thread set
/// before `start` and writes what the render thread reads after `finish` (two counters, the
/// passes asked for and done, order them). Each side first watches for the other for some
/// 200 µs, since passes and the work between them (a song's events, a thread's last share)
/// take about that long while a song renders, and only then sleeps on a semaphore (waking a
/// sleeping thread costs tens of microseconds, and the wait for it is the other side's: over
/// a song, a 20 µs watch had the threads sleep and wake five times as often). For offline
/// rendering: the render thread waits for it. Render thread, but `stop`.
package final class RenderWorker: @unchecked Sendable {
    // @unchecked Sendable: `stopping` is written before a pass is asked for and read after it
    // is seen; the work's own data is handed over the same way.

    /// How many times a side looks for the other before it sleeps (some 200 µs).
    private static let looks = 200_000

    private let work: @Sendable () -> Void
    private let go = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private let asked = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    private let workerSleeps = Atomic<Bool>(false)
    private let ownerSleeps = Atomic<Bool>(false)
    private var stopping = false
    private var thread = pthread_t()

    /// A thread that runs `work` each time it is started. Control thread.
    package init(_ work: @escaping @Sendable () -> Void) {
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
        var seen = 0
        while true {
            Self.wait(sleeping: workerSleeps, on: go) { asked.load(ordering: .acquiring) != seen }
            if stopping { return }
            seen += 1
            work()
            finished.store(seen, ordering: .releasing)
            if ownerSleeps.exchange(false, ordering: .sequentiallyConsistent) { sem_post(done) }
        }
    }

    /// Looks for `ready` for a while, then sleeps on `semaphore` with `sleeping` set; the
    /// other side makes `ready` true, then posts if it finds `sleeping` set (and clears it).
    private static func wait(sleeping: borrowing Atomic<Bool>, on semaphore: UnsafeMutablePointer<sem_t>, until ready: () -> Bool) {
        for _ in 0..<looks where ready() { return }
        sleeping.store(true, ordering: .sequentiallyConsistent)
        if ready() {
            // Ready meanwhile: unless the other side has already taken the flag (and posts), take it back.
            if sleeping.exchange(false, ordering: .sequentiallyConsistent) { return }
        }
        while sem_wait(semaphore) != 0 {}
    }

    /// Has the thread run its work once. Render thread only.
    package func start() {
        asked.add(1, ordering: .sequentiallyConsistent)
        if workerSleeps.exchange(false, ordering: .sequentiallyConsistent) { sem_post(go) }
    }

    /// Waits until the work started last is done. Render thread only.
    package func finish() {
        let pass = asked.load(ordering: .relaxed)
        Self.wait(sleeping: ownerSleeps, on: done) { finished.load(ordering: .acquiring) == pass }
    }

    /// Ends the thread (it must not be working). Control thread, with no render under way.
    package func stop() {
        stopping = true
        start()
        pthread_join(thread, nil)
    }
}
