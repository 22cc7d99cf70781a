import DSP
import Engine
import LV2

/// An LV2 instrument in the graph: plays MIDI scheduled at sample times, each message handed
/// to the plugin in its run's event sequence at its frame offset, so no lookahead and no block
/// grid. Made on the control thread; rendered and scheduled on the render thread.
public final class LV2InstrumentNode: AudioNode, MIDIDestination, @unchecked Sendable {
    // @unchecked Sendable: after `init` (control thread) every member is used by the render
    // thread alone.

    /// The instrument it plays. Render thread only once rendering has started.
    public let instrument: LV2Instrument
    private let scheduled = MIDISchedule(capacity: 16_384, sysexCapacity: 1 << 12)
    private let maxFrames: Int
    private let framing = UnsafeMutablePointer<UInt8>.allocate(capacity: (1 << 12) + 2)   // a sysex with its F0 and F7
    /// Each channel's program, bank select MSB and LSB (-1 until sent), for the note log.
    private let programs = UnsafeMutablePointer<Int16>.allocate(capacity: 48)
    /// Where the keys it presses and releases are reported, on the frames the plugin gets
    /// them (`render --labels`); nil: not reported. Set on the control thread before rendering.
    package var noteLog: NoteLog?

    /// A node playing `instrument`, which runs at most `maxFrames` at a time. Control thread.
    public init(instrument: LV2Instrument, maxFrames: Int) {
        self.instrument = instrument
        self.maxFrames = maxFrames
        programs.initialize(repeating: -1, count: 48)
    }

    deinit {
        framing.deallocate()
        programs.deallocate()
    }

    /// Nothing to allocate: the instrument renders straight into the output. Control thread.
    public func prepare(format: AudioFormat, maxFrames: Int) {
        precondition(maxFrames <= self.maxFrames, "the LV2 instrument runs at most \(self.maxFrames) frames, asked for \(maxFrames)")
    }

    /// None: an event is handed over with its frame offset in the run that holds it. Any thread.
    public var schedulingLookahead: Int { 0 }

    /// Schedules a channel message. Render thread only.
    public func schedule(_ event: ScheduledMIDI) { scheduled.add(event) }

    /// Schedules a sysex message. Render thread only.
    public func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { scheduled.addSysex(data, at: time) }

    /// Drops what is scheduled but the note-offs, which sound at `time`. Render thread only.
    public func flushScheduled(from time: SampleTime) { scheduled.flush(from: time) }

    /// Renders `time ..< time + output.frames`: the messages due in it go to the plugin at
    /// their frame offsets (one due earlier, at offset 0). Render thread only.
    public func render(_ output: StereoSlice, at time: SampleTime) {
        let end = time + SampleTime(output.frames)
        while let event = scheduled.first, event.time < end {
            let offset = Int(max(0, event.time - time))
            if event.status == 0xF0 {
                let sysex = scheduled.sysex(of: event)
                framing[0] = 0xF0
                for i in 0..<sysex.count { framing[i + 1] = sysex[i] }
                framing[sysex.count + 1] = 0xF7
                instrument.add(UnsafeRawBufferPointer(start: framing, count: sysex.count + 2), atFrame: offset)
            } else {
                let length = event.status & 0xF0 == 0xC0 || event.status & 0xF0 == 0xD0 ? 2 : 3
                withUnsafeBytes(of: (event.status, event.data1, event.data2)) { instrument.add(UnsafeRawBufferPointer(rebasing: $0[0..<length]), atFrame: offset) }
                if let noteLog { log(event, at: time + SampleTime(offset), to: noteLog) }
            }
            scheduled.removeFirst()
        }
        instrument.run(left: output.left, right: output.right, frames: output.frames)
    }

    /// Follows `event`'s program and bank, and reports a key it presses or releases at `frame`.
    @inline(__always) private func log(_ event: MIDISchedule.Event, at frame: SampleTime, to noteLog: NoteLog) {
        let channel = Int(event.status & 0x0F), state = channel * 3
        switch event.status & 0xF0 {
        case 0xC0: programs[state] = Int16(event.data1)
        case 0xB0 where event.data1 == 0: programs[state + 1] = Int16(event.data2)
        case 0xB0 where event.data1 == 32: programs[state + 2] = Int16(event.data2)
        case 0x90, 0x80:
            let velocity = event.status & 0xF0 == 0x90 ? event.data2 : 0
            noteLog.record(channel: channel, key: event.data1, velocity: velocity, program: Int(max(0, programs[state])),
                           bank: Int(max(0, programs[state + 1])) << 7 | Int(max(0, programs[state + 2])), at: frame)
        default: break
        }
    }
}
