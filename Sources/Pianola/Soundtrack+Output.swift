import DSP
import Synthesis
import ALSA
import Dispatch
import Engine
import FluidSynth
import MIDI
import Playback
import Sequencing
import Streaming
import Synchronization

// The audio: pulled by the game's callback (planar, interleaved float or 16-bit), or
// played by Pianola's own output.
extension Soundtrack {
    // MARK: Output

    /// Renders the next `frameCount` frames into `left` and `right`, for a game that owns the
    /// audio callback. Allocates nothing, takes no lock. False (and silence) while Pianola's
    /// own output runs, which alone pulls the soundtrack then. Render thread only.
    @discardableResult
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) -> Bool {
        render(into: StereoSlice(left: left, right: right, frames: frameCount))
    }

    /// Renders the next `output.frames` frames, as `render(left:right:frameCount:)`. Render thread only.
    @discardableResult
    public func render(into output: StereoSlice) -> Bool {
        guard !outputRunning.load(ordering: .acquiring) else {
            output.clear()
            return false
        }
        graph.render(into: output)
        return true
    }

    /// Renders the next `frameCount` frames as interleaved float pairs (left, right): what SDL,
    /// miniaudio and most engines hand their callback. As `render(into:)`. Render thread only.
    @discardableResult
    public func render(interleaved: UnsafeMutablePointer<Float>, frameCount: Int) -> Bool {
        renderInterleaved(frameCount) { slice, done in slice.interleave(into: interleaved + 2 * done) }
    }

    /// Renders the next `frameCount` frames as interleaved signed 16-bit pairs (each sample
    /// times 32767, rounded, held at full scale). As `render(into:)`. Render thread only.
    @discardableResult
    public func render(interleaved: UnsafeMutablePointer<Int16>, frameCount: Int) -> Bool {
        renderInterleaved(frameCount) { slice, done in slice.interleave(into: interleaved + 2 * done) }
    }

    /// Renders `frameCount` frames through the scratch slice, handing each part and the frames
    /// before it to `store`.
    @inline(__always)
    func renderInterleaved(_ frameCount: Int, _ store: (StereoSlice, Int) -> Void) -> Bool {
        var done = 0, rendered = true
        while done < frameCount {
            let slice = scratch.slice(frames: min(scratch.capacity, frameCount - done))
            rendered = render(into: slice) && rendered
            store(slice, done)
            done += slice.frames
        }
        return rendered
    }

    /// Plays through Pianola's own output: `device` on `driver` (the default driver's default
    /// device when `nil`: see `AudioDriver.defaultDriver`), of the JACK server or PipeWire
    /// socket `server` when given (else the default one); returns a note if real-time
    /// priority was refused. Throws one line if the output cannot be opened, or runs at
    /// another rate or a larger period than the soundtrack renders. Any thread.
    @discardableResult
    public func startOutput(driver: AudioDriver? = nil, device: String? = nil, server: String? = nil,
                            periodFrames: Int = 512, periods: Int = 3) throws(SoundtrackError) -> String? {
        try state.withLock { state throws(SoundtrackError) in
            guard state.output == nil else { throw SoundtrackError(.state, "the soundtrack's own output already plays") }
            var c = AudioOutputConfiguration()
            c.device = device
            c.server = server
            c.sampleRate = configuration.sampleRate
            c.periodFrames = min(periodFrames, configuration.maxFrames)
            c.periods = periods
            let output: any AudioOutput
            do { output = try AudioDriver.open(driver, configuration: c) } catch { throw SoundtrackError(.device, "\(error)") }
            guard output.format.sampleRate == configuration.sampleRate, output.format.periodFrames <= configuration.maxFrames else {
                throw SoundtrackError(.device, "\(output.driver.displayName) output '\(output.deviceName)' runs at \(output.format.sampleRate) Hz in \(output.format.periodFrames)-frame periods; the soundtrack renders \(configuration.sampleRate) Hz in at most \(configuration.maxFrames)")
            }
            state.output = output
            outputRunning.store(true, ordering: .releasing)
            return output.start(pulling: graph)
        }
    }

    /// Whether Pianola's own output is running (the render calls then do nothing). Any thread.
    public var isOutputRunning: Bool { outputRunning.load(ordering: .acquiring) }

    /// Stops Pianola's own output at once (what the device still holds is dropped). Any thread.
    public func stopOutput() {
        let output = state.withLock { state in
            defer { state.output = nil }
            return state.output
        }
        output?.stop(drain: false)
        outputRunning.store(false, ordering: .releasing)
    }
}
