import MIDI

/// A MIDI message scheduled at an absolute sample time, in a form the render thread can copy
/// without allocating: channel messages packed in three bytes; sysex bytes copied into the
/// receiver's own arena. Render thread only.
public struct ScheduledMIDI {
    /// When it should sound. Render thread only.
    public var time: SampleTime
    /// Status byte (8n...En), or F0 for sysex. Render thread only.
    public var status: UInt8
    /// First data byte. Render thread only.
    public var data1: UInt8
    /// Second data byte. Render thread only.
    public var data2: UInt8

    /// A channel message. Render thread only.
    @inline(__always) public init(time: SampleTime, status: UInt8, data1: UInt8, data2: UInt8) {
        self.time = time
        self.status = status
        self.data1 = data1
        self.data2 = data2
    }

    /// The packed form of a channel message, `nil` for anything else. Render thread only.
    @inline(__always) public init?(time: SampleTime, _ message: MIDIMessage) {
        switch message {
        case .noteOff(let c, let n, let v): self.init(time: time, status: 0x80 | c, data1: n, data2: v)
        case .noteOn(let c, let n, let v): self.init(time: time, status: 0x90 | c, data1: n, data2: v)
        case .polyPressure(let c, let n, let p): self.init(time: time, status: 0xA0 | c, data1: n, data2: p)
        case .controlChange(let c, let n, let v): self.init(time: time, status: 0xB0 | c, data1: n, data2: v)
        case .programChange(let c, let p): self.init(time: time, status: 0xC0 | c, data1: p, data2: 0)
        case .channelPressure(let c, let p): self.init(time: time, status: 0xD0 | c, data1: p, data2: 0)
        case .pitchBend(let c, let v): self.init(time: time, status: 0xE0 | c, data1: UInt8(v & 0x7F), data2: UInt8(v >> 7))
        default: return nil
        }
    }
}

/// Something the player can send MIDI to at sample times: a synth node, later an ALSA port.
/// Render thread only.
public protocol MIDIDestination: AnyObject, Sendable {
    /// Schedules a channel message at `event.time`; times never go backwards between calls
    /// except after `flushScheduled(from:)`. Render thread only.
    func schedule(_ event: ScheduledMIDI)
    /// Schedules a system-exclusive message (bytes without the F0/F7 framing). Render thread only.
    func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime)
    /// Drops everything scheduled and not yet sounded: a transport jump at `time`, whose
    /// note-offs follow at that time. Render thread only.
    func flushScheduled(from time: SampleTime)
    /// Frames of lookahead the destination needs: events must be scheduled at least this far
    /// before they are due. Any thread.
    var schedulingLookahead: Int { get }
}
