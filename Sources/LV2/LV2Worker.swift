import CLilv
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// LV2's worker extension for one plugin instance: the plugin asks, from its run, for work
/// that must not happen on the render thread (loading an impulse response), and hears the
/// answer at the end of a later run. Live, the work is done on a thread of its own; offline
/// (a render), at once inside the run, so every render of a song is the same. Work asked for
/// while the plugin is set up (a state restored) is done at once, its answer heard at the first
/// run. Requests and answers travel through two lock-free rings, so the render thread neither
/// locks nor allocates. Control thread to make; then as each method says.
final class LV2Worker: @unchecked Sendable {
    // @unchecked Sendable: the rings are single-producer single-consumer; `inline` changes
    // only on the control thread before rendering; the thread is joined in `stop`.

    /// The `work:schedule` feature's data, for the instance's features. Any thread.
    let schedule: UnsafeMutablePointer<LV2_Worker_Schedule>
    private var interface: UnsafePointer<LV2_Worker_Interface>?
    private var handle: LV2_Handle?
    private let requests = ByteRing(capacity: 1 << 16)
    private let responses = ByteRing(capacity: 1 << 16)
    private let renderScratch = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 16)
    private let workScratch = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 16)
    private let wake = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var thread: pthread_t?
    private let stopping = Atomic<Bool>(false)
    private let offline: Bool
    /// Whether work is done at once, where it is asked for: while setting up, or offline.
    private var inline = true

    /// A worker, live (work on its own thread) unless `offline`. Control thread.
    init(offline: Bool) {
        self.offline = offline
        sem_init(wake, 0, 0)
        schedule = .allocate(capacity: 1)
        schedule.initialize(to: LV2_Worker_Schedule(handle: nil, schedule_work: { handle, size, data in
            guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
            return Unmanaged<LV2Worker>.fromOpaque(handle).takeUnretainedValue().request(size, data)
        }))
        schedule.pointee.handle = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        stop()
        sem_destroy(wake)
        wake.deallocate()
        schedule.deallocate()
        renderScratch.deallocate()
        workScratch.deallocate()
    }

    /// Takes `instance`'s worker interface, if it has one. Control thread, before `start`.
    func attach(to instance: UnsafeMutablePointer<LilvInstance>) {
        let found = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface")
        attach(interface: found?.assumingMemoryBound(to: LV2_Worker_Interface.self), handle: lilv_instance_get_handle(instance))
    }

    /// Works for the plugin instance `handle` through `interface`. Control thread, before `start`.
    func attach(interface: UnsafePointer<LV2_Worker_Interface>?, handle: LV2_Handle?) {
        self.interface = interface
        self.handle = handle
    }

    /// From now on work goes to the worker's thread (started here), unless offline. Control
    /// thread, after the instance is set up and before it runs.
    func start() {
        guard interface != nil, !offline, thread == nil else { return }
        inline = false
        let box = Unmanaged.passRetained(self).toOpaque()
        var made = pthread_t()
        guard pthread_create(&made, nil, { context in
            let worker = Unmanaged<LV2Worker>.fromOpaque(context!).takeRetainedValue()
            worker.serve()
            return nil
        }, box) == 0 else {
            Unmanaged<LV2Worker>.fromOpaque(box).release()
            inline = true
            return
        }
        thread = made
    }

    /// Ends the worker's thread. Control thread, with no run under way.
    func stop() {
        guard let made = thread else { return }
        stopping.store(true, ordering: .releasing)
        sem_post(wake)
        pthread_join(made, nil)
        thread = nil
    }

    /// Hands the answers that have come back to the plugin, then tells it the run is over.
    /// Render thread only, after each run.
    func endRun() {
        guard let interface, let handle else { return }
        deliver()
        _ = interface.pointee.end_run?(handle)
    }

    /// Hands the answers that have come back to the plugin: after a run, or once activated
    /// (what its state's restoring asked for, so it plays from its first frame). Render thread,
    /// or the control thread before the plugin runs.
    func deliver() {
        guard let interface, let handle else { return }
        while let size = responses.pop(into: renderScratch, capacity: 1 << 16) {
            _ = interface.pointee.work_response?(handle, UInt32(size), renderScratch)
        }
    }

    /// The plugin asks for work: done now, or queued for the thread.
    private func request(_ size: UInt32, _ data: UnsafeRawPointer?) -> LV2_Worker_Status {
        guard interface != nil, let data else { return LV2_WORKER_ERR_UNKNOWN }
        if inline { return work(size, data) }
        guard requests.push(data, count: Int(size)) else { return LV2_WORKER_ERR_NO_SPACE }
        sem_post(wake)
        return LV2_WORKER_SUCCESS
    }

    /// Does one piece of work, its answers queued for the render thread.
    private func work(_ size: UInt32, _ data: UnsafeRawPointer) -> LV2_Worker_Status {
        guard let interface, let handle, let work = interface.pointee.work else { return LV2_WORKER_ERR_UNKNOWN }
        return work(handle, { respondHandle, size, data in
            guard let respondHandle, let data else { return LV2_WORKER_ERR_UNKNOWN }
            return Unmanaged<LV2Worker>.fromOpaque(respondHandle).takeUnretainedValue().respond(size, data)
        }, Unmanaged.passUnretained(self).toOpaque(), size, data)
    }

    /// Queues an answer for the render thread. On the worker's thread a full ring is waited
    /// on (the render thread empties it every run); where the work is done at once, it is not.
    private func respond(_ size: UInt32, _ data: UnsafeRawPointer) -> LV2_Worker_Status {
        guard Int(size) + 4 <= responses.capacity else { return LV2_WORKER_ERR_NO_SPACE }
        while !responses.push(data, count: Int(size)) {
            if inline || stopping.load(ordering: .acquiring) { return LV2_WORKER_ERR_NO_SPACE }
            usleep(200)
        }
        return LV2_WORKER_SUCCESS
    }

    /// The thread: waits for requests and does them, until stopped.
    private func serve() {
        while true {
            while sem_wait(wake) != 0 {}
            if stopping.load(ordering: .acquiring) { return }
            while let size = requests.pop(into: workScratch, capacity: 1 << 16) { _ = work(UInt32(size), workScratch) }
        }
    }
}

/// Messages of bytes from one thread to another, each its length and then its bytes, in a
/// ring that neither locks nor allocates. One producer, one consumer.
final class ByteRing: @unchecked Sendable {
    // @unchecked Sendable: the producer writes only ahead of `head`, the consumer reads only
    // behind it; each side publishes its index with release ordering.
    private let storage: UnsafeMutablePointer<UInt8>
    /// Bytes it holds, lengths included.
    let capacity: Int
    private let head = Atomic<Int>(0)            // bytes written, ever
    private let tail = Atomic<Int>(0)            // bytes read, ever

    /// A ring of `capacity` bytes (a power of two).
    init(capacity: Int) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0)
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Adds a message of `count` bytes from `data`; false when it does not fit. Producer only.
    func push(_ data: UnsafeRawPointer, count: Int) -> Bool {
        let written = head.load(ordering: .relaxed), read = tail.load(ordering: .acquiring)
        guard count >= 0, capacity - (written - read) >= 4 + count else { return false }
        var size = UInt32(count)
        withUnsafeBytes(of: &size) { copyIn($0.baseAddress!, count: 4, at: written) }
        copyIn(data, count: count, at: written + 4)
        head.store(written + 4 + count, ordering: .releasing)
        return true
    }

    /// Takes the next message into `buffer` and returns its length, nil when there is none; a
    /// message longer than `capacity` is dropped. Consumer only.
    func pop(into buffer: UnsafeMutableRawPointer, capacity room: Int) -> Int? {
        var read = tail.load(ordering: .relaxed)
        while true {
            let written = head.load(ordering: .acquiring)
            guard written - read >= 4 else { return nil }
            var size: UInt32 = 0
            withUnsafeMutableBytes(of: &size) { copyOut($0.baseAddress!, count: 4, at: read) }
            let count = Int(size)
            if count <= room {
                copyOut(buffer, count: count, at: read + 4)
                tail.store(read + 4 + count, ordering: .releasing)
                return count
            }
            read += 4 + count
            tail.store(read, ordering: .releasing)
        }
    }

    private func copyIn(_ source: UnsafeRawPointer, count: Int, at position: Int) {
        let start = position & (capacity - 1), first = min(count, capacity - start)
        UnsafeMutableRawPointer(storage + start).copyMemory(from: source, byteCount: first)
        if count > first { UnsafeMutableRawPointer(storage).copyMemory(from: source + first, byteCount: count - first) }
    }

    private func copyOut(_ target: UnsafeMutableRawPointer, count: Int, at position: Int) {
        let start = position & (capacity - 1), first = min(count, capacity - start)
        target.copyMemory(from: storage + start, byteCount: first)
        if count > first { (target + first).copyMemory(from: storage, byteCount: count - first) }
    }
}
