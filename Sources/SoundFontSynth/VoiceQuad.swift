/// Four voices rendered side by side (slots `4k...4k+3`): each plays its sample into a lane
/// of its own, then their filters run together and add the lanes to the mix
/// (`LowPassFilter.Lanes`). They move in step through the synthesizer's control blocks, on
/// which every voice's mix and cutoff move, a stretch ending early only where a voice's filter
/// glide does (a controller moved it inside a block), and running on across the blocks'
/// edges, up to `longestStretch` frames, while nothing moves any voice's mix or cutoff there.
/// Each voice plays its own control blocks whole, ahead of the stretch when one ends inside
/// it (no event comes inside a render call), so that its player is called once a block.
/// Render thread only.
enum VoiceQuad {
    /// Voices a quad holds.
    static let lanes = 4
    /// The most frames a stretch runs: eight blocks, when nothing moves at their edges (each
    /// stretch loads and stores the filters and walks the lanes). On the concerto, stretches
    /// of up to one block took 6 % more time than these, of up to sixteen no less.
    static let longestStretch = 8 * Units.controlBlock
    /// Frames a lane holds: a stretch, and what its voice played ahead of it (less than a block).
    static let laneFrames = longestStretch + Units.controlBlock
    /// Floats of scratch space a quad renders with: the lanes, the span of sample points a
    /// voice's block reads, and the filters' lanes.
    static let scratchSize = lanes * laneFrames + SamplePlayer.spanCapacity + LowPassFilter.Lanes.size

    /// Adds `frames` frames of the voices in the `count` (1...4) slots from `slots` to `mix`
    /// from its first frame, the first at `place` in the synthesizer's control block, using
    /// `scratch` (`scratchSize` floats), and frees the slots of the voices that end.
    static func render(_ slots: UnsafeMutablePointer<VoiceSlot>, count: Int, into mix: MixPlanes, frames: Int, place: Int,
                       scratch: UnsafeMutablePointer<Float>) {
        // Lanes' progress in memory, not in vectors: a lane written into a vector goes through memory each time.
        withUnsafeTemporaryAllocation(of: LaneProgress.self, capacity: lanes) { progress in
            progress.initialize(repeating: LaneProgress())
            render(slots, count: count, into: mix, frames: frames, place: place, scratch: scratch, progress: progress.baseAddress!)
        }
    }


    /// `render`, the lanes' progress kept at `progress`.
    private static func render(_ slots: UnsafeMutablePointer<VoiceSlot>, count: Int, into mix: MixPlanes, frames: Int, place: Int,
                               scratch: UnsafeMutablePointer<Float>, progress: UnsafeMutablePointer<LaneProgress>) {
        let buffers = (scratch, scratch + laneFrames, scratch + 2 * laneFrames, scratch + 3 * laneFrames)
        let span = scratch + lanes * laneFrames
        /// Lane `lane`'s buffer.
        @inline(__always) func buffer(_ lane: Int) -> UnsafeMutablePointer<Float> { scratch + lane &* laneFrames }
        // A lane no voice fills holds silence: the filters run every lane, and a number times
        // a gain of 0 is 0 but leftover bits need not be a number.
        for lane in 0..<lanes where lane >= count || slots[lane].voice == nil { buffer(lane).update(repeating: 0, count: laneFrames) }
        var done = 0, place = place
        while done < frames {
            // The stretch every voice's filter and mix run alike.
            var stretch = min(frames - done, longestStretch), sounding = false
            for lane in 0..<count {
                guard let alike = slots[lane].voice?.alike(frames: stretch, place: place) else { continue }
                stretch = alike
                sounding = true
            }
            guard sounding else { return }
            var filters = LowPassFilter.Lanes(memory: span + SamplePlayer.spanCapacity)
            var filtered = 0   // a bit a lane whose filter runs
            for lane in 0..<lanes {
                let p = progress + lane
                p.pointee.end = stretch
                guard lane < count,
                      slots[lane].voice?.fill(buffer(lane), progress: p, stretch: stretch, limit: frames - done, place: place, span: span, filters: &filters, lane: lane) == true
                else { continue }
                filtered |= 1 << lane
            }
            // A lane whose voice ends is silenced from there on: the stretch runs in parts.
            var from = 0
            while filtered != 0 {
                var to = stretch
                for lane in 0..<lanes {
                    let p = progress + lane
                    if p.pointee.end <= from {
                        filters.silence(lane: lane)
                        p.pointee.end = stretch
                    }
                    to = min(to, p.pointee.end)
                }
                filters.run(buffers, frames: from..<to, into: mix, at: done, place: place)
                guard to < stretch else { break }
                from = to
            }
            for lane in 0..<count where slots[lane].voice != nil {
                let p = progress + lane
                slots[lane].voice!.endStretch(frames: stretch, place: place + stretch, filters: filters, lane: lane, filtered: filtered & 1 << lane != 0)
                if p.pointee.ended <= stretch {
                    slots[lane] = VoiceSlot()
                    p.pointee = LaneProgress()
                    continue
                }
                // What it played ahead moves to the front of its lane.
                let ahead = p.pointee.filled - stretch
                if ahead > 0 { buffer(lane).update(from: buffer(lane) + stretch, count: ahead) }
                p.pointee.filled = max(ahead, 0)
                if p.pointee.heard != .max { p.pointee.heard = max(p.pointee.heard - stretch, 0) }
                if p.pointee.ended != .max { p.pointee.ended -= stretch }
            }
            done += stretch
            place = (place + stretch) % Units.controlBlock
        }
    }
}

/// Where a lane of a `VoiceQuad` is, in frames from the stretch's first: how many its voice
/// has played, where it was first heard (out of its envelope's delay) and where it ended
/// (`Int.max` for not yet), and where its filter's frames stop being heard in this stretch.
/// Render thread only.
struct LaneProgress {
    var filled = 0, heard = Int.max, ended = Int.max, end = 0
}
