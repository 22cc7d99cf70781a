import DSP
import Engine
import Playback
import Sequencing

/// One song as a node of the graph: its player, and the sources it plays through (samplers,
/// audio files) summed on the song's own bus. The player schedules each cycle just before the
/// bus renders, so a song joins or leaves a running graph like any other node. Render thread
/// once connected.
public final class SongNode: AudioNode, @unchecked Sendable {
    // @unchecked Sendable: `render` is the render thread's; the rest is set before connecting.

    /// The song's conductor; its control methods are for the control thread. Any thread.
    public let player: MusicPlayer
    /// The song's bus: input `i` is `sources[i]`, for per-source volume, pan, mute and fades,
    /// and the player's automation. Control thread.
    public let bus: MixerNode
    /// What the song plays through, in bus input order. Render thread once connected.
    public let sources: [any AudioNode]
    /// What the game parameters do to it (set before connecting). Render thread once connected.
    var modulation: DeckModulation?

    /// `player` driving `sources` summed on `bus` (the mixer the player automates). Control thread.
    public init(player: MusicPlayer, bus: MixerNode, sources: [any AudioNode]) {
        self.player = player
        self.bus = bus
        self.sources = sources
    }

    /// Prepares the bus and connects the sources to it in order. Control thread.
    public func prepare(format: AudioFormat, maxFrames: Int) {
        bus.prepare(format: format, maxFrames: maxFrames)
        for source in sources { bus.connect(source) }
    }

    /// Applies the game parameters, schedules the cycle's events, then renders the bus. Render thread only.
    public func render(_ output: StereoSlice, at time: SampleTime) {
        modulation?.willRender(player: player, bus: bus, from: time, frames: output.frames)
        player.willRender(from: time, frames: output.frames)
        bus.render(output, at: time)
    }
}
