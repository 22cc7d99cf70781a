import CLilv
import Foundation
@testable import LV2
import Testing

/// What a stand-in plugin's worker interface heard: the answers, in order, and the threads the work ran on.
final class WorkLog: @unchecked Sendable {
    var answers: [[UInt8]] = []
    var workThreads: Set<UInt> = []
    let lock = NSLock()
}

@Suite("The LV2 worker: requests to a thread of its own and answers back, through lock-free rings")
struct LV2WorkerRingTests {
    /// A worker interface that answers each request with its bytes reversed, noting the thread.
    static var interface: LV2_Worker_Interface {
        LV2_Worker_Interface(work: { handle, respond, respondHandle, size, data in
            let log = Unmanaged<WorkLog>.fromOpaque(handle!).takeUnretainedValue()
            log.lock.withLock { _ = log.workThreads.insert(UInt(pthread_self())) }
            let bytes = Array(UnsafeRawBufferPointer(start: data, count: Int(size))).reversed()
            return Array(bytes).withUnsafeBytes { respond!(respondHandle, size, $0.baseAddress) }
        }, work_response: { handle, size, data in
            let log = Unmanaged<WorkLog>.fromOpaque(handle!).takeUnretainedValue()
            log.answers.append(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
            return LV2_WORKER_SUCCESS
        }, end_run: nil)
    }

    @Test("2,000 requests of 1 to 3,000 bytes, asked between runs, are worked (live on the worker's thread, offline at once) and answered in order, each whole",
          arguments: [false, true])
    func requestsAndAnswers(offline: Bool) throws {
        let log = WorkLog()
        let interface = UnsafeMutablePointer<LV2_Worker_Interface>.allocate(capacity: 1)
        interface.initialize(to: Self.interface)
        let worker = LV2Worker(offline: offline)
        worker.attach(interface: interface, handle: Unmanaged.passUnretained(log).toOpaque())
        worker.start()
        defer {
            worker.stop()
            interface.deallocate()
        }
        let requests = (0..<2_000).map { n in (0..<(1 + (n * 7_919) % 3_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }
        let schedule = worker.schedule.pointee
        var sent = 0
        let deadline = Date().addingTimeInterval(20)
        while log.answers.count < requests.count && Date() < deadline {
            // A "run": a few requests, then the answers so far.
            for _ in 0..<5 where sent < requests.count {
                let status = requests[sent].withUnsafeBytes { schedule.schedule_work!(schedule.handle, UInt32($0.count), $0.baseAddress) }
                if status == LV2_WORKER_SUCCESS { sent += 1 } else { break }   // full: the next run tries again
            }
            worker.endRun()
            if offline { #expect(log.answers.count == sent, "offline, the answer comes at the end of the run that asked") }
        }
        #expect(log.answers.count == requests.count)
        #expect(zip(log.answers, requests).allSatisfy { $0 == Array($1.reversed()) }, "every answer whole and in order")
        let caller = UInt(pthread_self())
        #expect(offline ? log.workThreads == [caller] : !log.workThreads.contains(caller), "offline on the render thread, live on the worker's")
    }
}
