import Engine

/// A transport a test moves between cycles, as a DAW moves JACK's: the test sets whether it
/// rolls and its frame (and moves the frame on by each cycle's frames while it rolls).
public final class TestTransport: ExternalTransport, @unchecked Sendable {
    // @unchecked Sendable: the test's one thread sets it between the cycles it renders.

    /// Whether it rolls.
    public var rolling = false
    /// Its frame at the next cycle's start.
    public var frame: Int64 = 0

    /// An unmoved transport, stopped at frame 0.
    public init() {}

    /// What the follower asks each cycle.
    public func transportState() -> (rolling: Bool, frame: Int64) { (rolling, frame) }
}
