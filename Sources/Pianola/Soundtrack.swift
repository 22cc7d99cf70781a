import DSP
import Synthesis
import ALSA
import Dispatch
import Locks
import Engine
import FluidSynth
import MIDI
import Playback
import Sequencing
import Streaming
import Synchronization

/// A game's music, from any of its threads: songs loaded off the caller's thread, played,
/// stopped with a fade, paused, crossfaded or switched on the next beat or bar line, looped on
/// their loop marks, with layers (tracks and stems) faded in and out by name, tempo and
/// transposition on the fly, sound effects, and callbacks at markers, beats, bars, loop wraps
/// and song ends delivered on the caller's side (`pollEvents` or a DispatchQueue), never on
/// the audio thread. It renders through Pianola's own audio output (`startOutput`: PipeWire,
/// JACK or ALSA) or is pulled by the game's audio callback (`render(into:)`), real-time safe
/// either way.
/// Any thread (control calls are serialised by one lock the render thread never takes).
/// Calls queue their changes for the render side, which takes them as it renders (even while
/// paused); a game that stops pulling altogether should stop calling too, or a few hundred
/// calls later they wait for room.
public final class Soundtrack: Sendable {
    /// One song playing (or fading out) in the graph.
    final class Deck {
        let song: Song
        let node: SongNode
        let input: Int                       // the music bus's input
        let layers: [String: Int]            // layer name (lowercased) → bus input
        let startTime: SampleTime            // music time of its first frame
        var retireAt: SampleTime?            // silent and stopped from here: disconnect once rendered past it
        var ratePercent = 100                // setTempo's, which a stinger follows
        var transpose = 0                    // setTranspose's, which a stinger follows
        var priority = 0                     // a stinger's

        init(song: Song, node: SongNode, input: Int, layers: [String: Int], startTime: SampleTime) {
            self.song = song
            self.node = node
            self.input = input
            self.layers = layers
            self.startTime = startTime
        }
    }

    struct State {
        var current: Deck?
        var fading: [Deck] = []
        var stingers: [Deck] = []            // sounding or ringing out, oldest first
        var segments: [Deck] = []            // transition segments, playing or ringing out
        var transitions: [Place.Pair: Transition] = [:]   // the rules set, by (from, to)
        var scheduled: [Event] = []          // reported once the audio has rendered past them
        var parameters: [String: GameParameter] = [:]   // by lower-cased name
        var mappings: [ParameterMapping] = []
        var output: (any AudioOutput)?
        var delivery: Delivery?
        var events: [Event] = []             // reported, not yet polled, in time order
        var busEffects: [Bus: [BusEffect]] = [:]   // each bus's insert chain, in order

        /// The stingers not yet ringing out (neither finished nor displaced).
        var soundingStingers: [Deck] { stingers.filter { $0.retireAt == nil } }
    }

    /// The timer that polls events onto the caller's queue.
    struct Delivery: @unchecked Sendable {
        // @unchecked Sendable: a Dispatch source may be cancelled from any thread.
        let timer: DispatchSourceTimer
    }

    /// The configuration. Any thread.
    public let configuration: Configuration
    /// The graph `startOutput` or `render(into:)` pulls. Render thread once pulled.
    let graph: AudioGraph
    let clock: MusicClock
    let parameterBoard = ParameterBoard(capacity: Soundtrack.maxParameters)
    let effectBindings = EffectBindings()
    let master = MixerNode(metering: true)
    /// The songs' bus, into the master after `sounds` (so a compressor here can be keyed by it).
    let music = MixerNode()
    /// The sound effects' bus, into the master first.
    let sounds = MixerNode(capacity: 1)
    /// The return bus, into the master last: what the music and sounds send (`setSend`).
    let aux = MixerNode(capacity: 1)
    /// The aux bus's input: the music's and the sounds' sends.
    let returns: SendReturnNode
    /// What the music and the sounds feed (sends, compressors keyed by them): set up front.
    let taps: [Bus: SideChain]
    let soundEffects: SoundEffectsNode
    let state = ControlLock(State())
    let scratch: AudioBuffer         // the interleaved renders' planar slice
    let serial = Soundtrack.serials.add(1, ordering: .relaxed).newValue   // never reused, unlike an address
    static let serials = Atomic<UInt64>(0)
    let outputRunning = Atomic<Bool>(false)

    /// A soundtrack with nothing playing. Any thread.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        scratch = AudioBuffer(capacity: configuration.maxFrames)
        soundEffects = SoundEffectsNode(voices: configuration.soundEffectVoices)
        taps = [.music: SideChain(maxFrames: configuration.maxFrames), .sounds: SideChain(maxFrames: configuration.maxFrames),
                .aux: SideChain(maxFrames: configuration.maxFrames)]
        returns = SendReturnNode(music: taps[.music]!, sounds: taps[.sounds]!)
        clock = MusicClock(ParametersNode(board: parameterBoard, bindings: effectBindings, inner: master), fadeFrames: Int(configuration.pauseFadeSeconds * Double(configuration.sampleRate)))
        graph = AudioGraph(root: clock, format: AudioFormat(sampleRate: configuration.sampleRate), maxFrames: configuration.maxFrames)
        master.connect(sounds)
        master.connect(music)
        master.connect(aux)
        sounds.connect(soundEffects)
        aux.connect(returns)
        for (bus, tap) in taps { mixer(bus).inserts.feed(tap) }
        master.setLimiter(configuration.limiter)
    }
}
