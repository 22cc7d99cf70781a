/// Sends each channel's messages to its own destination (channel 10 to the synth, the rest to
/// an external port…); sysex and transport jumps reach every destination once. Render thread
/// only, like the destinations it feeds.
public final class ChannelSplitter: MIDIDestination, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; only the player's thread calls it.
    private let destinations: [any MIDIDestination]
    private let channelDestination: [Int]

    /// Channel `c` (0-based) goes to `destinations[channelDestinations[c]]`. Control thread.
    public init(destinations: [any MIDIDestination], channelDestinations: [Int]) {
        precondition(channelDestinations.count == 16 && channelDestinations.allSatisfy { destinations.indices.contains($0) })
        self.destinations = destinations
        channelDestination = channelDestinations
    }

    /// Schedules on the channel's destination. Render thread only.
    public func schedule(_ event: ScheduledMIDI) {
        destinations[channelDestination[Int(event.status & 0x0F)]].schedule(event)
    }

    /// Schedules on every destination. Render thread only.
    public func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) {
        for d in destinations.indices { destinations[d].scheduleSysex(data, at: time) }
    }

    /// Flushes every destination. Render thread only.
    public func flushScheduled(from time: SampleTime) {
        for d in destinations.indices { destinations[d].flushScheduled(from: time) }
    }

    /// The largest lookahead of the destinations. Any thread.
    public var schedulingLookahead: Int { destinations.map(\.schedulingLookahead).max() ?? 0 }
}
