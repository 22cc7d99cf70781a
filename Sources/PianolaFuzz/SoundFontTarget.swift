import Glibc
import CFluidSynth
import CShims
import Engine
import FluidSynth
import MIDI
import SoundFontBook

/// Bytes as a SoundFont: loaded the way the sampler node's synthesizer loads one, then up to
/// four of its presets played through the sampler node. A font that cannot load is an error,
/// never a crash; Pianola's check refuses it before libfluidsynth reads it, and refuses
/// nothing libfluidsynth's own reader loads.
enum SoundFontTarget {
    static func run(_ bytes: [UInt8]) {
        let path = ScratchFile.write(bytes, extension: "sf2")
        defer { unlink(path) }
        var configuration = Synthesizer.Configuration()
        configuration.reverb = false
        configuration.chorus = false
        configuration.polyphony = 16
        configuration.decodedFontFolder = nil   // no cache written for every mutation
        guard let synthesizer = try? Synthesizer(configuration: configuration) else { return }
        let font: Synthesizer.SoundFontID
        do {
            font = try synthesizer.loadSoundFont(path: path)
        } catch {
            // A font libfluidsynth refuses after the check passed it goes on to libinstpatch,
            // which prints glib warnings (and leaks): the check must have refused it first.
            precondition(!error.libraryMessage.hasPrefix("Failed to load SoundFont"), "the check passed a font libfluidsynth refuses")
            precondition(!libfluidsynthReads(bytes), "the check refused a font libfluidsynth reads: \(error)")
            return
        }
        let presets = synthesizer.presets(of: font)
        let sampler = SamplerNode(synthesizer: synthesizer)
        let block = 256
        sampler.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: block)
        let buffer = AudioBuffer(capacity: block)
        var time: SampleTime = 0
        for preset in presets.prefix(4) {
            let channel: MIDIChannel = preset.bank == 128 ? 9 : 0
            let messages: [MIDIMessage] = [
                .controlChange(channel: channel, controller: 0, value: UInt8(clamping: preset.bank & 0x7F)),
                .programChange(channel: channel, program: UInt8(clamping: preset.program & 0x7F)),
                .noteOn(channel: channel, note: 60, velocity: 100),
            ]
            for message in messages { if let event = ScheduledMIDI(time: time, message) { sampler.schedule(event) } }
            for _ in 0..<2 {
                sampler.render(buffer.slice(frames: block), at: time)
                time += SampleTime(block)
            }
            if let off = ScheduledMIDI(time: time, .noteOff(channel: channel, note: 60, velocity: 0)) { sampler.schedule(off) }
            sampler.render(buffer.slice(frames: block), at: time)
            time += SampleTime(block)
        }
    }

    /// Whether libfluidsynth's own SoundFont reader, with no check before it, loads `bytes`
    /// (samples lazily: the structure is what counts). Read from memory, so a font it refuses
    /// never reaches libinstpatch: the loaders after it find no file by that name.
    static func libfluidsynthReads(_ bytes: [UInt8]) -> Bool {
        let settings = new_fluid_settings()
        defer { delete_fluid_settings(settings) }
        fluid_settings_setint(settings, "synth.dynamic-sample-loading", 1)
        let synth = new_fluid_synth(settings)
        defer { delete_fluid_synth(synth) }
        guard shim_fluid_add_memory_loader(synth, settings) == 0 else { return false }
        return bytes.withUnsafeBytes { font in
            var name = [CChar](repeating: 0, count: 64)
            shim_fluid_memory_name(&name, name.count, font.baseAddress, font.count)
            return fluid_synth_sfload(synth, name, 0) >= 0
        }
    }

    /// The project's test font, as its builder writes it.
    static func seeds() -> [(String, [UInt8])] {
        [("pianola-test", SoundFontBook.testFont().serialized())]
    }
}
