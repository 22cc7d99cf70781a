import DSP
import Engine

/// Pianola's own synthesizer in the graph: plays MIDI scheduled at sample times, each event on
/// its exact frame (the synthesizer renders up to the event, takes it, and goes on), so no
/// lookahead and no block grid. Core Audio's sampler unit, as `FluidSynthNode` is for
/// libfluidsynth. Made on the control thread; rendered and scheduled on the render thread.
public final class SoundFontSynthNode: AudioNode, MIDIDestination, @unchecked Sendable {
    // @unchecked Sendable: after `init` (control thread) every member is used by the render
    // thread alone.

    /// The synthesizer it plays. Render thread only once rendering has started.
    public let synthesizer: SoundFontSynthesizer
    private let scheduled: MIDISchedule
    /// Sysex messages the synthesizer does not act on (`SystemExclusive` says which it
    /// does), for a caller to report. Render thread only.
    public private(set) var ignoredSysex = 0
    /// Events dropped because the schedule was full (should stay 0). Render thread only.
    public var droppedEvents: Int { scheduled.droppedEvents }
    /// Where key presses and releases are reported, on the frames they were applied. Set it
    /// before rendering starts. Control thread, then the render thread's.
    package var noteLog: NoteLog?

    /// A node playing `synthesizer`, with room for `capacity` scheduled events. Control thread.
    public init(synthesizer: SoundFontSynthesizer, capacity: Int = 16_384) {
        self.synthesizer = synthesizer
        scheduled = MIDISchedule(capacity: capacity, sysexCapacity: 1 << 12)
    }

    /// Nothing to allocate: the synthesizer renders straight into the output. Control thread.
    public func prepare(format: AudioFormat, maxFrames: Int) {}

    /// None: an event is taken on its frame, so it may arrive as late as the pull that holds it. Any thread.
    public var schedulingLookahead: Int { 0 }

    /// Schedules a channel message. Render thread only.
    public func schedule(_ event: ScheduledMIDI) { scheduled.add(event) }

    /// Schedules a sysex message, acted on at its frame. Render thread only.
    public func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { scheduled.addSysex(data, at: time) }

    /// Drops what is scheduled but the note-offs, which sound at `time` (`MIDISchedule.flush`). Render thread only.
    public func flushScheduled(from time: SampleTime) { scheduled.flush(from: time) }

    /// Renders `time ..< time + output.frames`, taking each event on its frame (an event
    /// scheduled for a frame already rendered is taken at the start). Render thread only.
    public func render(_ output: StereoSlice, at time: SampleTime) {
        var done = 0
        while done < output.frames {
            let now = time + SampleTime(done)
            while let event = scheduled.first, event.time <= now {
                apply(event, at: now)
                scheduled.removeFirst()
            }
            let until = scheduled.first.map { min(output.frames, Int($0.time - time)) } ?? output.frames
            synthesizer.render(left: output.left + done, right: output.right + done, frames: until - done)
            done = until
        }
    }

    @inline(__always) private func apply(_ e: MIDISchedule.Event, at frame: SampleTime) {
        let channel = Int(e.status & 0x0F)
        switch e.status & 0xF0 {
        case 0x80:
            synthesizer.noteOff(channel: channel, key: Int(e.data1))
            logNote(channel: channel, key: e.data1, velocity: 0, at: frame)
        case 0x90:
            synthesizer.noteOn(channel: channel, key: Int(e.data1), velocity: Int(e.data2))
            logNote(channel: channel, key: e.data1, velocity: e.data2, at: frame)
        case 0xB0: synthesizer.controlChange(channel: channel, controller: Int(e.data1), value: Int(e.data2))
        case 0xC0: synthesizer.programChange(channel: channel, program: Int(e.data1))
        case 0xD0: synthesizer.channelPressure(channel: channel, value: Int(e.data1))
        case 0xE0: synthesizer.pitchBend(channel: channel, value: Int(e.data1) | Int(e.data2) << 7)
        case 0xF0:
            if !synthesizer.systemExclusive(scheduled.sysex(of: e)) { ignoredSysex += 1 }
        default: break   // key pressure: no modulator source of Pianola's reads it yet
        }
    }

    /// Reports a key pressed (velocity above 0) or released on `frame`.
    @inline(__always) private func logNote(channel: Int, key: UInt8, velocity: UInt8, at frame: SampleTime) {
        guard let noteLog else { return }
        noteLog.record(channel: channel, key: key, velocity: velocity, program: synthesizer.program(of: channel),
                       bank: synthesizer.bankSelect(of: channel), at: frame)
    }
}
