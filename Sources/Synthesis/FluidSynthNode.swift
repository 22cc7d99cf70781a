import DSP
import Engine
import FluidSynth
import MIDI
#if canImport(Glibc)
import Glibc
#endif

/// A SoundFont sampler over libfluidsynth: plays MIDI scheduled at sample times. libfluidsynth
/// computes 64-frame blocks, so the node renders block by block on a fixed grid from sample
/// time 0 and applies each event before the block whose start is *nearest* its time (halves to
/// the even block): error within ±32 frames, no bias, no drift. Core Audio's sampler unit.
public final class FluidSynthNode: AudioNode, MIDIDestination, @unchecked Sendable {
    // @unchecked Sendable: after `init` (control thread) every member is used by the render
    // thread alone; the synthesizer's own rule is the same.

    /// The synthesizer it plays now. Render thread only once rendering has started.
    public private(set) var synthesizer: FluidSynthesizer
    private var fading: FluidSynthesizer?                       // the replaced synth, releasing its notes
    private var fadingFrames = 0
    private var fadeBuffer: AudioBuffer?
    private let incoming = SPSCQueue<FluidSynthesizer>(capacity: 4)
    private let retired = SPSCQueue<FluidSynthesizer>(capacity: 8)
    private var channelState: [Int16]                      // per channel: 128 CCs, program, pitch bend; -1 unknown
    private static let block = FluidSynthesizer.blockSize
    private var spill: AudioBuffer?                        // the part of the last block rendered past a pull's end
    private var spillStart = 0, spillEnd = 0               // unread frames of `spill`
    private var computed: SampleTime = 0                   // the synth has rendered every frame before this
    private let scheduled: MIDISchedule
    /// Events dropped because the schedule was full (should stay 0). Render thread only.
    public var droppedEvents: Int { scheduled.droppedEvents }
    /// Where key presses and releases are reported, on the frames they were applied. Set it
    /// before rendering starts. Control thread, then the render thread's.
    package var noteLog: NoteLog?

    /// A sampler playing `synthesizer`, with room for `capacity` scheduled events and
    /// `sysexCapacity` bytes of scheduled sysex. Control thread.
    public init(synthesizer: FluidSynthesizer, capacity: Int = 16_384, sysexCapacity: Int = 1 << 16) {
        self.synthesizer = synthesizer
        scheduled = MIDISchedule(capacity: capacity, sysexCapacity: sysexCapacity)
        channelState = Array(repeating: -1, count: 16 * 130)
    }

    /// Allocates room for the block that straddles the end of a pull. Control thread.
    public func prepare(format: AudioFormat, maxFrames: Int) {
        precondition(Double(format.sampleRate) == synthesizer.configuration.sampleRate,
                     "the synthesizer renders at the graph's sample rate")
        spill = AudioBuffer(capacity: FluidSynthNode.block)
        fadeBuffer = AudioBuffer(capacity: maxFrames + FluidSynthNode.block)
    }

    /// Plays `replacement` from the next render cycle on: a synthesizer built and loaded off
    /// the audio thread (`fluid_synth_sfload` holds a synth for the whole load, so a font
    /// change is a new synth). The new one gets the bank, program, controllers and pitch bend
    /// each channel had; the old one releases its sounding notes and rings out (at most two
    /// seconds), then comes back through `collectRetired`. Rendering never waits. Control thread.
    public func replaceSynthesizer(with replacement: FluidSynthesizer) {
        precondition(replacement.configuration.sampleRate == synthesizer.configuration.sampleRate,
                     "a replacement synthesizer renders at the same sample rate")
        while !incoming.push(replacement) {
            collectRetired()
            sched_yield()
        }
    }

    /// Frees the synthesizers the render thread has finished with. Control thread.
    public func collectRetired() {
        while retired.pop() != nil {}
    }

    /// Two blocks. An event due at t must arrive before the block nearest t (which starts no
    /// earlier than t − 32) is computed; the node has computed up to the block boundary after
    /// the last frame pulled, up to 63 frames past it. So a scheduler that hands over events
    /// due before `end + lookahead` needs lookahead ≥ 95 frames. Any thread.
    public var schedulingLookahead: Int { 2 * FluidSynthNode.block }

    /// Schedules a channel message. Render thread only.
    public func schedule(_ event: ScheduledMIDI) { scheduled.add(event) }

    /// Schedules a sysex message, copying its bytes into the node's arena. Render thread only.
    public func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { scheduled.addSysex(data, at: time) }

    /// Drops what is scheduled (all of it is at or after `time`) but the note-offs, which
    /// sound at `time` instead (`MIDISchedule.flush`). Render thread only.
    public func flushScheduled(from time: SampleTime) { scheduled.flush(from: time) }

    /// The start of the 64-frame block nearest `time` (a time exactly between two goes to the
    /// even block, so rounding has no bias).
    @inline(__always) static func nearestBlockStart(_ time: SampleTime) -> SampleTime {
        let b = SampleTime(block)
        let index = time >= 0 ? time / b : (time - b + 1) / b
        let rest = time - index * b
        let rounded = rest > b / 2 || (rest == b / 2 && index & 1 == 1) ? index + 1 : index
        return rounded * b
    }

    /// Renders the synth's audio for `time ..< time + frames`. Between events, whole runs of
    /// blocks go to libfluidsynth in one call, straight into the output; only the block that
    /// straddles the end of the pull is rendered aside, and its rest is played next time.
    /// Render thread only.
    public func render(_ output: StereoSlice, at time: SampleTime) {
        if let replacement = incoming.pop() { swapIn(replacement) }
        let block = FluidSynthNode.block
        var produced = 0
        // The synth has computed up to `time` plus what waits in the spill. A node that joins a
        // running graph (or missed cycles) takes up the graph's time, on the same 64-frame
        // grid the events are rounded to: the block that holds `time` goes to the spill.
        if computed != time + SampleTime(spillEnd - spillStart), let spill {
            let b = SampleTime(block)
            computed = time - ((time % b) + b) % b
            spillStart = spillEnd
            if computed < time {
                applyDueEvents()
                synthesizer.render(left: spill.left, right: spill.right, frames: block)
                mixFading(into: spill.slice(frames: block))
                spillStart = Int(time - computed)
                spillEnd = block
                computed += b
            }
        }
        if spillStart < spillEnd, let spill {
            let count = min(spillEnd - spillStart, output.frames)
            output.left.update(from: spill.left + spillStart, count: count)
            output.right.update(from: spill.right + spillStart, count: count)
            spillStart += count
            produced = count
        }
        while produced < output.frames {
            applyDueEvents()
            let remaining = output.frames - produced
            var blocks = (remaining + block - 1) / block
            if let first = scheduled.first {
                let next = FluidSynthNode.nearestBlockStart(first.time)
                blocks = max(1, min(blocks, Int((next - computed) / SampleTime(block))))
            }
            if remaining >= block {
                // Whole blocks, straight into the output.
                let frames = min(blocks, remaining / block) * block
                synthesizer.render(left: output.left + produced, right: output.right + produced, frames: frames)
                mixFading(into: output.dropFirst(produced, count: frames))
                produced += frames
                computed += SampleTime(frames)
            } else {
                // The block that straddles the end of the pull: render it aside, hand over its start.
                guard let spill else { preconditionFailure("prepare the sampler before rendering") }
                synthesizer.render(left: spill.left, right: spill.right, frames: block)
                mixFading(into: spill.slice(frames: block))
                (output.left + produced).update(from: spill.left, count: remaining)
                (output.right + produced).update(from: spill.right, count: remaining)
                spillStart = remaining
                spillEnd = block
                produced = output.frames
                computed += SampleTime(block)
            }
        }
    }

    /// Makes `replacement` the playing synth: the channel state goes over, the old synth
    /// releases its notes and fades out through `mixFading`.
    private func swapIn(_ replacement: FluidSynthesizer) {
        for channel in 0..<16 {
            let base = channel * 130
            func cc(_ n: Int) {
                if channelState[base + n] >= 0 { replacement.controlChange(channel: channel, controller: n, value: Int(channelState[base + n])) }
            }
            cc(0)
            cc(32)
            if channelState[base + 128] >= 0 { replacement.programChange(channel: channel, program: Int(channelState[base + 128])) }
            for n in 1..<120 where n != 32 { cc(n) }
            if channelState[base + 129] >= 0 { replacement.pitchBend(channel: channel, value: Int(channelState[base + 129])) }
        }
        if let previous = fading { _ = retired.push(previous) }
        synthesizer.allNotesOff()
        fading = synthesizer
        fadingFrames = 0
        synthesizer = replacement
    }

    /// Adds the replaced synth's release to `output`, and retires it once silent or after two
    /// seconds.
    @inline(__always) private func mixFading(into output: StereoSlice) {
        guard let old = fading, let fadeBuffer else { return }
        old.render(left: fadeBuffer.left, right: fadeBuffer.right, frames: output.frames)
        for i in 0..<output.frames {
            output.left[i] += fadeBuffer.left[i]
            output.right[i] += fadeBuffer.right[i]
        }
        fadingFrames += output.frames
        if old.activeVoiceCount == 0 || Double(fadingFrames) > 2 * old.configuration.sampleRate {
            _ = retired.push(old)
            fading = nil
        }
    }

    /// Sends libfluidsynth every scheduled event whose nearest block starts at `computed` or before.
    private func applyDueEvents() {
        while let event = scheduled.first, FluidSynthNode.nearestBlockStart(event.time) <= computed {
            apply(event)
            scheduled.removeFirst()
        }
    }

    /// Reports a key pressed (velocity above 0) or released on the frame being computed.
    @inline(__always) private func logNote(channel: Int, key: UInt8, velocity: UInt8) {
        guard let noteLog else { return }
        let state = channel * 130
        let program = max(0, channelState[state + 128]), msb = max(0, channelState[state]), lsb = max(0, channelState[state + 32])
        noteLog.record(channel: channel, key: key, velocity: velocity, program: Int(program), bank: Int(msb) << 7 | Int(lsb), at: computed)
    }

    @inline(__always) private func apply(_ e: MIDISchedule.Event) {
        let channel = Int(e.status & 0x0F)
        switch e.status & 0xF0 {
        case 0x80:
            synthesizer.noteOff(channel: channel, key: Int(e.data1))
            logNote(channel: channel, key: e.data1, velocity: 0)
        case 0x90:
            synthesizer.noteOn(channel: channel, key: Int(e.data1), velocity: Int(e.data2))
            logNote(channel: channel, key: e.data1, velocity: e.data2)
        case 0xA0: synthesizer.keyPressure(channel: channel, key: Int(e.data1), pressure: Int(e.data2))
        case 0xB0:
            synthesizer.controlChange(channel: channel, controller: Int(e.data1), value: Int(e.data2))
            if e.data1 < 120 { channelState[channel * 130 + Int(e.data1)] = Int16(e.data2) }
        case 0xC0:
            synthesizer.programChange(channel: channel, program: Int(e.data1))
            channelState[channel * 130 + 128] = Int16(e.data1)
        case 0xD0: synthesizer.channelPressure(channel: channel, pressure: Int(e.data1))
        case 0xE0:
            synthesizer.pitchBend(channel: channel, value: Int(e.data1) | Int(e.data2) << 7)
            channelState[channel * 130 + 129] = Int16(Int(e.data1) | Int(e.data2) << 7)
        default:
            synthesizer.systemExclusive(scheduled.sysex(of: e))
        }
    }
}
