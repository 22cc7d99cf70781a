/// The audio of one bus handed to an effect on another in the same render cycle: a
/// compressor on the music keyed by the dialogue (ducking). The bus that feeds it writes each
/// slice as it renders; the bus that reads it must render after it in the cycle (its mixer
/// input comes later). Memory is taken at `init`. Render thread only, after `init`.
public final class SideChain: @unchecked Sendable {
    // @unchecked Sendable: made on the control thread, then written and read by the one render thread.
    private let buffer: AudioBuffer
    private var written = 0
    private var read = 0

    /// Room for slices of up to `maxFrames`. Control thread.
    public init(maxFrames: Int = 8_192) {
        buffer = AudioBuffer(capacity: maxFrames)
    }

    /// Keeps `audio` (its first `maxFrames` frames) for the reader of this cycle. Render thread only.
    public func write(_ audio: StereoSlice) {
        written = min(audio.frames, buffer.capacity)
        buffer.left.update(from: audio.left, count: written)
        buffer.right.update(from: audio.right, count: written)
        read = 0
    }

    /// The louder side of the next frame of the slice last written (the reader may take it in
    /// several parts), 0 once all of it has been read. Render thread only.
    @inline(__always) public func nextLevel() -> Float {
        guard read < written else { return 0 }
        defer { read += 1 }
        return max(abs(buffer.left[read]), abs(buffer.right[read]))
    }
}
