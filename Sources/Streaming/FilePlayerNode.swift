import DSP
import AudioFile
import Engine
import Resampling
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Plays an audio file into the graph, streamed from disk: a reader thread reads it (through
/// libsndfile), resamples it to the graph's rate (libsoxr) and fills a lock-free ring; the
/// render thread only copies from the ring, so it never touches the file. The first frame
/// sounds on the exact sample frame asked for. A region of the file can play several times
/// (or forever), seamlessly: the loop is joined before resampling. A file that goes bad
/// mid-stream ends this player (`failure` says why), never the program. Volume and pan are
/// the mixer input's. Core Audio's AUAudioFilePlayer.
public final class FilePlayerNode: AudioNode, @unchecked Sendable {
    // @unchecked Sendable: `reader`, `resampler` and the reader buffers belong to the reader
    // thread; the render thread uses `ring`, `startTime` and its own counters; they meet
    // through the ring and the atomics.

    /// How the file plays. Any thread.
    public struct Playing: Hashable, Sendable {
        /// The graph's sample time of the region's first frame. Before 0, the first pass
        /// starts that far into the region (a file placed before where the song starts). Any thread.
        public var startTime: SampleTime = 0
        /// The frames of the file to play (the whole file when `nil`). Any thread.
        public var region: Range<Int64>?
        /// Use the file's own loop points as the region when it has them. Any thread.
        public var useFileLoop = false
        /// Times the region plays in all; 0 plays it forever. Any thread.
        public var plays = 1
        /// Frames (at the graph's rate) into the region where the first pass starts, at
        /// `startTime`: a song's stem joining the song mid-way. Any thread.
        public var startOffset: Int64 = 0

        /// The whole file once, from sample time 0. Any thread.
        public init() {}
    }

    /// The file's path, or the name given to its bytes. Any thread.
    public let path: String
    /// The file's own sample rate. Any thread.
    public let fileSampleRate: Int
    /// The region played, in the file's frames. Any thread.
    public let region: Range<Int64>
    /// The graph's sample time just after the last frame, `nil` when it loops forever. Any thread.
    public let endTime: SampleTime?
    private let startTime: SampleTime
    private let firstPosition: Int64
    private let ring: AudioRing
    private let reader: AudioFileReader
    private let resampler: Resampler?
    private var playsLeft: Int
    private let readerThread = StoppableThread()
    private let inputEnded = Atomic<Bool>(false)
    private let underrunCount = Atomic<Int>(0)
    private let failed = Mutex<String?>(nil)

    /// Opens `path` for a graph at `sampleRate` and starts reading, returning once the first
    /// `preroll` seconds (or the whole region, if shorter) wait in the ring. Throws one line
    /// for a missing, unsupported or corrupt file or an empty region. Control thread.
    public convenience init(path: String, sampleRate: Int, playing: Playing = Playing(), bufferSeconds: Double = 2, preroll: Double = 0.25) throws(AudioFileError) {
        try self.init(reader: AudioFileReader(path: path), sampleRate: sampleRate, playing: playing, bufferSeconds: bufferSeconds, preroll: preroll)
    }

    /// Plays what `reader` opened (a file, or bytes in memory), which it then owns, as
    /// `init(path:)` does. Control thread.
    public init(reader: AudioFileReader, sampleRate: Int, playing: Playing = Playing(), bufferSeconds: Double = 2, preroll: Double = 0.25) throws(AudioFileError) {
        self.reader = reader
        path = reader.path
        fileSampleRate = reader.sampleRate
        let whole = Int64(0)..<reader.frames
        let wanted = playing.useFileLoop ? (reader.loop ?? playing.region ?? whole) : (playing.region ?? whole)
        region = wanted.clamped(to: whole)
        guard !region.isEmpty else {
            throw AudioFileError(path: path, reason: "the region \(wanted.lowerBound)..<\(wanted.upperBound) holds none of its \(reader.frames) frames")
        }
        startTime = max(0, playing.startTime)
        let skip = (max(0, -playing.startTime) + max(0, playing.startOffset)) * Int64(fileSampleRate) / Int64(sampleRate)
        firstPosition = min(region.upperBound, region.lowerBound + skip)
        playsLeft = playing.plays
        if playing.plays == 0 {
            endTime = nil
        } else {
            let fileFrames = (region.upperBound - region.lowerBound) * Int64(playing.plays) - (firstPosition - region.lowerBound)
            endTime = startTime + fileFrames * Int64(sampleRate) / Int64(fileSampleRate)
        }
        ring = AudioRing(capacity: max(8_192, Int(bufferSeconds * Double(sampleRate))))
        if fileSampleRate == sampleRate {
            resampler = nil
        } else {
            do {
                resampler = try Resampler(from: Double(fileSampleRate), to: Double(sampleRate))
            } catch {
                throw AudioFileError(path: path, reason: error.description)
            }
        }
        try reader.seek(to: firstPosition)
        readerThread.start { self.run() }
        waitUntilBuffered(frames: min(Int(preroll * Double(sampleRate)), ring.capacity / 2))
    }

    /// Waits until `frames` frames (at most the ring's capacity) wait in the ring, or the file
    /// has been read to its end. An offline render calls it before each slice, since it can
    /// outrun the reader thread and would otherwise play a gap. Control thread (an offline
    /// render loop), never a real-time one.
    public func waitUntilBuffered(frames: Int) {
        let needed = min(frames, ring.capacity)
        while ring.available < needed && !inputEnded.load(ordering: .acquiring) { usleep(500) }
    }

    deinit { stop() }

    /// Stops reading; the node plays silence from then on. Control thread.
    public func stop() { readerThread.stop() }

    /// Whether everything has been played. Any thread.
    public var isFinished: Bool { inputEnded.load(ordering: .acquiring) && ring.available == 0 }
    /// Frames read ahead and waiting for the render thread. Any thread.
    public var bufferedFrames: Int { ring.available }
    /// Render cycles that found the ring short (the disk could not keep up). Any thread.
    public var underruns: Int { underrunCount.load(ordering: .relaxed) }
    /// Why the file stopped early, if it went bad while playing. Any thread.
    public var failure: String? { failed.withLock { $0 } }

    /// Nothing to prepare: the ring was sized for the rate at init. Control thread.
    public func prepare(format: AudioFormat, maxFrames: Int) {}

    /// Copies the cycle's frames from the ring: silence before the start time, then the file. Render thread only.
    public func render(_ output: StereoSlice, at time: SampleTime) {
        output.clear()
        let end = time + SampleTime(output.frames)
        guard end > startTime else { return }
        let offset = Int(max(0, startTime - time))
        let wanted = output.frames - offset
        let got = ring.read(into: output, at: offset, frames: wanted)
        if got < wanted && !inputEnded.load(ordering: .acquiring) { underrunCount.add(1, ordering: .relaxed) }
    }

    // MARK: The reader thread

    private func run() {
        let chunk = 4_096
        let input = UnsafeMutablePointer<Float>.allocate(capacity: chunk * 2)
        let outputCapacity = Int(Double(chunk) * ratio) + 1_024
        let output = UnsafeMutablePointer<Float>.allocate(capacity: outputCapacity * 2)
        defer {
            input.deallocate()
            output.deallocate()
            inputEnded.store(true, ordering: .releasing)
        }
        var position = firstPosition
        while !readerThread.isStopping {
            if position >= region.upperBound {
                if playsLeft == 1 { break }
                if playsLeft > 1 { playsLeft -= 1 }
                do { try reader.seek(to: region.lowerBound) } catch { return fail(error.reason) }
                position = region.lowerBound
            }
            let want = Int(min(Int64(chunk), region.upperBound - position))
            let got: Int
            do { got = try reader.read(into: input, frames: want) } catch { return fail(error.reason) }
            if got == 0 { return fail("ends at frame \(position), before the \(reader.frames) frames its header gives") }
            position += Int64(got)
            if let resampler {
                var used = 0
                while used < got {
                    let step = resampler.process(input + used * 2, inputFrames: got - used, into: output, outputCapacity: outputCapacity)
                    used += step.used
                    if !push(output, frames: step.made) { return }
                }
            } else if !push(input, frames: got) {
                return
            }
        }
        // The end: what the resampler still holds.
        if let resampler, !readerThread.isStopping {
            while true {
                let step = resampler.process(nil, inputFrames: 0, into: output, outputCapacity: outputCapacity)
                if step.made == 0 || !push(output, frames: step.made) { break }
            }
        }
    }

    /// Output frames per input frame.
    private var ratio: Double { resampler.map { $0.outputRate / $0.inputRate } ?? 1 }

    /// Writes all of `frames` into the ring, waiting for room; false when asked to stop.
    private func push(_ source: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
        var done = 0
        while done < frames {
            done += ring.write(interleaved: source + done * 2, frames: frames - done)
            if done < frames {
                if readerThread.isStopping { return false }
                usleep(5_000)
            }
        }
        return true
    }

    private func fail(_ reason: String) {
        failed.withLock { $0 = "\(path): \(reason)" }
    }
}
