/// Several synthesizers that play one song's channels between them, each reached through its
/// own `route`: a route passes channel events to its synthesizer alone, and system exclusive
/// messages (a GS reset, a drum part) to every one of them, once each however many routes pass
/// the same message on (a track split over several by a `ChannelSplitter`). Render thread once
/// connected.
package final class SharedSysex: @unchecked Sendable {
    // @unchecked Sendable: `last` is the render thread's; the rest is set in init.

    private let synthesizers: [any MIDIDestination]
    private var last: (time: SampleTime, address: UnsafePointer<UInt8>?, count: Int) = (.min, nil, 0)

    /// Routes to `synthesizers`. Control thread.
    public init(synthesizers: [any MIDIDestination]) {
        self.synthesizers = synthesizers
    }

    /// A route to synthesizer `index` (it keeps the whole alive). Control thread.
    public func route(_ index: Int) -> any MIDIDestination { Route(owner: self, index: index) }

    /// Passes one message on to every synthesizer, unless it is the one just passed.
    fileprivate func share(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) {
        if last.time == time && last.address == data.baseAddress && last.count == data.count { return }
        last = (time, data.baseAddress, data.count)
        for index in synthesizers.indices { synthesizers[index].scheduleSysex(data, at: time) }
    }

    /// Forgets the last message: a transport jump may send it again.
    fileprivate func flushed() { last = (.min, nil, 0) }

    /// One synthesizer's way in.
    private final class Route: MIDIDestination, @unchecked Sendable {
        // @unchecked Sendable: set in init.
        let owner: SharedSysex
        let index: Int

        init(owner: SharedSysex, index: Int) {
            self.owner = owner
            self.index = index
        }

        func schedule(_ event: ScheduledMIDI) { owner.synthesizers[index].schedule(event) }
        func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { owner.share(data, at: time) }
        func flushScheduled(from time: SampleTime) {
            owner.flushed()
            owner.synthesizers[index].flushScheduled(from: time)
        }
        var schedulingLookahead: Int { owner.synthesizers[index].schedulingLookahead }
    }
}
