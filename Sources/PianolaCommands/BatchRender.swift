import ArgumentParser
import AudioFile
import FoundationEssentials
import Glibc
import Pianola
import Synchronization

/// `render` of many songs: one SoundFont loaded once and shared, songs rendered at once on
/// `workers` threads (largest first, so the last to finish is short), each to a hidden
/// partial file renamed into place when whole, so an interrupted batch leaves no half file
/// for `--skip-existing` to trust. A song that fails is reported in one line and the rest go
/// on. Main thread (its workers render on threads of their own).
final class BatchRender: @unchecked Sendable {
    // @unchecked Sendable: the fields are set in init and read by the workers; what changes
    // while they run is in `state`, behind its Mutex.

    /// What the batch did. Any thread.
    struct Summary {
        /// Songs written. Any thread.
        var rendered = 0
        /// Songs that failed, each reported as it failed. Any thread.
        var failed = 0
        /// Seconds of audio written. Any thread.
        var audioSeconds = 0.0
    }

    private struct State {
        var next = 0                          // the next job to start
        var summary = Summary()
        var doneBytes = 0                     // the finished songs' share of the work
        var running: [Int: Double] = [:]      // job → fraction rendered, for the songs under way
        var lastDrawn = 0.0
    }

    private let jobs: [BatchPlan.Job]
    private let render: (BatchPlan.Job, _ progress: (Double) -> Void, _ stop: () -> Bool) throws -> Double
    private let interruption: Interruption
    private let state = Mutex(State())
    private let bar = ProgressBar()
    private let started = ContinuousClock.now
    private let totalBytes: Int

    /// A batch of `jobs`, each rendered by `render` (which returns the seconds of audio it
    /// wrote, calls `progress` with the fraction done and stops when `stop` says so), ended
    /// early by `interruption`.
    init(jobs: [BatchPlan.Job], interruption: Interruption,
         render: @escaping (BatchPlan.Job, (Double) -> Void, () -> Bool) throws -> Double) {
        self.jobs = jobs.sorted { $0.bytes > $1.bytes }
        self.render = render
        self.interruption = interruption
        totalBytes = jobs.reduce(0) { $0 + $1.bytes }
    }

    /// Renders every job on `workers` threads and returns what happened.
    func run(workers: Int) -> Summary {
        let threads = (0..<max(1, min(workers, jobs.count))).map { _ in
            startThread(realTimePriority: nil) { [self] in work() }.thread
        }
        for thread in threads { pthread_join(thread, nil) }
        bar.finish()
        return state.withLock { $0.summary }
    }

    /// One worker: takes the next job until none is left or the user interrupts.
    private func work() {
        while interruption.signal == nil {
            let index: Int? = state.withLock { state in
                guard state.next < jobs.count else { return nil }
                defer { state.next += 1 }
                state.running[state.next] = 0
                return state.next
            }
            guard let index else { return }
            let job = jobs[index]
            do {
                let seconds = try render(job, { fraction in self.progress(index, fraction) }, { self.interruption.signal != nil })
                finish(index, seconds: seconds)
                if !bar.enabled { Console.shared.output("wrote \(job.output): \(seconds.formatted2) s of audio") }
            } catch {
                finish(index, seconds: nil)
                if interruption.signal == nil, !(error is ExitCode) { printError("\(error)") }
            }
        }
    }

    private func progress(_ index: Int, _ fraction: Double) {
        state.withLock { state in
            state.running[index] = fraction
            draw(&state)
        }
    }

    private func finish(_ index: Int, seconds: Double?) {
        state.withLock { state in
            state.running[index] = nil
            state.doneBytes += jobs[index].bytes
            if let seconds {
                state.summary.rendered += 1
                state.summary.audioSeconds += seconds
            } else if interruption.signal == nil {
                state.summary.failed += 1
            }
            state.lastDrawn = 0
            draw(&state)
        }
    }

    /// Redraws the bar, at most ten times a second: songs done, audio written, time left.
    private func draw(_ state: inout State) {
        guard bar.enabled else { return }
        let now = Self.seconds(since: started)
        guard now - state.lastDrawn >= 0.1 else { return }
        state.lastDrawn = now
        let underway = state.running.reduce(0.0) { $0 + $1.value * Double(jobs[$1.key].bytes) }
        let fraction = (Double(state.doneBytes) + underway) / Double(max(1, totalBytes))
        let finished = state.summary.rendered + state.summary.failed
        var detail = "\(finished)/\(jobs.count) songs, \(Info.clock(state.summary.audioSeconds).dropLast(3)) of audio"
        if fraction > 0.02 { detail += ", \(Info.clock(now / fraction - now).dropLast(3)) left" }
        bar.update(fraction, detail: detail)
    }

    /// Seconds of wall time since `start` (a `clock()` reading).
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

}
