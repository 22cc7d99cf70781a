import DSP
import AudioFile
import Engine
import Synthesis
import FluidSynth
import MIDI
import Sequencing

/// Renders a song offline, faster than real time: its `SongGraph` pulled in a loop instead
/// of by a device: the music, then until the voices have died, the effects' tail has passed
/// and the output has fallen below −80 dB (at most the settings' tail); or, given a length, exactly that many frames (a stem
/// as long as its mix). Control thread (the loop is the render thread).
public final class SongRenderer {
    /// The graph rendered. Control thread.
    public let songGraph: SongGraph
    /// Frames rendered so far. Control thread.
    public private(set) var renderedFrames: Int64 = 0
    private var ended = false
    private var musicOver = false
    private var voicesEnded: Int64?              // the frame the last voice was found gone, after the music
    private var interleavingBuffer: AudioBuffer?
    private var labeller: NoteLabeller?
    private var unread = 0..<0                    // frames of `interleavingBuffer` rendered but not read yet

    /// Builds the graph for `sequence` with the font at `soundFontPath`. Control thread.
    public convenience init(sequence: MusicSequence, soundFontPath: String, settings: SongGraph.Settings = SongGraph.Settings()) throws {
        try self.init(sequence: sequence, soundFont: .path(soundFontPath), settings: settings)
    }

    /// Builds the graph for `sequence` with `soundFont` (a file or bytes). Control thread.
    public init(sequence: MusicSequence, soundFont: FileSource, settings: SongGraph.Settings = SongGraph.Settings()) throws {
        songGraph = try SongGraph(sequence: sequence, soundFont: soundFont, settings: settings.offline())
    }

    /// Builds the graph for `sequence` with `soundFont`, loaded once and shared with other
    /// renderers, which may render at the same time on other threads. Control thread.
    public init(sequence: MusicSequence, soundFont: SharedSoundFont, settings: SongGraph.Settings = SongGraph.Settings()) throws {
        songGraph = try SongGraph(sequence: sequence, soundFont: soundFont, settings: settings.offline())
    }

    /// Builds the graph for `sequence` with `soundFont`, loaded once for the engine that plays
    /// it and shared with other renderers, which may render at the same time on other threads.
    /// Control thread.
    public init(sequence: MusicSequence, soundFont: LoadedSoundFont, settings: SongGraph.Settings = SongGraph.Settings()) throws {
        songGraph = try SongGraph(sequence: sequence, soundFont: soundFont, settings: settings.offline())
    }

    /// Records every note the synthesizer plays from now on, for `labels`. Control thread,
    /// before rendering.
    public func recordLabels() {
        for sampler in songGraph.samplers { sampler.noteLog = NoteLog() }
        for own in songGraph.ownSynths { own.noteLog = NoteLog() }
        for instrument in songGraph.instruments { instrument.noteLog = NoteLog() }
        labeller = NoteLabeller()
    }

    /// The notes played so far (after `recordLabels`), on the frames the synthesizer used; a
    /// key still held ends at the last frame rendered. Control thread.
    public var labels: [NoteLabel] {
        takeNoteEdges()
        return labeller?.labels(endingOpenNotesAt: renderedFrames) ?? []
    }

    /// Moves the synthesizers' reported key edges into the labeller.
    private func takeNoteEdges() {
        for log in songGraph.samplers.compactMap(\.noteLog) + songGraph.ownSynths.compactMap(\.noteLog) + songGraph.instruments.compactMap(\.noteLog) {
            labeller?.add(log.take())
        }
    }

    /// Renders up to `output.frames` more frames into the start of `output` and returns how
    /// many: fewer where the music ends (its last frame ends a slice), 0 once everything has
    /// been rendered. `length`, when given, is the exact total to render. Control thread.
    public func read(into output: StereoSlice, length: Int64? = nil) -> Int {
        let maximum = length ?? songGraph.maximumFrames
        let music = min(songGraph.musicFrames, maximum)
        if renderedFrames >= music && !musicOver {
            songGraph.player.pause()   // releases every held note at the music's last frame
            musicOver = true
        }
        let count = Int(min(Int64(output.frames), (musicOver ? maximum : music) - renderedFrames))
        guard !ended, count > 0 else {
            ended = true
            return 0
        }
        let slice = output.dropFirst(0, count: count)
        for file in songGraph.filePlayers { file.waitUntilBuffered(frames: count) }
        songGraph.graph.render(into: slice)
        takeNoteEdges()
        renderedFrames += Int64(count)
        if musicOver && length == nil && songGraph.activeVoiceCount == 0 {
            // Silent, and the effects' tail (a delay's echoes) has passed since the voices ended.
            voicesEnded = voicesEnded ?? renderedFrames
            var peak: Float = 0
            for i in 0..<count { peak = max(peak, abs(slice.left[i]), abs(slice.right[i])) }
            if peak < 1e-4 && renderedFrames - voicesEnded! >= Int64(songGraph.effectTailFrames) { ended = true }
        }
        return count
    }

    /// Renders up to `frames` more frames into `interleaved` as float pairs (left, right) and
    /// returns how many: fewer only at the end, 0 once everything has been rendered. Inside,
    /// the song renders in the same 4,096-frame slices however it is read, so where the tail
    /// is found silent, and so the length, is the same as `render`'s. Control thread.
    public func read(interleaved: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let scratch = interleavingBuffer ?? AudioBuffer(capacity: 4096)
        interleavingBuffer = scratch
        var done = 0
        while done < frames {
            if unread.isEmpty {
                let count = read(into: scratch.slice(frames: scratch.capacity))
                if count == 0 { break }
                unread = 0..<count
            }
            let n = min(unread.count, frames - done)
            scratch.slice(frames: unread.lowerBound + n).dropFirst(unread.lowerBound, count: n).interleave(into: interleaved + 2 * done)
            unread = unread.lowerBound + n..<unread.upperBound
            done += n
        }
        return done
    }

    /// Renders everything (exactly `length` frames when given) in slices of `sliceFrames`,
    /// calling `body` with each slice and the fraction done. Control thread.
    public func render<E: Error>(sliceFrames: Int = 4096, frames length: Int64? = nil,
                                 _ body: (StereoSlice, Double) throws(E) -> Void) throws(E) {
        let buffer = AudioBuffer(capacity: sliceFrames)
        let maximum = Double(max(1, length ?? songGraph.maximumFrames))
        while case let count = read(into: buffer.slice(frames: sliceFrames), length: length), count > 0 {
            try body(buffer.slice(frames: count), Double(renderedFrames) / maximum)
        }
    }

    /// Renders everything into a new audio file at `path` (replacing one only if `overwrite`),
    /// exactly `length` frames when given, calling `progress` with the fraction done, and
    /// returns the frames written. Throws one line if the file cannot be written, if an audio
    /// file of the song went bad and was cut short (the file is then written that way), or if
    /// `stop` said so between two slices (the file is then left part-written). Control thread.
    public func write(to path: String, container: AudioFileWriter.Container, encoding: AudioFileWriter.Encoding,
                      overwrite: Bool = false, frames length: Int64? = nil, progress: (Double) -> Void = { _ in },
                      stop: () -> Bool = { false }) throws(AudioFileError) -> Int {
        let writer = try AudioFileWriter(path: path, container: container, encoding: encoding, sampleRate: songGraph.settings.sampleRate, overwrite: overwrite)
        var frames = 0
        try render(frames: length) { (slice, done) throws(AudioFileError) in
            if stop() { throw AudioFileError(path: path, reason: "interrupted") }
            try writer.write(left: slice.left, right: slice.right, frames: slice.frames)
            frames += slice.frames
            progress(done)
        }
        try writer.close()
        if let failure = songGraph.filePlayers.lazy.compactMap(\.failure).first {
            throw AudioFileError(path: path, reason: "written with an audio file cut short: \(failure)")
        }
        return frames
    }
}
