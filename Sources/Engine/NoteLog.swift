import Synchronization

/// A key a synthesizer node pressed or released, on the frame its synthesizer actually
/// applied it (libfluidsynth's sampler: the 64-frame block edge nearest the event's time;
/// Pianola's own: the event's frame), with the channel's program and bank then. What a render's labels are made of. Any thread.
package struct NoteEdge: Hashable, Sendable {
    /// The frame the synthesizer applied it on. Any thread.
    public var frame: SampleTime
    /// Channel, 0-based. Any thread.
    public var channel: UInt8
    /// Key, 0...127. Any thread.
    public var key: UInt8
    /// Velocity of the key pressed (0 for a release). Any thread.
    public var velocity: UInt8
    /// The channel's program (0 if none was sent). Any thread.
    public var program: UInt8
    /// The channel's bank select, CC0 × 128 + CC32 (0 if none was sent). Any thread.
    public var bank: UInt16

    /// True for a key pressed, false for a key released. Any thread.
    public var pressed: Bool { velocity > 0 }
}

/// The note edges a synthesizer node reports from the render thread, taken by a control thread.
/// Render thread for `record`, one control thread for `take`.
package final class NoteLog: Sendable {
    private let edges: SPSCQueue<NoteEdge>
    private let lost = Atomic<Int>(0)

    /// Room for `capacity` edges between takes. Control thread.
    public init(capacity: Int = 1 << 16) { edges = SPSCQueue(capacity: capacity) }

    /// Adds the edge of `key` pressed at `velocity` (0: released) on `channel` at `frame`,
    /// the channel playing `program` of `bank`, or counts it lost when full. Render thread only.
    @inline(__always) public func record(channel: Int, key: UInt8, velocity: UInt8, program: Int, bank: Int, at frame: SampleTime) {
        let edge = NoteEdge(frame: frame, channel: UInt8(channel), key: key, velocity: velocity, program: UInt8(program), bank: UInt16(bank))
        if !edges.push(edge) { lost.add(1, ordering: .relaxed) }
    }

    /// Takes the edges recorded since the last call, in order. Control thread.
    public func take() -> [NoteEdge] {
        var taken: [NoteEdge] = []
        while let edge = edges.pop() { taken.append(edge) }
        return taken
    }

    /// Edges lost because nobody took them in time (should stay 0). Any thread.
    public var lostEdges: Int { lost.load(ordering: .relaxed) }
}
