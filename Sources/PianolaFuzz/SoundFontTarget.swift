import DSP
import Synthesis
import Glibc
import Engine
import FluidSynth
import MIDI
import SoundFontBook
import SoundFontModel
import SoundFontSynth

/// Bytes as a SoundFont: loaded the way the sampler node's synthesizer loads one, then up to
/// four of its presets played through the sampler node. A font that cannot load is an error,
/// never a crash; Pianola's check refuses it before libfluidsynth reads it, and refuses
/// nothing libfluidsynth's own reader loads. Pianola's own reader (SoundFontModel) reads
/// exactly the fonts libfluidsynth reads, finds every preset's regions for any key, and its
/// synthesizer plays up to four presets (every generator the file gives, however hostile)
/// with finite output.
enum SoundFontTarget {
    /// A SoundFont: what the check passes loads, what it refuses libfluidsynth refuses too.
    static func run(_ bytes: [UInt8]) {
        withLoaded(bytes, extension: "sf2") { result in
            switch result {
            case .success(let (synthesizer, font)):
                play(synthesizer, font)
                readByModel(bytes)
            case .failure(let error):
                require((try? SoundFont(bytes: bytes, name: "fuzz.sf2")) == nil, "the model reads a font libfluidsynth refuses")
                // A font libfluidsynth refuses after the check passed it goes on to libinstpatch,
                // which prints glib warnings (and leaks): the check must have refused it first.
                require(!error.libraryMessage.hasPrefix("Failed to load SoundFont"), "the check passed a font libfluidsynth refuses")
                require(libfluidsynthReads(bytes) != true, "the check refused a font libfluidsynth reads: \(error)")
            }
        }
    }

    /// A DLS bank: what the check passes goes to libinstpatch, which must load it (else the
    /// check let through a bank it should have refused in its own words) and play it.
    static func runDLS(_ bytes: [UInt8]) {
        withLoaded(bytes, extension: "dls") { result in
            switch result {
            case .success(let (synthesizer, font)):
                play(synthesizer, font)
            case .failure(let error):
                require(!error.libraryMessage.hasPrefix("Failed to load SoundFont"), "the check passed a bank libinstpatch refuses: \(error)")
            }
        }
    }

    /// `bytes` written to a scratch file named `.extension` and loaded the way the sampler
    /// node's synthesizer loads a font, then given to `body`; the file stays while `body`
    /// runs, as the samples may be read when a preset is chosen.
    private static func withLoaded(_ bytes: [UInt8], extension ext: String,
                                   _ body: (Result<(FluidSynthesizer, FluidSynthesizer.SoundFontID), SynthesizerError>) -> Void) {
        let path = ScratchFile.write(bytes, extension: ext)
        defer { unlink(path) }
        var configuration = FluidSynthesizer.Configuration()
        configuration.reverb = false
        configuration.chorus = false
        configuration.polyphony = 16
        configuration.decodedFontFolder = nil   // no cache written for every mutation
        do {
            let synthesizer = try FluidSynthesizer(configuration: configuration)
            body(.success((synthesizer, try synthesizer.loadSoundFont(path: path))))
        } catch {
            body(.failure(error))
        }
    }

    /// The font as Pianola's own reader reads it: it must, and every preset's regions are
    /// found for a spread of keys and velocities with their samples' data in bounds.
    private static func readByModel(_ bytes: [UInt8]) {
        let font: SoundFont
        do { font = try SoundFont(bytes: bytes, name: "fuzz.sf2") } catch { fail("libfluidsynth reads a font the model refuses: \(error)") }
        for preset in font.presets.prefix(16) {
            for key in stride(from: 0, through: 127, by: 9) {
                for region in font.regions(of: preset, key: UInt8(key), velocity: UInt8(key | 1)) {
                    let data = font.data(of: font.samples[region.sample])
                    require(data.isEmpty || data.baseAddress != nil, "a sample with points has no address")
                    _ = data.last
                }
            }
        }
        playByOwnSynthesizer(font, tunedBy: bytes)
    }

    /// Up to four of the font's presets played by Pianola's synthesizer, its reverb and chorus
    /// on and the sends full: a chord in an MTS octave tuning made of the font's first bytes,
    /// held under a moving wheel and volume, then released; the output must stay finite.
    private static func playByOwnSynthesizer(_ font: SoundFont, tunedBy bytes: [UInt8]) {
        let synthesizer = SoundFontSynthesizer(font: font, sampleRate: 48_000, polyphony: 32, reverb: Reverb.Settings(), chorus: Chorus.Settings())
        let tuning: [UInt8] = [0x7F, 0x7F, 0x08, 0x08, 0x03, 0x7F, 0x7F] + (0..<12).map { bytes[($0 * 131) % bytes.count] & 0x7F }
        tuning.withUnsafeBufferPointer { _ = synthesizer.systemExclusive($0) }
        for channel in [0, 9] {
            synthesizer.controlChange(channel: channel, controller: 91, value: 127)
            synthesizer.controlChange(channel: channel, controller: 93, value: 127)
        }
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 512), right = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { left.deallocate(); right.deallocate() }
        for preset in font.presets.prefix(4) {
            let channel = preset.bank == 128 ? 9 : 0
            synthesizer.controlChange(channel: channel, controller: 0, value: Int(preset.bank & 0x7F))
            synthesizer.programChange(channel: channel, program: Int(preset.program & 0x7F))
            for key in [36, 60, 64, 67, 96] { synthesizer.noteOn(channel: channel, key: key, velocity: 100) }
            for step in 0..<3 {
                synthesizer.pitchBend(channel: channel, value: 4_096 * (step + 1))
                synthesizer.controlChange(channel: channel, controller: 7, value: 127 - 40 * step)
                synthesizer.render(left: left, right: right, frames: 300 + step * 100)
                for i in 0..<300 + step * 100 { require(left[i].isFinite && right[i].isFinite, "Pianola's synthesizer made a non-finite sample") }
            }
            synthesizer.controlChange(channel: channel, controller: 123, value: 0)
            synthesizer.render(left: left, right: right, frames: 512)
        }
    }

    /// Up to four of the font's presets played through the sampler node.
    private static func play(_ synthesizer: FluidSynthesizer, _ font: FluidSynthesizer.SoundFontID) {
        let presets = synthesizer.presets(of: font)
        let sampler = FluidSynthNode(synthesizer: synthesizer)
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

    /// Whether libfluidsynth's own SoundFont reader, with no check before it, loads `bytes`,
    /// asked in a child process: libfluidsynth 2.3 leaks an instrument (48 bytes) when one of
    /// its zones fails to import, on fonts the check refuses (so only this question meets it),
    /// and that leak is libfluidsynth's, not the target's. Nil when the machine could not
    /// answer (no child could be made or waited for): a busy machine is not a finding.
    static func libfluidsynthReads(_ bytes: [UInt8]) -> Bool? {
        // A SIGCHLD ignored by whoever started the fuzzer (the disposition survives exec)
        // would reap the child before it is waited for: it must be the default here.
        signal(SIGCHLD, SIG_DFL)
        let child = fork()
        if child == 0 { _exit(FluidSynthesizer.libraryReads(bytes) ? 0 : 1) }
        guard child > 0 else { return nil }
        var status: Int32 = 0
        var waited = waitpid(child, &status, 0)
        while waited < 0 && errno == EINTR { waited = waitpid(child, &status, 0) }
        guard waited == child else { return nil }
        return status & 0x7F == 0 && (status >> 8) & 0xFF == 0   // exited, with 0
    }

    /// The project's test font, as its builder writes it.
    static func seeds() -> [(String, [UInt8])] {
        [("pianola-test", SoundFontBook.testFont().serialized())]
    }
}
