import DSP
import AudioFile
import Engine
import Resampling
import Synchronization

/// A short sound held in memory at the graph's rate, ready to start at once. Any thread.
public final class SoundBuffer: Sendable {
    /// Left samples. Any thread.
    public let left: [Float]
    /// Right samples. Any thread.
    public let right: [Float]
    /// Frames. Any thread.
    public var frames: Int { left.count }

    /// A sound from samples already at the graph's rate. Any thread.
    public init(left: [Float], right: [Float]) {
        precondition(left.count == right.count, "both sides have the same length")
        self.left = left
        self.right = right
    }

    /// Reads the whole of `path` and converts it to `sampleRate` (libsoxr). Throws one line for
    /// a missing, unsupported or corrupt file. Control thread (never the render thread).
    public convenience init(path: String, sampleRate: Int) throws(AudioFileError) {
        try self.init(reader: AudioFileReader(path: path), sampleRate: sampleRate)
    }

    /// Reads the whole of what `reader` opened (a file, or bytes in memory) and converts it to
    /// `sampleRate` (libsoxr). Throws one line for audio that goes bad. Control thread.
    public convenience init(reader: AudioFileReader, sampleRate: Int) throws(AudioFileError) {
        var interleaved = [Float](repeating: 0, count: Int(reader.frames) * 2)
        var got = 0
        while got < Int(reader.frames) {
            let n = try interleaved.withUnsafeMutableBufferPointer { buffer throws(AudioFileError) in
                try reader.read(into: buffer.baseAddress! + got * 2, frames: Int(reader.frames) - got)
            }
            if n == 0 { break }
            got += n
        }
        interleaved.removeLast((Int(reader.frames) - got) * 2)
        if reader.sampleRate != sampleRate {
            let resampler: Resampler
            do { resampler = try Resampler(from: Double(reader.sampleRate), to: Double(sampleRate)) } catch {
                throw AudioFileError(path: reader.path, reason: error.description)
            }
            interleaved = resampler.convert(interleaved)
        }
        let frames = interleaved.count / 2
        self.init(left: (0..<frames).map { interleaved[2 * $0] }, right: (0..<frames).map { interleaved[2 * $0 + 1] })
    }
}

/// Many short sounds at once — a game's effects — from memory: each `play` starts a voice on
/// the exact frame asked for; when every voice is busy the oldest is stolen. Volume and pan per
/// voice. The render thread mixes and never allocates, and never frees a sound: finished ones
/// go back to the control thread. Control-thread members are for one thread at a time.
public final class SoundEffectsNode: AudioNode, @unchecked Sendable {
    // @unchecked Sendable: `voices` belong to the render thread; the control thread reaches
    // them only through `starts`, and takes finished sounds back through `finished`.

    private struct Voice {
        var sound: SoundBuffer?
        var startTime: SampleTime
        var position: Int
        var gain: StereoGain
        var next: Start?        // the sound that steals this voice, from its start time
    }

    private struct Start {
        var sound: SoundBuffer
        var time: SampleTime        // .min: the next cycle's first frame
        var gain: StereoGain
    }

    private var voices: [Voice]
    private let starts = SPSCQueue<Start>(capacity: 256)
    private let finished: SPSCQueue<SoundBuffer>
    private let stolen = Atomic<Int>(0)

    /// Room for `voices` sounds at once. Control thread.
    public init(voices: Int = 32) {
        self.voices = Array(repeating: Voice(sound: nil, startTime: 0, position: 0, gain: .unity, next: nil), count: max(1, voices))
        finished = SPSCQueue(capacity: max(1, voices) + 256)
    }

    /// Starts `sound` at sample time `time` (`nil`: the next render cycle's first frame) at
    /// `volume`, panned (−1 left … 1 right). Returns false if 256 starts are already waiting.
    /// Control thread.
    @discardableResult
    public func play(_ sound: SoundBuffer, at time: SampleTime? = nil, volume: Float = 1, pan: Float = 0) -> Bool {
        while finished.pop() != nil {}
        let p = max(-1, min(1, pan))
        return starts.push(Start(sound: sound, time: time ?? .min, gain: StereoGain(left: volume * min(1, 1 - p), right: volume * min(1, 1 + p))))
    }

    /// Nothing to prepare. Control thread.
    public func prepare(format: AudioFormat, maxFrames: Int) {}

    /// Mixes the sounding voices. Render thread only.
    public func render(_ output: StereoSlice, at time: SampleTime) {
        while let start = starts.pop() {
            var start = start
            start.time = max(time, start.time)
            // A free voice, else the one that started first and is not already being taken.
            var slot = -1
            for i in voices.indices {
                if voices[i].sound == nil && voices[i].next == nil { slot = i; break }
                if voices[i].next == nil && (slot < 0 || voices[i].startTime < voices[slot].startTime) { slot = i }
            }
            if slot < 0 { slot = 0 }   // every voice is being taken already: the first goes at once
            if voices[slot].sound == nil {
                voices[slot] = Voice(sound: start.sound, startTime: start.time, position: 0, gain: start.gain, next: nil)
            } else {
                // The old sound plays on until the new one starts, on its exact frame.
                if let waiting = voices[slot].next { _ = finished.push(waiting.sound) }
                voices[slot].next = start
            }
        }
        output.clear()
        let end = time + SampleTime(output.frames)
        for v in voices.indices {
            var until = output.frames
            if let next = voices[v].next, next.time < end { until = Int(next.time - time) }
            mix(voice: v, into: output, at: time, upTo: until)
            if let next = voices[v].next, next.time < end {
                if let old = voices[v].sound {
                    stolen.add(1, ordering: .relaxed)
                    _ = finished.push(old)
                }
                voices[v] = Voice(sound: next.sound, startTime: next.time, position: 0, gain: next.gain, next: nil)
                mix(voice: v, into: output, at: time, upTo: output.frames)
            }
        }
    }

    /// Adds voice `v` into `output` up to (not including) frame `limit` of the cycle.
    private func mix(voice v: Int, into output: StereoSlice, at time: SampleTime, upTo limit: Int) {
        guard let sound = voices[v].sound, voices[v].startTime < time + SampleTime(limit) else { return }
        let offset = Int(max(0, voices[v].startTime - time))
        let count = min(limit - offset, sound.frames - voices[v].position)
        let gain = voices[v].gain
        let from = voices[v].position
        sound.left.withUnsafeBufferPointer { left in
            sound.right.withUnsafeBufferPointer { right in
                for i in 0..<count {
                    output.left[offset + i] += left[from + i] * gain.left
                    output.right[offset + i] += right[from + i] * gain.right
                }
            }
        }
        voices[v].position += count
        if voices[v].position >= sound.frames {
            _ = finished.push(sound)
            voices[v].sound = nil
        }
    }

    /// Voices stolen so far (a new sound took the place of the oldest). Any thread.
    public var stolenVoices: Int { stolen.load(ordering: .relaxed) }
}
