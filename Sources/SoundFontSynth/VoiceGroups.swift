import DSP
import Engine

/// A synthesizer's voices rendered in a fixed number of groups (slot `i` in group
/// `i % count`), each into buffers of its own, then added to the output in group order: the
/// output is the same bit for bit whichever threads render which groups, so a render on one
/// thread and on several agree exactly. With `threads` above 1, the render thread renders
/// groups 0, `threads`, 2 × `threads`… while workers render the others, for passes of
/// `parallelFrames` or more (shorter ones, between events close together, it renders alone).
/// Made on the control thread; `render` is render thread only.
final class VoiceGroups: @unchecked Sendable {
    // @unchecked Sendable: a pass's fields are written before the workers start and read by
    // them until they finish; each group's slots and buffers are touched by one thread.

    /// Groups the voices fall in, whatever the thread count.
    static let count = 8
    /// The most frames one pass renders.
    static let capacity = 1_024
    /// The shortest pass worth handing to other threads.
    static let parallelFrames = 64

    private let slots: UnsafeMutablePointer<VoiceSlot>
    private let polyphony: Int
    /// Groups 1… render into these: left, right, reverb send, chorus send, `capacity` each.
    private let buffers: UnsafeMutablePointer<Float>
    private let scratch: UnsafeMutablePointer<Float>
    private let sounded: UnsafeMutablePointer<Bool>   // per group: whether it had a voice this pass
    private var workers: [RenderWorker] = []
    private let threads: Int

    // The pass being rendered.
    private var left = UnsafeMutablePointer<Float>(bitPattern: 1)!, right = UnsafeMutablePointer<Float>(bitPattern: 1)!
    private var sends: (reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>)?
    private var frames = 0

    /// Groups over `polyphony` slots at `slots`, rendered on `threads` threads. Control thread.
    init(slots: UnsafeMutablePointer<VoiceSlot>, polyphony: Int, threads: Int) {
        self.slots = slots
        self.polyphony = polyphony
        self.threads = min(max(1, threads), Self.count)
        buffers = .allocate(capacity: (Self.count - 1) * 4 * Self.capacity)
        buffers.initialize(repeating: 0, count: (Self.count - 1) * 4 * Self.capacity)
        scratch = .allocate(capacity: Self.count * Units.controlBlock)
        scratch.initialize(repeating: 0, count: Self.count * Units.controlBlock)
        sounded = .allocate(capacity: Self.count)
        sounded.initialize(repeating: false, count: Self.count)
        workers = (1..<self.threads).map { thread in RenderWorker { [unowned self] in self.renderShare(of: thread) } }
    }

    deinit {
        for worker in workers { worker.stop() }
        buffers.deallocate()
        scratch.deallocate()
        sounded.deallocate()
    }

    /// Adds `frames` (at most `capacity`) frames of every sounding voice to `left` and `right`
    /// and their effect sends to `sends`, freeing the slots of the voices that end. Render thread only.
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                sends: (reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>)?, frames: Int) {
        (self.left, self.right, self.sends, self.frames) = (left, right, sends, frames)
        if workers.isEmpty || frames < Self.parallelFrames {
            for group in 0..<Self.count { renderGroup(group) }
        } else {
            for w in 0..<workers.count { workers[w].start() }   // by index: a debug build's array iterator allocates
            renderShare(of: 0)
            for w in 0..<workers.count { workers[w].finish() }
        }
        for group in 1..<Self.count where sounded[group] {
            let base = buffers + (group - 1) * 4 * Self.capacity
            add(base, to: left)
            add(base + Self.capacity, to: right)
            if let sends {
                add(base + 2 * Self.capacity, to: sends.reverb)
                add(base + 3 * Self.capacity, to: sends.chorus)
            }
        }
    }

    /// Renders the groups that fall to `thread`.
    private func renderShare(of thread: Int) {
        for group in stride(from: thread, to: Self.count, by: threads) { renderGroup(group) }
    }

    /// Renders the voices of `group` (into the output itself for group 0, else into its buffers).
    private func renderGroup(_ group: Int) {
        var any = false
        for i in stride(from: group, to: polyphony, by: Self.count) where slots[i].voice != nil {
            if !any {
                any = true
                if group > 0 { clear(group) }
            }
            let (left, right, sends) = destination(of: group)
            slots[i].voice!.render(left: left, right: right, sends: sends, frames: frames, scratch: scratch + group * Units.controlBlock)
            if slots[i].voice!.isFinished { slots[i] = VoiceSlot() }
        }
        sounded[group] = any
    }

    /// Where `group` renders this pass.
    @inline(__always) private func destination(of group: Int)
        -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, (reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>)?) {
        guard group > 0 else { return (left, right, sends) }
        let base = buffers + (group - 1) * 4 * Self.capacity
        return (base, base + Self.capacity, sends == nil ? nil : (base + 2 * Self.capacity, base + 3 * Self.capacity))
    }

    /// Silences group `group`'s buffers for this pass.
    @inline(__always) private func clear(_ group: Int) {
        let base = buffers + (group - 1) * 4 * Self.capacity
        for channel in 0..<(sends == nil ? 2 : 4) { (base + channel * Self.capacity).update(repeating: 0, count: frames) }
    }

    @inline(__always) private func add(_ source: UnsafeMutablePointer<Float>, to destination: UnsafeMutablePointer<Float>) {
        for i in 0..<frames { destination[i] += source[i] }
    }
}
