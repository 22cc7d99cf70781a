#if canImport(Glibc)
import Glibc
#endif

/// A stereo chorus for a mono send, built as libfluidsynth 2's is: one delay line of 2,048
/// frames read by `voices` blocks, each at a delay that a sine LFO sweeps (phases spread
/// evenly) about the sweep's depth, updated every few frames and read between frames through a
/// first-order all-pass interpolator; the even blocks feed the left side and the odd the right
/// (an odd count's last block both), and a stereo unit of full width mixes each side with the
/// other inverted (wet × 11/6 and −3/2, over the level's 1 + width/5). The parameters are
/// libfluidsynth's (voices, level, speed, depth). Allocates only at init; every frame is
/// processed alone, so where a render is split changes nothing. Render thread only, after `init`.
public final class Chorus {
    /// The chorus's settings, libfluidsynth's four (its sine type). Any thread.
    public struct Settings: Hashable, Sendable {
        /// 1...99: the copies of the input.
        public var voices = 3
        /// 0...10: the output's level.
        public var level = 2.0
        /// 0.1...5 Hz: how fast the delays sweep.
        public var speed = 0.3
        /// 0...256 ms: how far the delays sweep (held to the line's 2,048 frames, as libfluidsynth holds it).
        public var depth = 8.0

        /// libfluidsynth's defaults. Any thread.
        public init() {}
    }

    /// Frames in the delay line (libfluidsynth's MAX_SAMPLES), and the one more it reads past for interpolating.
    private static let lineFrames = 2_048
    /// The modulators move every `lowRate` frames (libfluidsynth's MOD_RATE, 4 at its greatest depth).
    private static let lowRate = 5, highRate = 4, lowDepth = 176, highDepth = lineFrames / 2

    private let line: UnsafeMutablePointer<Double>
    private let size = Chorus.lineFrames + 1
    private var lineIn = 0
    /// The modulated centre of the read positions, how far the sines move them, how often, and
    /// the frames until they next move (0: on the next frame).
    private var centre = 0.0, depth = 0, rate = Chorus.lowRate, untilUpdate = 0
    /// Per block: its sine's value and cosine (the LFO, turned on by `turn` at each update,
    /// not worked out by `sin` each time), where it reads, the fraction between frames, and
    /// the all-pass interpolator's last output.
    private let sines: UnsafeMutablePointer<SIMD2<Double>>, reads: UnsafeMutablePointer<Int>
    private let fractions: UnsafeMutablePointer<Double>, previous: UnsafeMutablePointer<Double>
    /// The sine and cosine of the angle the LFOs turn by at each update.
    private var turn = SIMD2<Double>(0, 1)
    private var voices = 0
    private var wet1 = 0.0, wet2 = 0.0
    /// Frames of silent input in a row (up to the line's length, past which it holds only zeros).
    private var silentFrames = Chorus.lineFrames + 1
    /// The settings in force. Render thread only.
    public private(set) var settings = Settings()
    private let sampleRate: Double

    /// A chorus at `sampleRate` with `settings`. Control thread.
    public init(sampleRate: Double, settings: Settings = Settings()) {
        self.sampleRate = sampleRate
        line = .allocate(capacity: Chorus.lineFrames + 1)
        line.initialize(repeating: 0, count: Chorus.lineFrames + 1)
        sines = .allocate(capacity: 99)
        sines.initialize(repeating: .zero, count: 99)
        reads = .allocate(capacity: 99)
        reads.initialize(repeating: 0, count: 99)
        fractions = .allocate(capacity: 99)
        fractions.initialize(repeating: 0, count: 99)
        previous = .allocate(capacity: 99)
        previous.initialize(repeating: 0, count: 99)
        set(settings)
    }

    deinit {
        line.deallocate()
        sines.deallocate()
        reads.deallocate()
        fractions.deallocate()
        previous.deallocate()
    }

    /// Changes the settings; the blocks' sines restart spread evenly and the read positions
    /// are set about the write position again. Render thread only.
    public func set(_ settings: Settings) {
        self.settings = settings
        voices = min(max(settings.voices, 1), 99)
        depth = min(Int(min(max(settings.depth, 0), 256) / 1_000 * sampleRate), Self.lineFrames) / 2
        rate = Self.lowRate
        if depth > Self.lowDepth { rate += (depth - Self.lowDepth) * (Self.highRate - Self.lowRate) / (Self.highDepth - Self.lowDepth) }
        centre = Double((lineIn - 1 - depth + size) % size)
        untilUpdate = 0
        let step = 2 * Double.pi * min(max(settings.speed, 0.1), 5) * Double(rate) / sampleRate
        turn = SIMD2(sin(step), cos(step))
        for voice in 0..<voices {
            let phase = 2 * Double.pi * Double(voice) / Double(voices)
            sines[voice] = SIMD2(sin(phase), cos(phase))
        }
        let level = min(max(settings.level, 0), 10), width = 10.0
        if voices > 1 {
            let wet = level / (1 + width * 0.2)
            (wet1, wet2) = (wet * (width / 2 + 0.5), wet * ((1 - width) / 2))
        } else {
            (wet1, wet2) = (level, -level)
        }
    }

    /// Empties the delay line. Render thread only.
    public func clear() {
        line.update(repeating: 0, count: size)
        previous.update(repeating: 0, count: 99)
        silentFrames = size
    }

    /// Adds the chorus of `frames` frames of the mono `input` to `left` and `right`. Render
    /// thread only. The frames go in runs between the blocks' updates. While the input is
    /// silent and the line holds only zeros (most songs send nothing to the chorus), a run only
    /// moves the positions on: it adds nothing.
    public func process(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) {
        let line = self.line, size = self.size, voices = self.voices, reads = self.reads
        let fractions = self.fractions, previous = self.previous, sines = self.sines, turn = self.turn
        let (depth, wet1, wet2) = (Double(self.depth), self.wet1, self.wet2)
        let lastFeedsBoth = voices & 1 == 1 && voices > 2   // an odd count's last block feeds both sides
        var frame = 0
        while frame < frames {
            if untilUpdate == 0 {
                // Each block's read position: the centre moved by its sine.
                for voice in 0..<voices {
                    let sine = sines[voice]
                    let position = centre + sine.x * depth
                    // Turned on by a step, and held to the unit circle (one Newton step), so an
                    // hour of updates neither grows nor shrinks the sweep.
                    let next = SIMD2(sine.x * turn.y + sine.y * turn.x, sine.y * turn.y - sine.x * turn.x)
                    sines[voice] = next * (1.5 - 0.5 * (next * next).sum())
                    let whole = position >= 0 ? Int(position) : Int(position - 1)
                    reads[voice] = whole >= size ? whole - size : whole < 0 ? whole + size : whole
                    fractions[voice] = position - Double(whole)
                }
                centre += Double(rate)
                if centre >= Double(size) { centre -= Double(size) }
                untilUpdate = rate
            }
            let run = min(untilUpdate, frames - frame)
            untilUpdate -= run
            var quiet = silentFrames > size
            if quiet { for i in frame ..< frame + run where input[i] != 0 { quiet = false; break } }
            if quiet {
                // (A run is far shorter than the line: one subtraction wraps a position, not a division.)
                for voice in 0..<voices { reads[voice] = reads[voice] + run >= size ? reads[voice] + run - size : reads[voice] + run }
                lineIn = lineIn + run >= size ? lineIn + run - size : lineIn + run
                frame += run
                continue
            }
            for i in frame ..< frame + run {
                // The sides' sums in scalars (a side picked by a vector's lane at run time
                // goes through memory each time), each block added in turn.
                var even = 0.0, odd = 0.0, last = 0.0
                for voice in 0..<voices {
                    // First-order all-pass interpolation between this frame and the next.
                    let here = reads[voice], after = here + 1 == size ? 0 : here + 1
                    let out = line[here] + fractions[voice] * (line[after] - previous[voice])
                    previous[voice] = out
                    reads[voice] = after
                    if voice & 1 == 0 { even += out } else { odd += out }
                    last = out
                }
                if lastFeedsBoth { odd += last }
                let sides = SIMD2(even, odd)
                let sample = input[i]
                line[lineIn] = Double(sample)
                lineIn = lineIn + 1 == size ? 0 : lineIn + 1
                silentFrames = sample == 0 ? min(silentFrames + 1, size + 1) : 0
                left[i] += Float(sides[0] * wet1 + sides[1] * wet2)
                right[i] += Float(sides[1] * wet1 + sides[0] * wet2)
            }
            frame += run
        }
    }
}
