import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where the player stood after a render cycle, as `nextTime` needs it.
struct Timeline {
    var anchorTime: SampleTime
    var anchorFrame: Int64
    var rate: Int64                // millionths of the written tempo
    var playing: Bool
    var loopEndFrame: Int64        // -1: no loop
    var loopStartTick: Int64
    var endFrame: Int64
    var renderedTime: SampleTime   // the end of the last cycle scheduled
    var renderedFrame: Int64       // the score frame playing then, -1 when not playing
}

/// How output time maps to score frames from an anchor on, at a rate, while playing.
struct ScoreMapping {
    var anchorTime: SampleTime
    var anchorFrame: Int64
    var rate: Int64                // millionths of the written tempo
    var playing: Bool

    /// The score frame playing at `time`, -1 when not playing then (stopped, or not started yet).
    func frame(at time: SampleTime) -> Int64 {
        playing && time >= anchorTime ? anchorFrame + (time - anchorTime) * rate / 1_000_000 : -1
    }
}

/// A `Timeline` the render thread publishes and any thread reads whole, through a sequence
/// lock: the writer never waits, a reader tries again if a write overlapped its read.
final class TimelineSnapshot: Sendable {
    private let version = Atomic<UInt64>(0)
    private let anchorTime = Atomic<Int64>(0)
    private let anchorFrame = Atomic<Int64>(0)
    private let rate = Atomic<Int64>(1_000_000)
    private let playing = Atomic<Bool>(false)
    private let loopEndFrame = Atomic<Int64>(-1)
    private let loopStartTick = Atomic<Int64>(0)
    private let endFrame = Atomic<Int64>(0)
    private let renderedTime = Atomic<Int64>(.min)
    private let renderedFrame = Atomic<Int64>(-1)

    /// Render thread only.
    func publish(_ t: Timeline) {
        let v = version.load(ordering: .relaxed)
        version.store(v &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        anchorTime.store(t.anchorTime, ordering: .relaxed)
        anchorFrame.store(t.anchorFrame, ordering: .relaxed)
        rate.store(t.rate, ordering: .relaxed)
        playing.store(t.playing, ordering: .relaxed)
        loopEndFrame.store(t.loopEndFrame, ordering: .relaxed)
        loopStartTick.store(t.loopStartTick, ordering: .relaxed)
        endFrame.store(t.endFrame, ordering: .relaxed)
        renderedTime.store(t.renderedTime, ordering: .relaxed)
        renderedFrame.store(t.renderedFrame, ordering: .relaxed)
        version.store(v &+ 2, ordering: .releasing)
    }

    /// Any thread.
    func read() -> Timeline {
        while true {
            let before = version.load(ordering: .acquiring)
            let t = Timeline(anchorTime: anchorTime.load(ordering: .relaxed), anchorFrame: anchorFrame.load(ordering: .relaxed),
                             rate: rate.load(ordering: .relaxed), playing: playing.load(ordering: .relaxed),
                             loopEndFrame: loopEndFrame.load(ordering: .relaxed), loopStartTick: loopStartTick.load(ordering: .relaxed),
                             endFrame: endFrame.load(ordering: .relaxed), renderedTime: renderedTime.load(ordering: .relaxed),
                             renderedFrame: renderedFrame.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if before & 1 == 0 && version.load(ordering: .relaxed) == before { return t }
            sched_yield()
        }
    }
}
