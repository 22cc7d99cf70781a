import Engine
import FluidSynth
import MIDI
import Sequencing

/// Renders a song offline, faster than real time: its `SongGraph` pulled in a loop instead
/// of by a device. Control thread (the loop is the render thread).
public final class SongRenderer {
    /// The graph rendered. Control thread.
    public let song: SongGraph

    /// Builds the graph for `sequence` with the font at `soundFontPath`. Control thread.
    public init(sequence: MusicSequence, soundFontPath: String, settings: SongGraph.Settings = SongGraph.Settings()) throws {
        song = try SongGraph(sequence: sequence, soundFontPath: soundFontPath, settings: settings)
    }

    /// Renders everything: the music, then until the voices have died and the output has
    /// fallen below −80 dB (at most `tailSeconds`); or, given `frames`, exactly that many
    /// frames (a stem as long as its mix). Calls `body` with each slice and the fraction
    /// done. Control thread.
    public func render<E: Error>(sliceFrames: Int = 4096, frames length: Int64? = nil,
                                 _ body: (StereoSlice, Double) throws(E) -> Void) throws(E) {
        let buffer = AudioBuffer(capacity: sliceFrames)
        let (graph, player, synthesizer) = (song.graph, song.player, song.synthesizer)
        let maximumFrames = length ?? song.maximumFrames
        let musicFrames = min(song.musicFrames, maximumFrames)
        var rendered: Int64 = 0
        /// Renders up to `sliceFrames` more frames, stopping at `end`; hands them to `body`.
        func next(until end: Int64) throws(E) -> StereoSlice {
            let slice = buffer.slice(frames: Int(min(Int64(sliceFrames), end - rendered)))
            for file in song.filePlayers { file.waitUntilBuffered(frames: slice.frames) }
            graph.render(into: slice)
            rendered += Int64(slice.frames)
            try body(slice, Double(rendered) / Double(max(1, maximumFrames)))
            return slice
        }
        while rendered < musicFrames { _ = try next(until: musicFrames) }
        player.pause()   // releases every held note at the music's last frame
        while rendered < maximumFrames {
            let slice = try next(until: maximumFrames)
            var peak: Float = 0
            for i in 0..<slice.frames { peak = max(peak, abs(slice.left[i]), abs(slice.right[i])) }
            if length == nil && synthesizer.activeVoiceCount == 0 && peak < 1e-4 { break }
        }
    }
}
