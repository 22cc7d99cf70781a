import DSP

/// A node of the audio graph: prepared off the render thread, then pulled by its consumer
/// on the render thread. Core Audio's audio unit render callback. Any thread (see members).
public protocol AudioNode: AnyObject, Sendable {
    /// Gets ready to render `format` in slices of at most `maxFrames` (allocate here, never in
    /// `render`). Control thread, before the node is connected.
    func prepare(format: AudioFormat, maxFrames: Int)

    /// Overwrites `output` with the node's audio for frames `time ..< time + output.frames`.
    /// No allocation, lock, I/O or logging. Render thread only.
    func render(_ output: StereoSlice, at time: SampleTime)
}
