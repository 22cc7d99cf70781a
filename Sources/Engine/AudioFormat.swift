/// The engine's clock: the count of sample frames rendered since the graph started — Core
/// Audio's `mSampleTime`. Any thread.
public typealias SampleTime = Int64

/// The format every node renders: 32-bit float, non-interleaved stereo at `sampleRate`. Any thread.
public struct AudioFormat: Hashable, Sendable {
    /// Frames per second. Any thread.
    public var sampleRate: Int
    /// Channels: the engine renders stereo. Any thread.
    public var channelCount: Int { 2 }

    /// A stereo float format at `sampleRate`. Any thread.
    public init(sampleRate: Int) {
        precondition(sampleRate > 0, "a sample rate is positive")
        self.sampleRate = sampleRate
    }
}
