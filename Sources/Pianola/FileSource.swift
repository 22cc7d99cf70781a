import Synthesis
import AudioFile
import Engine
import FluidSynth
import MIDI
import Sequencing
import SoundFontModel

/// Where a song, SoundFont or audio file comes from: a path, or bytes already in memory (a
/// game's asset pack) with a name that messages use. Any thread.
public enum FileSource: Hashable, Sendable {
    /// The file at this path. Any thread.
    case path(String)
    /// These bytes, called `name` in messages. Any thread.
    case bytes([UInt8], name: String)

    /// What messages call it: the path, or the bytes' name. Any thread.
    public var name: String {
        switch self {
        case .path(let path): return path
        case .bytes(_, let name): return name
        }
    }

    /// Reads it as a Standard MIDI File into a sequence; errors name it. Control thread.
    public func musicSequence(mode: MIDIFile.ReadMode = .lenient) throws(MIDIFileError) -> MusicSequence {
        switch self {
        case .path(let path): return MusicSequence(file: try MIDIFile(contentsOf: path, mode: mode))
        case .bytes(let bytes, let name):
            do {
                return MusicSequence(file: try MIDIFile(bytes: bytes, mode: mode))
            } catch {
                throw MIDIFileError(error.problem, path: name)
            }
        }
    }

    /// Opens it as an audio file. Control thread.
    public func audioFileReader() throws(AudioFileError) -> AudioFileReader {
        switch self {
        case .path(let path): return try AudioFileReader(path: path)
        case .bytes(let bytes, let name): return try AudioFileReader(bytes: bytes, name: name)
        }
    }

    /// A SoundFont to load, as many times as needed: a path, or the bytes copied once. Control thread.
    var soundFont: SoundFontSource {
        switch self {
        case .path(let path): return .path(path)
        case .bytes(let bytes, let name): return .memory(SoundFontData(bytes: bytes, name: name))
        }
    }
}

/// A SoundFont ready to load into synthesizers: a file, bytes in memory shared by them all, a
/// font libfluidsynth loaded once and lends to them all, or one Pianola's reader read once
/// for its own engine. Any thread.
enum SoundFontSource: Sendable {
    case path(String)
    case memory(SoundFontData)
    case shared(SharedSoundFont)
    case model(SoundFont)

    /// A synthesizer with `configuration` and this font loaded, with every preset `sequence`
    /// can select loaded and pinned (so the render thread never reads the font). Control thread.
    func makeSynthesizer(configuration: FluidSynthesizer.Configuration, for sequence: MusicSequence) throws(SynthesizerError) -> FluidSynthesizer {
        try makeSynthesizer(configuration: configuration, selectedBy: sequence.messagesInTimeOrder)
    }

    /// A synthesizer with `configuration` and this font loaded, with every preset `messages`
    /// (a song's, in time order) can select loaded and pinned. Control thread.
    func makeSynthesizer(configuration: FluidSynthesizer.Configuration, selectedBy messages: some Swift.Sequence<MIDIMessage>) throws(SynthesizerError) -> FluidSynthesizer {
        let synthesizer = try FluidSynthesizer(configuration: configuration)
        switch self {
        case .path(let path): _ = try synthesizer.loadSoundFont(path: path)
        case .memory(let data): _ = try synthesizer.loadSoundFont(data)
        case .shared(let font): _ = try synthesizer.addSoundFont(font)
        case .model: preconditionFailure("a font Pianola's reader read plays on Pianola's own engine, which SongGraph chooses for it")
        }
        synthesizer.preloadPresets(selectedBy: messages)
        return synthesizer
    }
}
