import DSP
import Synchronization

/// Stereo frames handed from one producer thread (a file reader) to one consumer thread (the
/// render thread) without locks or allocation: two circular buffers and two counters. Each
/// side calls only its own members.
package final class AudioRing: @unchecked Sendable {
    // @unchecked Sendable: the producer writes only frames the consumer has released and the
    // consumer reads only frames the producer has published; the counters order the two.
    /// Frames it holds at most. Any thread.
    package let capacity: Int
    private let left: UnsafeMutablePointer<Float>
    private let right: UnsafeMutablePointer<Float>
    private let written = Atomic<Int>(0)
    private let taken = Atomic<Int>(0)

    /// Room for `capacity` frames. Control thread.
    package init(capacity: Int) {
        self.capacity = capacity
        left = .allocate(capacity: capacity)
        right = .allocate(capacity: capacity)
    }

    deinit {
        left.deallocate()
        right.deallocate()
    }

    /// Frames that can be written now. Producer thread.
    package var space: Int { capacity - (written.load(ordering: .relaxed) - taken.load(ordering: .acquiring)) }

    /// Frames waiting to be read. Consumer thread (any thread for a glance).
    package var available: Int { written.load(ordering: .acquiring) - taken.load(ordering: .relaxed) }

    /// Appends up to `frames` interleaved stereo frames; returns how many fitted. Producer thread.
    package func write(interleaved source: UnsafePointer<Float>, frames: Int) -> Int {
        let start = written.load(ordering: .relaxed)
        let count = min(frames, space)
        for i in 0..<count {
            let slot = (start + i) % capacity
            left[slot] = source[2 * i]
            right[slot] = source[2 * i + 1]
        }
        written.store(start + count, ordering: .releasing)
        return count
    }

    /// Moves up to `frames` frames into `output` from frame `offset` on; returns how many. Consumer thread.
    package func read(into output: StereoSlice, at offset: Int, frames: Int) -> Int {
        let start = taken.load(ordering: .relaxed)
        let count = min(frames, available)
        for i in 0..<count {
            let slot = (start + i) % capacity
            output.left[offset + i] = left[slot]
            output.right[offset + i] = right[slot]
        }
        taken.store(start + count, ordering: .releasing)
        return count
    }
}
