import DSP

/// A node whose output lags what it was given (a bus with a look-ahead plugin on it): the
/// mixer it feeds delays its other inputs by the difference, so parallel paths meet in time.
/// Render thread only.
package protocol LatencyReporting: AnyObject {
    /// Frames its output lags by now. Render thread only.
    var latencyFrames: Int { get }
}

/// A mixer input's compensating delay: a stereo ring long enough for `MixerNode.maxCompensation`.
/// Allocated when the input is connected. Render thread only once connected.
final class CompensationDelay {
    private let ring: AudioBuffer
    private let mask: Int
    private var write = 0

    /// Room for delays up to `frames`. Control thread.
    init(frames: Int) {
        var size = 1
        while size < frames + 1 { size <<= 1 }
        mask = size - 1
        ring = AudioBuffer(capacity: size)
    }

    /// Delays `audio` in place by `frames` (at most the room made). Render thread only.
    func process(_ audio: StereoSlice, by frames: Int) {
        let back = min(frames, mask)
        for i in 0..<audio.frames {
            ring.left[write] = audio.left[i]
            ring.right[write] = audio.right[i]
            let read = (write - back) & mask
            audio.left[i] = ring.left[read]
            audio.right[i] = ring.right[read]
            write = (write + 1) & mask
        }
    }
}
