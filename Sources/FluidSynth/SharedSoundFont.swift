import CFluidSynth
#if canImport(Glibc)
import Glibc
#endif

/// A SoundFont loaded once, with every sample in memory, and lent to any number of
/// synthesizers, built and rendering on any threads at once (a batch render). Borrowers only
/// read it: its samples never load or unload while they play, since the font is loaded whole.
/// Any thread.
///
/// libfluidsynth lets one loaded font sit in several synths (`fluid_synth_add_sfont`) and
/// frees a font with the synth that holds it, so the font lives in a synth of its own that
/// never renders, and borrowers take it out of their stack before they are deleted.
public final class SharedSoundFont: @unchecked Sendable {
    // @unchecked Sendable: after init, `font` is only read by borrowers; adding it to a synth
    // and taking it out (which write the font's id, the same value every time) hold `lending`.

    /// What messages call the font: its path or its bytes' name. Any thread.
    public let name: String
    private let owner: FluidSynthesizer
    let font: OpaquePointer
    private let lending: UnsafeMutablePointer<pthread_mutex_t>   // made once nothing can throw: a failed init runs no deinit

    /// Loads the SoundFont at `path`, every sample. Control thread.
    public convenience init(path: String) throws(SynthesizerError) {
        try self.init(name: path) { owner throws(SynthesizerError) in try owner.loadSoundFont(path: path) }
    }

    /// Loads the SoundFont held in `data`, every sample. Control thread.
    public convenience init(_ data: SoundFontData) throws(SynthesizerError) {
        try self.init(name: data.name) { owner throws(SynthesizerError) in try owner.loadSoundFont(data) }
    }

    private init(name: String, load: (FluidSynthesizer) throws(SynthesizerError) -> FluidSynthesizer.SoundFontID) throws(SynthesizerError) {
        var configuration = FluidSynthesizer.Configuration()
        configuration.lazySampleLoading = false
        configuration.polyphony = 1
        configuration.reverb = false
        configuration.chorus = false
        owner = try FluidSynthesizer(configuration: configuration)
        let id = try load(owner)
        guard let font = owner.soundFont(id) else { throw SynthesizerError(.soundFont(path: name), "loaded, then not found") }
        self.name = name
        self.font = font
        lending = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lending, nil)
    }

    deinit {
        pthread_mutex_destroy(lending)
        lending.deallocate()
    }

    /// Runs `body` while no other synthesizer adds or removes the font.
    func lend<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lending)
        defer { pthread_mutex_unlock(lending) }
        return body()
    }
}
