import DSP
import Engine
import Synchronization

/// Wraps the music's part of the graph with a clock of its own that stands still while paused,
/// so a pause freezes songs, held notes and streamed files exactly where they are and resume
/// goes on from the same frame. The pause fades out over `fadeFrames` before the clock stops,
/// and resume fades back in, so neither clicks. Render thread once connected.
final class MusicClock: AudioNode, @unchecked Sendable {
    // @unchecked Sendable: `time`, `gain` and `scratch` are the render thread's; the control
    // thread only sets `wantsPause`.
    let inner: any AudioNode
    let fadeFrames: Int
    private let wantsPause = Atomic<Bool>(false)
    private let published = Atomic<Int64>(0)
    private let largestPull = Atomic<Int>(0)
    private let graphOffset = Atomic<Int64>(0)    // graph time minus music time, as of the last cycle
    private var time: SampleTime = 0
    private var gain: Float = 1

    init(_ inner: any AudioNode, fadeFrames: Int) {
        self.inner = inner
        self.fadeFrames = max(1, fadeFrames)
    }

    /// Pauses (true) or resumes (false). Any thread.
    func setPaused(_ paused: Bool) { wantsPause.store(paused, ordering: .relaxed) }

    /// The first music time a change made now can still reach: the next cycle may already be
    /// under way, so one pull beyond the clock after the last cycle. Any thread.
    var earliestUnrenderedTime: SampleTime {
        published.load(ordering: .acquiring) + SampleTime(largestPull.load(ordering: .relaxed))
    }

    /// The music time rendered so far: the end of the last cycle. Any thread.
    var renderedTime: SampleTime { published.load(ordering: .acquiring) }

    /// The graph's (the output's) time at which music time `time` sounds, if no pause comes
    /// between: the clocks differ by the time spent paused. Any thread.
    func graphTime(ofMusicTime time: SampleTime) -> SampleTime { time + graphOffset.load(ordering: .relaxed) }

    func prepare(format: AudioFormat, maxFrames: Int) { inner.prepare(format: format, maxFrames: maxFrames) }

    /// Renders the music at its own time, fading in or out, or silence while paused. Render thread only.
    func render(_ output: StereoSlice, at graphTime: SampleTime) {
        if output.frames > largestPull.load(ordering: .relaxed) { largestPull.store(output.frames, ordering: .relaxed) }
        graphOffset.store(graphTime - time, ordering: .relaxed)
        let paused = wantsPause.load(ordering: .relaxed)
        if paused && gain == 0 {
            output.clear()
            // A render of no frames at the standing time: the nodes take their queued changes
            // (so calls made while paused never wait for room) without moving the clock.
            inner.render(StereoSlice(left: output.left, right: output.right, frames: 0), at: time)
            return
        }
        inner.render(output, at: time)
        time += SampleTime(output.frames)
        published.store(time, ordering: .releasing)
        let step = 1 / Float(fadeFrames)
        if !paused && gain == 1 { return }
        for i in 0..<output.frames {
            gain = paused ? max(0, gain - step) : min(1, gain + step)
            output.left[i] *= gain
            output.right[i] *= gain
        }
    }
}
