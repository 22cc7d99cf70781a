import Testing
import CALSA
import CALSAShims
import CFluidSynthShims
import CFluidSynth
import CSndFile
import Foundation
import LazyLibraryProbe
import SoundFontBook

/// The C libraries the later layers wrap are installed, link, and are versions we build on.
@Suite("System libraries")
struct LinkageTests {
    @Test("libfluidsynth 2.x, alsa-lib 1.2, libsndfile 1.x are linked")
    func versions() {
        var major: Int32 = 0, minor: Int32 = 0, micro: Int32 = 0
        fluid_version(&major, &minor, &micro)
        #expect(major == 2)
        #expect(String(cString: snd_asoundlib_version()).hasPrefix("1.2"))
        #expect(String(cString: sf_version_string()).hasPrefix("libsndfile-1."))
    }

    @Test("a library opened on first use that is missing, or lacks a function, is one line that says which and what to install; asking again says the same")
    func lazyLibraryMessages() {
        let missing = probe_open_missing_library().map { String(cString: $0) }
        #expect(missing == "libpianola-probe.so.0 is not installed (install Debian's pianola-probe)")
        #expect(probe_open_missing_library().map { String(cString: $0) } == missing)
        let old = probe_open_library_without_function().map { String(cString: $0) }
        #expect(old == "libm.so.6 has no pianola_probe_other_function: it is older than Pianola needs (install Debian's libc6)")
    }

    @Test("the ALSA shim captures alsa-lib's error message instead of printing it")
    func alsaErrorCapture() {
        shim_alsa_capture_errors()
        defer { shim_alsa_restore_errors() }
        var pcm: OpaquePointer?
        let status = snd_pcm_open(&pcm, "pianola_no_such_device", SND_PCM_STREAM_PLAYBACK, 0)
        #expect(status < 0)
        var buffer = [CChar](repeating: 0, count: 512)
        let length = shim_take_last_error(&buffer, buffer.count)
        let message = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(message.contains("pianola_no_such_device"), "captured: \(message)")
        #expect(shim_take_last_error(&buffer, buffer.count) == 0)
    }

    @Test("the glib shim catches libinstpatch's messages while libfluidsynth reads a DLS bank, the first one kept, none once the capture ends")
    func glibMessageCapture() throws {
        // The sine bank with its pool table's cue moved off its wave: libinstpatch loads it,
        // warning through glib (Pianola's check refuses it first; this calls libfluidsynth directly).
        var bank = SoundFontBook.sineBank().serialized()
        let cue = bank.firstRange(of: Array("ptbl".utf8))!.lowerBound + 16
        bank.replaceSubrange(cue ..< cue + 4, with: [8, 0, 0, 0])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-glib-\(getpid()).dls").path
        try Data(bank).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let settings = new_fluid_settings()
        defer { delete_fluid_settings(settings) }
        let synth = new_fluid_synth(settings)
        defer { delete_fluid_synth(synth) }
        var buffer = [CChar](repeating: 0, count: 512)
        _ = shim_take_glib_message(&buffer, buffer.count)
        shim_glib_begin_capture()
        _ = fluid_synth_sfload(synth, path, 1)
        shim_glib_end_capture()
        let length = shim_take_glib_message(&buffer, buffer.count)
        let message = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(message.hasPrefix("Invalid wave pool entry (index=0)"), "captured: \(message)")
        #expect(shim_take_glib_message(&buffer, buffer.count) == 0)
    }
}
