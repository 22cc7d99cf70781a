import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where the player stood after a render cycle, as the queries need it.
struct Timeline {
    var mapping: ScoreMapping
    var loop: (startTick: Int, endFrame: ScoreFrame)?
    var endFrame: ScoreFrame
    var renderedTime: SampleTime   // the end of the last cycle scheduled
    var renderedFrame: ScoreFrame? // the score frame playing then, nil when not playing
}

/// A `Timeline` the render thread publishes and any thread reads whole, through a sequence
/// lock: the writer never waits, a reader tries again if a write overlapped its read. Score
/// frames are never negative, so -1 stands for "none" in the atomics.
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
        anchorTime.store(t.mapping.anchorTime, ordering: .relaxed)
        anchorFrame.store(t.mapping.anchorFrame.frames, ordering: .relaxed)
        rate.store(t.mapping.rate, ordering: .relaxed)
        playing.store(t.mapping.playing, ordering: .relaxed)
        loopEndFrame.store(t.loop?.endFrame.frames ?? -1, ordering: .relaxed)
        loopStartTick.store(Int64(t.loop?.startTick ?? 0), ordering: .relaxed)
        endFrame.store(t.endFrame.frames, ordering: .relaxed)
        renderedTime.store(t.renderedTime, ordering: .relaxed)
        renderedFrame.store(t.renderedFrame?.frames ?? -1, ordering: .relaxed)
        version.store(v &+ 2, ordering: .releasing)
    }

    /// Any thread.
    func read() -> Timeline {
        while true {
            let before = version.load(ordering: .acquiring)
            let loopEnd = loopEndFrame.load(ordering: .relaxed), rendered = renderedFrame.load(ordering: .relaxed)
            let t = Timeline(mapping: ScoreMapping(anchorTime: anchorTime.load(ordering: .relaxed),
                                                   anchorFrame: ScoreFrame(anchorFrame.load(ordering: .relaxed)),
                                                   rate: rate.load(ordering: .relaxed), playing: playing.load(ordering: .relaxed)),
                             loop: loopEnd < 0 ? nil : (Int(loopStartTick.load(ordering: .relaxed)), ScoreFrame(loopEnd)),
                             endFrame: ScoreFrame(endFrame.load(ordering: .relaxed)), renderedTime: renderedTime.load(ordering: .relaxed),
                             renderedFrame: rendered < 0 ? nil : ScoreFrame(rendered))
            atomicMemoryFence(ordering: .acquiring)
            if before & 1 == 0 && version.load(ordering: .relaxed) == before { return t }
            sched_yield()
        }
    }
}
