import DSP
import Engine
import FluidSynth
import MIDI
import SoundFontModel
import SoundFontSynth
import Synthesis
#if canImport(Glibc)
import Glibc
#endif

/// Which synthesizer plays a song's SoundFont. Any thread.
public enum SynthesisEngine: String, CaseIterable, Hashable, Sendable {
    /// Pianola's own (`SoundFontSynth`): every event on its exact frame. SF2 and SF3 fonts
    /// (an SF3 through its decoded copy); a reverb and a chorus. Any thread.
    case pianola
    /// libfluidsynth, through the sampler node: events on the nearest 64-frame block edge;
    /// also plays DLS banks. Any thread.
    case fluidsynth
}

/// A SoundFont loaded once for many songs (a batch render), by the engine that will play
/// them: read by Pianola's reader for its own engine, or loaded whole by libfluidsynth (which
/// also plays what Pianola's engine cannot: DLS banks). Any thread.
public final class LoadedSoundFont: Sendable {
    /// The engine that plays it. Any thread.
    public let engine: SynthesisEngine
    /// Why libfluidsynth plays it when Pianola's own engine was asked for, else nil. Any thread.
    public let engineNote: String?
    let source: SoundFontSource

    /// The font at `path`, for `engine`; throws the font's one-line error. Control thread.
    public init(path: String, engine: SynthesisEngine) throws {
        let (resolved, note) = try SoundFontSource.path(path).resolved(for: engine)
        if case .model = resolved {
            (self.engine, engineNote, source) = (.pianola, nil, resolved)
        } else {
            (self.engine, engineNote, source) = (.fluidsynth, note, .shared(try SharedSoundFont(path: path)))
        }
    }
}

/// Each engine's configuration, for a song's synthesizers whichever engine plays them. Any thread.
struct EngineConfigurations: Hashable, Sendable {
    /// Pianola's own synthesizer's. Any thread.
    var pianola: SoundFontSynthesizer.Configuration
    /// libfluidsynth's. Any thread.
    var fluidSynth: FluidSynthesizer.Configuration

    /// Both, at `sampleRate`. Any thread.
    func at(sampleRate: Int) -> Self {
        var both = self
        both.pianola.sampleRate = Double(sampleRate)
        both.fluidSynth.sampleRate = Double(sampleRate)
        return both
    }
}

/// A synthesizer of either engine, made for a song: what the song's node plays. Control
/// thread until its node renders.
enum SongSynthesizer: @unchecked Sendable {
    // @unchecked Sendable: made on a control thread (or a loading thread) and handed over
    // whole; after that only its node's render thread uses it.
    case fluidsynth(FluidSynthesizer)
    case pianola(SoundFontSynthesizer)

    /// The graph node that plays it. Control thread.
    func makeNode() -> any AudioNode & MIDIDestination {
        switch self {
        case .fluidsynth(let synthesizer): FluidSynthNode(synthesizer: synthesizer)
        case .pianola(let synthesizer): SoundFontSynthNode(synthesizer: synthesizer)
        }
    }
}

extension SoundFontSource {
    /// The source `engine` plays: for Pianola's own, the font as its reader reads it
    /// (`.model`; an SF3 through the decoded copy libfluidsynth's path keeps) unless
    /// libfluidsynth must play it (a DLS bank, an SF3 that could not be decoded, a font
    /// libfluidsynth loaded), which the note then says; this source otherwise. A broken font
    /// throws its one-line error. Control thread.
    func resolved(for engine: SynthesisEngine) throws(SoundFontError) -> (source: SoundFontSource, note: String?) {
        guard engine == .pianola else { return (self, nil) }
        let reason: String
        switch self {
        case .model: return (self, nil)
        case .shared: reason = "the font was loaded by libfluidsynth (SharedSoundFont)"
        case .memory(let data):
            if data.isDLS { reason = "\(data.name) is a DLS bank"; break }
            let font = try SoundFont(bytes: Array(data.bytes), name: data.name)
            guard font.version.major >= 3 else { return (.model(font), nil) }
            reason = "\(data.name) is an SF3 in memory, which libfluidsynth decodes"
        case .path(let path):
            if Self.isDLS(path) { reason = "\(path) is a DLS bank"; break }
            let font = try SoundFont(path: path)
            guard font.version.major >= 3 else { return (.model(font), nil) }
            guard let decoded = DecodedSoundFonts.copy(of: path, in: DecodedSoundFonts.folder) else {
                reason = "\(path) is an SF3 whose samples could not be decoded to the cache"
                break
            }
            return (.model(try SoundFont(path: decoded)), nil)
        }
        return (self, "\(reason): libfluidsynth plays it")
    }

    /// A synthesizer with this font for a song whose messages (in time order) are `messages`,
    /// set up by its engine's configuration: Pianola's own for a `.model`, with the sample
    /// pages `touching` says read now (and the regions only of the presets that preload
    /// selects); libfluidsynth's with every preset the song can select loaded and pinned
    /// otherwise. Control thread.
    func makeSongSynthesizer(configurations: EngineConfigurations, selectedBy messages: some Swift.Sequence<MIDIMessage>,
                             touching: SoundFontSynthesizer.Touching) throws(SynthesizerError) -> SongSynthesizer {
        guard case .model(let font) = self else {
            return .fluidsynth(try makeSynthesizer(configuration: configurations.fluidSynth, selectedBy: messages))
        }
        let synthesizer = SoundFontSynthesizer(font: font, configuration: configurations.pianola, readingAllPresets: false)
        synthesizer.touchSamples(selectedBy: messages, touching: touching)
        return .pianola(synthesizer)
    }

    /// Whether the file at `path` is a RIFF DLS bank.
    private static func isDLS(_ path: String) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 12)
        return fread(&header, 1, 12, file) == 12 && header[0..<4].elementsEqual("RIFF".utf8) && header[8..<12].elementsEqual("DLS ".utf8)
    }
}

extension SoundFontSynthesizer {
    /// Which samples a synthesizer reads before it plays a song (its notes mapped from the file).
    enum Touching {
        /// The samples of the zones the song's notes play, transposed by this many semitones
        /// (channel 10 untransposed, as the player plays them).
        case notes(transposedBy: Int)
        /// Every sample of the presets the song's notes play (keys that can move while it plays).
        case presets
        /// Every sample of the font (notes played live).
        case font
    }

    /// Reads, off the render thread, the sample pages that `touching` says of what `messages`
    /// (a song's, in time order) play, running their bank selects, program changes,
    /// controllers (RPN tuning selects), resets, tunings and rhythm-part switches through the
    /// synthesizer; then resets it, as the song sets itself up from its start. Control
    /// thread, before rendering.
    func touchSamples(selectedBy messages: some Swift.Sequence<MIDIMessage>, touching: Touching) {
        if case .font = touching { touchAllSamples(); return }
        for message in messages {
            switch message {
            case .programChange(let channel, let program): programChange(channel: Int(channel), program: Int(program))
            case .controlChange(let channel, let controller, let value): controlChange(channel: Int(channel), controller: Int(controller), value: Int(value))
            case .noteOn(let channel, let key, let velocity) where velocity > 0:
                switch touching {
                case .notes(let semitones):
                    touchSamples(ofChannel: Int(channel), key: Int(key) + (channel == 9 ? 0 : semitones), velocity: Int(velocity))
                default: touchSamples(ofChannel: Int(channel), key: nil, velocity: 0)
                }
            case .sysex(let bytes):
                let body = bytes.dropFirst(bytes.first == 0xF0 ? 1 : 0).dropLast(bytes.last == 0xF7 ? 1 : 0)
                Array(body).withUnsafeBufferPointer { _ = systemExclusive($0) }
            default: break
            }
        }
        systemReset()
    }
}
