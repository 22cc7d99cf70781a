import DSP
import Engine
import MIDI
#if canImport(Glibc)
import Glibc
#endif

/// A song's synthesis spread over cores: several samplers, each with its own synthesizer
/// playing some of the 16 channels, rendered at once (the first on the render thread, the
/// others on threads of their own) and summed in a fixed order, so the output is the same on
/// every run. Sysex and transport jumps reach every part. For offline rendering only: each
/// cycle the render thread waits for the other parts. Render thread once connected.
public final class FluidSynthSplitNode: AudioNode, MIDIDestination, @unchecked Sendable {
    // @unchecked Sendable: the parts are used by one thread at a time, handed over and back
    // through each worker's two semaphores; the rest is set before connecting.

    /// The parts, each a sampler playing its channels. Render thread once connected.
    public let parts: [FluidSynthNode]
    private let router: ChannelSplitter
    private var workers: [Worker] = []

    /// Plays channel `c` (0-based) on `parts[channelParts[c]]`. Control thread.
    public init(parts: [FluidSynthNode], channelParts: [Int]) {
        precondition(!parts.isEmpty)
        self.parts = parts
        router = ChannelSplitter(destinations: parts, channelDestinations: channelParts)
    }

    deinit {
        for worker in workers { worker.stop() }
    }

    /// Prepares every part and starts a thread for each but the first. Control thread, with no
    /// render under way.
    public func prepare(format: AudioFormat, maxFrames: Int) {
        for part in parts { part.prepare(format: format, maxFrames: maxFrames) }
        for worker in workers { worker.stop() }   // prepared before: its threads end with it
        workers = parts.dropFirst().map { Worker(part: $0, buffer: AudioBuffer(capacity: maxFrames)) }
    }

    /// Renders the first part into `output` while the others render on their threads, then
    /// adds theirs. Render thread only.
    public func render(_ output: StereoSlice, at time: SampleTime) {
        for worker in workers { worker.start(frames: output.frames, at: time) }
        parts[0].render(output, at: time)
        for worker in workers {
            let part = worker.finish()
            for i in 0..<output.frames {
                output.left[i] += part.left[i]
                output.right[i] += part.right[i]
            }
        }
    }

    /// Schedules on the channel's part. Render thread only.
    public func schedule(_ event: ScheduledMIDI) { router.schedule(event) }

    /// Schedules on every part. Render thread only.
    public func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { router.scheduleSysex(data, at: time) }

    /// Flushes every part. Render thread only.
    public func flushScheduled(from time: SampleTime) { router.flushScheduled(from: time) }

    /// The parts' lookahead. Any thread.
    public var schedulingLookahead: Int { parts[0].schedulingLookahead }

    /// A part rendered on a thread of its own into its buffer, for the cycle the render
    /// thread set before starting it.
    private final class Worker {
        private let cycle: Cycle
        private let thread: RenderWorker

        init(part: FluidSynthNode, buffer: AudioBuffer) {
            let cycle = Cycle(part: part, buffer: buffer)
            self.cycle = cycle
            thread = RenderWorker { cycle.render() }
        }

        /// Has the part render `frames` from `time`. Render thread.
        func start(frames: Int, at time: SampleTime) {
            (cycle.frames, cycle.time) = (frames, time)
            thread.start()
        }

        /// Waits for the part and returns what it rendered. Render thread.
        func finish() -> StereoSlice {
            thread.finish()
            return cycle.buffer.slice(frames: cycle.frames)
        }

        /// Ends the thread. Control thread, with no render under way.
        func stop() { thread.stop() }
    }

    /// What a worker's thread renders: held by the thread itself, so it never reads a
    /// reference to a worker being torn down.
    private final class Cycle: @unchecked Sendable {
        // @unchecked Sendable: `frames` and `time` are written before the thread starts and
        // the buffer is read after it finishes (RenderWorker orders them).
        let part: FluidSynthNode
        let buffer: AudioBuffer
        var frames = 0
        var time: SampleTime = 0

        init(part: FluidSynthNode, buffer: AudioBuffer) {
            self.part = part
            self.buffer = buffer
        }

        /// Renders the cycle's frames into the buffer. The worker's thread.
        func render() { part.render(buffer.slice(frames: frames), at: time) }
    }
}
