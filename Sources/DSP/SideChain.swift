/// The audio of one bus handed to an effect on another in the same render cycle: a
/// compressor on the music keyed by the dialogue (ducking), or a send into a return bus. The bus that feeds it writes each
/// slice as it renders; the bus that reads it must render after it in the cycle (its mixer
/// input comes later). Memory is taken at `init`. Render thread only, after `init`.
public final class SideChain: @unchecked Sendable {
    // @unchecked Sendable: made on the control thread, then written and read by the one render thread.
    private let buffer: AudioBuffer
    private var written = 0
    /// Slices written so far: a reader that sees it change starts the new slice from its first frame. Render thread only.
    public private(set) var writes = 0

    /// Room for slices of up to `maxFrames`. Control thread.
    public init(maxFrames: Int = 8_192) {
        buffer = AudioBuffer(capacity: maxFrames)
    }

    /// Keeps `audio` (its first `maxFrames` frames) for the reader of this cycle. Render thread only.
    public func write(_ audio: StereoSlice) {
        written = min(audio.frames, buffer.capacity)
        buffer.left.update(from: audio.left, count: written)
        buffer.right.update(from: audio.right, count: written)
        writes &+= 1
    }

    /// Adds the slice last written, times `gain` gliding to `target` over the slice, to `audio`
    /// (up to the frames both have): a send into a return bus. Does not move the reader's
    /// place. Render thread only.
    public func mix(into audio: StereoSlice, gain: Float, target: Float) {
        let count = min(written, audio.frames)
        guard count > 0, gain != 0 || target != 0 else { return }
        let step = (target - gain) / Float(count)
        for i in 0..<count {
            let g = gain + step * Float(i + 1)
            audio.left[i] += g * buffer.left[i]
            audio.right[i] += g * buffer.right[i]
        }
    }

    /// Copies `count` frames of the slice last written, from frame `offset` on, into `left`
    /// and `right` (zeros past its end): an LV2 plugin's side-chain inputs. Render thread only.
    public func copy(from offset: Int, count: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        let have = max(0, min(count, written - offset))
        if have > 0 {
            left.update(from: buffer.left + offset, count: have)
            right.update(from: buffer.right + offset, count: have)
        }
        if have < count {
            (left + have).update(repeating: 0, count: count - have)
            (right + have).update(repeating: 0, count: count - have)
        }
    }

    /// The louder side of frame `i` of the slice last written, 0 past its end. Render thread only.
    @inline(__always) public func level(at i: Int) -> Float {
        guard i < written else { return 0 }
        return max(abs(buffer.left[i]), abs(buffer.right[i]))
    }
}
