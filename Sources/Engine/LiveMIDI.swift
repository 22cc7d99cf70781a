import MIDI

/// MIDI played now rather than scheduled: messages from one thread outside the render path (a
/// keyboard's input thread, a game) reach a destination at the start of the next render cycle,
/// through a lock-free queue. Add it to the graph before the player: the destination then
/// plays it after what it already holds for that moment, at most its lookahead (two 64-frame
/// blocks for a sampler) later. Channel messages only. Core Audio's MusicDeviceMIDIEvent.
public final class LiveMIDI: RenderScheduler, @unchecked Sendable {
    // @unchecked Sendable: `destination` is used by the render thread only; `queue` is
    // single-producer (`send`'s thread) single-consumer (the render thread).
    private let destination: any MIDIDestination
    private let queue = SPSCQueue<(UInt8, UInt8, UInt8)>(capacity: 4096)

    /// Live messages for `destination` (a sampler). Control thread.
    public init(to destination: any MIDIDestination) { self.destination = destination }

    /// Sends a channel message to sound as soon as possible; returns false (the message is
    /// dropped) if the render thread has fallen 4,096 messages behind, or for a message that is
    /// not a channel message. One thread at a time.
    @discardableResult
    public func send(_ message: MIDIMessage) -> Bool {
        let bytes = message.wireBytes
        guard let status = bytes.first, status >= 0x80, status < 0xF0 else { return false }
        return queue.push((status, bytes.count > 1 ? bytes[1] : 0, bytes.count > 2 ? bytes[2] : 0))
    }

    /// Schedules what arrived at the cycle's first frame. Render thread only.
    public func willRender(from time: SampleTime, frames: Int) {
        while let (status, d1, d2) = queue.pop() {
            destination.schedule(ScheduledMIDI(time: time, status: status, data1: d1, data2: d2))
        }
    }
}
