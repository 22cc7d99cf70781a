/// Stereo float32 storage, allocated and freed off the render thread. Control thread to make;
/// its `slice` is for the render thread.
public final class AudioBuffer: @unchecked Sendable {
    // @unchecked Sendable: the pointers are fixed for the buffer's life; the frames are
    // written by one render thread at a time, as the engine's ownership rules say.

    /// Left channel, `capacity` frames. Any thread.
    public let left: UnsafeMutablePointer<Float>
    /// Right channel, `capacity` frames. Any thread.
    public let right: UnsafeMutablePointer<Float>
    /// Frames it holds. Any thread.
    public let capacity: Int

    /// Allocates `capacity` silent frames. Control thread.
    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        left = .allocate(capacity: capacity)
        right = .allocate(capacity: capacity)
        left.initialize(repeating: 0, count: capacity)
        right.initialize(repeating: 0, count: capacity)
    }

    deinit {
        left.deallocate()
        right.deallocate()
    }

    /// The first `frames` frames as a slice. Any thread.
    public func slice(frames: Int) -> StereoSlice {
        precondition(frames <= capacity)
        return StereoSlice(left: left, right: right, frames: frames)
    }
}

/// A window of stereo frames a node renders into. Render thread only.
public struct StereoSlice {
    /// Left channel. Render thread only.
    public let left: UnsafeMutablePointer<Float>
    /// Right channel. Render thread only.
    public let right: UnsafeMutablePointer<Float>
    /// Frames in the window. Render thread only.
    public let frames: Int

    /// Makes a slice over caller-owned memory. Render thread only.
    public init(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        self.left = left
        self.right = right
        self.frames = frames
    }

    /// The part from `offset` on, `count` frames long. Render thread only.
    @inline(__always) public func dropFirst(_ offset: Int, count: Int) -> StereoSlice {
        StereoSlice(left: left + offset, right: right + offset, frames: count)
    }

    /// Writes silence. Render thread only.
    @inline(__always) public func clear() {
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
    }

    /// Copies the frames into `destination` as interleaved pairs (left, right). Render thread only.
    @inline(__always) public func interleave(into destination: UnsafeMutablePointer<Float>) {
        for i in 0..<frames {
            destination[2 * i] = left[i]
            destination[2 * i + 1] = right[i]
        }
    }

    /// Copies the frames into `destination` as interleaved signed 16-bit pairs: each sample
    /// times 32767, rounded to the nearest, held at ±full scale. Render thread only.
    @inline(__always) public func interleave(into destination: UnsafeMutablePointer<Int16>) {
        @inline(__always) func pcm(_ x: Float) -> Int16 { Int16((min(1, max(-1, x)) * 32767).rounded()) }
        for i in 0..<frames {
            destination[2 * i] = pcm(left[i])
            destination[2 * i + 1] = pcm(right[i])
        }
    }
}
