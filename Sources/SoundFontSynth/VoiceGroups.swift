import DSP
import Engine
import Synchronization

/// Where voices add their frames: four planes `stride` frames apart, the left, the right, the
/// reverb send and the chorus send; the sends only when `sends` (the effects are on). Render thread only.
struct MixPlanes {
    /// The left plane's first frame.
    let left: UnsafeMutablePointer<Float>
    /// Frames from one plane to the next.
    let stride: Int
    /// Whether the send planes are worked out.
    let sends: Bool
}

/// A synthesizer's voices rendered in a fixed number of groups of quads (slot `i` in quad
/// `i / 4`, quad `q` in group `q % count`: the voices, packed in the lowest slots, fill whole
/// quads), each into a buffer of its own, then added to the output in group order: the
/// output is the same bit for bit whichever threads render which groups, so a render on one
/// thread and on several agree exactly. With `threads` above 1, the render thread and the
/// workers take the groups in turn, each the next one nobody has taken, those with the most
/// voices first (so a thread whose voices cost less takes more groups, and the last groups
/// taken, which one thread may end up rendering while another waits, are the smallest), for
/// passes of `parallelFrames` or more (shorter ones, between events close together, the
/// render thread renders alone).
/// Made on the control thread; `render` is render thread only.
final class VoiceGroups {
    /// Groups the voices fall in, whatever the thread count.
    static let count = 8
    /// The most frames one pass renders: a stretch between two events far apart is one pass
    /// and not several (each pass starts the threads and zeroes the groups' buffers); 4,096
    /// was no faster, and the buffers would be twice the size.
    static let capacity = 2_048
    /// The shortest pass worth handing to other threads.
    static let parallelFrames = 64

    /// What a pass's threads share. The workers hold it themselves rather than reach it
    /// through this object: a worker never reads a reference to something being torn down,
    /// and takes no reference count of its own each pass.
    private let pass: Pass
    private let workers: [RenderWorker]

    /// Groups over the slots at `slots`, rendered on `threads` threads. Control thread.
    init(slots: UnsafeMutablePointer<VoiceSlot>, threads: Int) {
        let pass = Pass(slots: slots)
        self.pass = pass
        workers = (1..<min(max(1, threads), Self.count)).map { _ in RenderWorker { pass.renderShare() } }
    }

    deinit {
        for worker in workers { worker.stop() }
    }

    /// Puts `frames` (at most `capacity`) frames of every voice sounding in the first
    /// `slotsInUse` slots in `left` and `right` and their effect sends in `sends`, the first
    /// frame at `place` in the synthesizer's control block, freeing the slots of the voices
    /// that end. Render thread only.
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                sends: (reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>)?, frames: Int, place: Int, slotsInUse: Int) {
        pass.frames = frames
        pass.place = place
        pass.sends = sends != nil
        pass.slotsInUse = slotsInUse
        pass.findSoundingGroups()
        if workers.isEmpty || frames < Self.parallelFrames {
            for group in 0..<Self.count { pass.renderGroup(group) }
        } else {
            pass.untaken.store(0, ordering: .relaxed)   // published by the workers' start
            for w in 0..<workers.count { workers[w].start() }   // by index: a debug build's array iterator allocates
            pass.renderShare()
            for w in 0..<workers.count { workers[w].finish() }
        }
        pass.put(in: left, right, sends: sends)
    }

    /// A pass over the groups: its frames, the group buffers it renders into and the next
    /// group nobody has taken. Its fields are set by the render thread before the workers
    /// start and read by them until they finish; each group's slots and buffers are touched by
    /// the one thread that took the group.
    private final class Pass: @unchecked Sendable {
        // @unchecked Sendable: handed between the render thread and the workers by RenderWorker's
        // start and finish, as said above.
        let slots: UnsafeMutablePointer<VoiceSlot>
        /// The groups render into these, four planes of `capacity` frames each (left, right,
        /// reverb send, chorus send).
        let buffers: UnsafeMutablePointer<Float>
        let scratch: UnsafeMutablePointer<Float>
        let sounded: UnsafeMutablePointer<Bool>   // per group: whether it has a voice this pass (the render thread finds out)
        /// The groups in the order threads take them: the most voices first.
        let order: UnsafeMutablePointer<Int>
        private let voices: UnsafeMutablePointer<Int>   // per group, this pass
        /// The next place in `order` that no thread has taken.
        let untaken = Atomic<Int>(0)
        /// The frames of the pass being rendered, the first's place in the control block,
        /// whether it works out the sends, and the slots it looks at (those after are free).
        var frames = 0, place = 0, sends = false, slotsInUse = 0

        init(slots: UnsafeMutablePointer<VoiceSlot>) {
            self.slots = slots
            buffers = .allocate(capacity: VoiceGroups.count * 4 * VoiceGroups.capacity)
            buffers.initialize(repeating: 0, count: VoiceGroups.count * 4 * VoiceGroups.capacity)
            scratch = .allocate(capacity: VoiceGroups.count * VoiceQuad.scratchSize)
            scratch.initialize(repeating: 0, count: VoiceGroups.count * VoiceQuad.scratchSize)
            sounded = .allocate(capacity: VoiceGroups.count)
            sounded.initialize(repeating: false, count: VoiceGroups.count)
            order = .allocate(capacity: VoiceGroups.count)
            order.initialize(from: Array(0..<VoiceGroups.count), count: VoiceGroups.count)
            voices = .allocate(capacity: VoiceGroups.count)
            voices.initialize(repeating: 0, count: VoiceGroups.count)
        }

        deinit {
            buffers.deallocate()
            scratch.deallocate()
            sounded.deallocate()
            order.deallocate()
            voices.deallocate()
        }

        /// Puts the groups that sounded, added in group order, in the output and the sends
        /// (silence when none did): the first is put as 0 + x, so the bits are those of adding
        /// each to silence, without clearing the output first.
        func put(in left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>,
                 sends: (reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>)?) {
            var adding = false
            for group in 0..<VoiceGroups.count where sounded[group] {
                let mix = buffers + group * 4 * VoiceGroups.capacity
                Self.put(mix, in: left, frames: frames, adding: adding)
                Self.put(mix + VoiceGroups.capacity, in: right, frames: frames, adding: adding)
                if let sends {
                    Self.put(mix + 2 * VoiceGroups.capacity, in: sends.reverb, frames: frames, adding: adding)
                    Self.put(mix + 3 * VoiceGroups.capacity, in: sends.chorus, frames: frames, adding: adding)
                }
                adding = true
            }
            guard !adding else { return }
            left.update(repeating: 0, count: frames)
            right.update(repeating: 0, count: frames)
            sends?.reverb.update(repeating: 0, count: frames)
            sends?.chorus.update(repeating: 0, count: frames)
        }

        /// Adds `frames` frames of `plane` to `output` when `adding`, else puts them there (each plus 0).
        @inline(__always) private static func put(_ plane: UnsafeMutablePointer<Float>, in output: UnsafeMutablePointer<Float>, frames: Int, adding: Bool) {
            if adding {
                for i in 0..<frames { output[i] += plane[i] }
            } else {
                for i in 0..<frames { output[i] = 0 + plane[i] }
            }
        }

        /// Renders groups that no other thread has taken until none is left.
        func renderShare() {
            while true {
                let place = untaken.add(1, ordering: .relaxed).oldValue
                guard place < VoiceGroups.count else { return }
                renderGroup(order[place])
            }
        }

        /// Finds the groups with a voice to render (voices start only between passes) and
        /// orders them by their voices, most first, before the workers start, so that they
        /// only read them. Render thread only.
        func findSoundingGroups() {
            voices.update(repeating: 0, count: VoiceGroups.count)
            for slot in 0..<slotsInUse where slots[slot].voice != nil { voices[slot / VoiceQuad.lanes % VoiceGroups.count] += 1 }
            for group in 0..<VoiceGroups.count {
                sounded[group] = voices[group] > 0
                // Insertion into the order so far: eight groups, no allocation.
                var place = group
                while place > 0 && voices[order[place - 1]] < voices[group] {
                    order[place] = order[place - 1]
                    place -= 1
                }
                order[place] = group
            }
        }

        /// Whether quad `quad` has a voice.
        private func hasVoice(_ quad: Int) -> Bool {
            let first = quad * VoiceQuad.lanes
            return (first..<min(first + VoiceQuad.lanes, slotsInUse)).contains { slots[$0].voice != nil }
        }

        /// Renders the voices of `group` into its buffer, silenced first, when it has any.
        func renderGroup(_ group: Int) {
            guard sounded[group] else { return }
            let mix = MixPlanes(left: buffers + group * 4 * VoiceGroups.capacity, stride: VoiceGroups.capacity, sends: sends)
            for plane in 0..<(sends ? 4 : 2) { (mix.left + plane * VoiceGroups.capacity).update(repeating: 0, count: frames) }
            for quad in stride(from: group, to: (slotsInUse + VoiceQuad.lanes - 1) / VoiceQuad.lanes, by: VoiceGroups.count) where hasVoice(quad) {
                let first = quad * VoiceQuad.lanes
                VoiceQuad.render(slots + first, count: min(VoiceQuad.lanes, slotsInUse - first), into: mix, frames: frames, place: place,
                                 scratch: scratch + group * VoiceQuad.scratchSize)
            }
        }
    }
}
