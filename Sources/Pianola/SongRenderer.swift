import Engine
import FluidSynth
import MIDI
import Sequencing

/// Renders a sequence offline, faster than real time, through the same graph and player as
/// live playback: sampler → mixer → graph, pulled by a loop instead of a device. Control
/// thread (the loop is the render thread).
public final class SongRenderer {
    /// How to render. Any thread.
    public struct Settings: Hashable, Sendable {
        /// Output sample rate. Any thread.
        public var sampleRate = 48_000
        /// Reverb on (FluidSynth's default). Any thread.
        public var reverb = true
        /// Chorus on (FluidSynth's default). Any thread.
        public var chorus = true
        /// Most voices at once. Any thread.
        public var polyphony = 256
        /// Synth output gain (FluidSynth's default 0.2). Any thread.
        public var gain = 0.2
        /// Times the region plays in all. Any thread.
        public var plays = 1
        /// Tempo in percent of the written tempo. Any thread.
        public var tempoPercent = 100
        /// Semitones, every channel but 10. Any thread.
        public var transpose = 0
        /// Tracks (0-based) to silence. Any thread.
        public var mutedTracks: Set<Int> = []
        /// Tracks (0-based) to hear alone. Any thread.
        public var soloTracks: Set<Int> = []
        /// First tick of the region (chased from the start). Any thread.
        public var fromTick = 0
        /// End of the region, `nil` for the song's end. Any thread.
        public var toTick: Int?
        /// Longest time to let voices ring after the music, in seconds. Any thread.
        public var tailSeconds = 5.0

        /// The defaults. Any thread.
        public init() {}
    }

    /// The sequence rendered. Any thread.
    public let sequence: Sequence
    /// The settings. Any thread.
    public let settings: Settings
    private let graph: AudioGraph
    private let player: Player
    private let synthesizer: Synthesizer
    /// Frames of music: the region, times the plays, at the tempo. Any thread.
    public let musicFrames: Int64
    /// The most frames the render can take, tail included. Any thread.
    public var maximumFrames: Int64 { musicFrames + Int64(settings.tailSeconds * Double(settings.sampleRate)) }

    /// Builds the graph for `sequence` with the font at `soundFontPath`. Control thread.
    public init(sequence: Sequence, soundFontPath: String, settings: Settings = Settings()) throws(SynthesizerError) {
        self.sequence = sequence
        self.settings = settings
        var configuration = Synthesizer.Configuration()
        configuration.sampleRate = Double(settings.sampleRate)
        configuration.reverb = settings.reverb
        configuration.chorus = settings.chorus
        configuration.polyphony = settings.polyphony
        configuration.gain = settings.gain
        synthesizer = try Synthesizer(configuration: configuration)
        _ = try synthesizer.loadSoundFont(path: soundFontPath)
        let sampler = SamplerNode(synthesizer: synthesizer)
        let mixer = MixerNode()
        graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: settings.sampleRate))
        mixer.connect(sampler)
        player = Player(sequence: sequence, sampleRate: settings.sampleRate, destinations: [sampler])
        graph.add(player)

        let map = sequence.tempoMap
        let from = min(settings.fromTick, sequence.length)
        let to = max(from, min(settings.toTick ?? sequence.length, sequence.length))
        let regionFrames = map.sampleFrame(atTick: to, sampleRate: settings.sampleRate) - map.sampleFrame(atTick: from, sampleRate: settings.sampleRate)
        musicFrames = regionFrames * Int64(max(1, settings.plays)) * 100 / Int64(settings.tempoPercent)

        for track in settings.mutedTracks { player.setMuted(true, track: track) }
        for track in settings.soloTracks { player.setSoloed(true, track: track) }
        if settings.transpose != 0 { player.setTranspose(semitones: settings.transpose) }
        if settings.tempoPercent != 100 { player.setRate(percent: settings.tempoPercent) }
        if settings.plays > 1 { player.setLoop(startTick: from, endTick: to, count: settings.plays) }
        if from > 0 { player.seek(toTick: from) }
        player.start()
    }

    /// Renders everything: the music, then until the voices have died and the output has
    /// fallen below −80 dB (at most `tailSeconds`). Calls `body` with each slice and the
    /// fraction done. Control thread.
    public func render<E: Error>(sliceFrames: Int = 4096, _ body: (StereoSlice, Double) throws(E) -> Void) throws(E) {
        let buffer = AudioBuffer(capacity: sliceFrames)
        var rendered: Int64 = 0
        /// Renders up to `sliceFrames` more frames, stopping at `end`; hands them to `body`.
        func next(until end: Int64) throws(E) -> StereoSlice {
            let slice = buffer.slice(frames: Int(min(Int64(sliceFrames), end - rendered)))
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
            if synthesizer.activeVoiceCount == 0 && peak < 1e-4 { break }
        }
    }
}
