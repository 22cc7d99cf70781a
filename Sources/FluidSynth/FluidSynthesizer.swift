import Faults
import SoundFontModel
import CFluidSynth
import CFluidSynthShims
#if canImport(Glibc)
import Glibc
#endif

/// A libfluidsynth synthesizer: its settings, its SoundFonts, and the MIDI and render calls.
///
/// Thread rules (`synth.threadsafe-api` is off, so libfluidsynth takes no lock): build it and
/// load its fonts on a control thread, then hand it to one render thread, which alone makes
/// every MIDI and render call from then on. Loading a font takes the synth's time for the
/// whole load, so a font change builds a fresh synthesizer and swaps it in.
public final class FluidSynthesizer: @unchecked Sendable {
    // @unchecked Sendable: the instance moves between threads but is used by one at a time,
    // as the type's doc says; the synth itself is built single-threaded (threadsafe-api 0).

    /// Synthesis settings. Any thread.
    public struct Configuration: Hashable, Sendable {
        /// Output sample rate in Hz. Any thread.
        public var sampleRate: Double = 48_000
        /// Most voices sounding at once. Any thread.
        public var polyphony: Int = 256
        /// Reverb on (FluidSynth's default). Any thread.
        public var reverb = true
        /// Chorus on (FluidSynth's default). Any thread.
        public var chorus = true
        /// Output gain (FluidSynth's default 0.2). Any thread.
        public var gain: Double = 0.2
        /// Load sample data only when a preset is selected (on by default): far less memory
        /// and a far quicker start with large General MIDI fonts. Selecting a preset then reads
        /// the font, so before rendering, `preloadPresets` loads and pins every preset a song
        /// can select, off the render thread. Any thread.
        public var lazySampleLoading = true
        /// Where an SF3 font loaded by path is kept decoded as an SF2 after its first load
        /// (`DecodedSoundFonts`); `nil`: libfluidsynth decodes it at every load. Any thread.
        public var decodedFontFolder: String? = DecodedSoundFonts.folder
        /// MIDI channels. Any thread.
        public var channels = 16
        /// How bank select (CC0/CC32) and the resets are read: the MIDI standard each song was
        /// written for. Any thread.
        public var bankSelect: BankSelect = .gs

        /// libfluidsynth's `synth.midi-bank-select` styles. Any thread.
        public enum BankSelect: String, Hashable, Sendable, CaseIterable {
            /// General MIDI: bank select ignored. Any thread.
            case gm
            /// Roland GS: CC0 selects the bank, CC32 ignored (libfluidsynth's default). Any thread.
            case gs
            /// Yamaha XG: CC0 127 selects drums, CC32 the bank. Any thread.
            case xg
            /// MMA: CC0 × 128 + CC32. Any thread.
            case mma
        }

        /// The defaults. Any thread.
        public init() {}
    }

    /// A loaded SoundFont's handle. Any thread.
    public struct SoundFontID: Hashable, Sendable {
        /// FluidSynth's font id.
        let raw: Int32
    }

    /// A preset of a loaded font. Any thread.
    public struct Preset: Hashable, Sendable {
        /// Bank (128 = percussion). Any thread.
        public var bank: Int
        /// Program, 0...127. Any thread.
        public var program: Int
        /// Name. Any thread.
        public var name: String
    }

    private let settings: OpaquePointer
    private let synth: OpaquePointer
    private var memoryFonts: [SoundFontData] = []   // the bytes of fonts loaded from memory, read as long as the synth lives
    private var borrowedFonts: [SharedSoundFont] = []  // fonts lent by others, taken out of the stack before the synth is deleted
    /// The settings it was made with. Any thread.
    public let configuration: Configuration

    /// Makes a synthesizer; throws if libfluidsynth refuses the settings. Control thread.
    public init(configuration: Configuration = Configuration()) throws(SynthesizerError) {
        if let missing = Self.missingLibrary { throw SynthesizerError(.creation, missing) }
        _ = Self.captureLibraryErrors
        _ = Self.libraryInitialized
        self.configuration = configuration
        guard let settings = new_fluid_settings() else { throw SynthesizerError(.creation, Self.lastLibraryError()) }
        fluid_settings_setint(settings, "synth.threadsafe-api", 0)
        fluid_settings_setnum(settings, "synth.sample-rate", configuration.sampleRate)
        fluid_settings_setint(settings, "synth.polyphony", Int32(clamping: configuration.polyphony))
        fluid_settings_setint(settings, "synth.reverb.active", configuration.reverb ? 1 : 0)
        fluid_settings_setint(settings, "synth.chorus.active", configuration.chorus ? 1 : 0)
        fluid_settings_setnum(settings, "synth.gain", configuration.gain)
        fluid_settings_setint(settings, "synth.dynamic-sample-loading", configuration.lazySampleLoading ? 1 : 0)
        fluid_settings_setint(settings, "synth.midi-channels", Int32(clamping: configuration.channels))
        fluid_settings_setstr(settings, "synth.midi-bank-select", configuration.bankSelect.rawValue)
        guard let synth = new_fluid_synth(settings) else {
            delete_fluid_settings(settings)
            throw SynthesizerError(.creation, Self.lastLibraryError())
        }
        guard shim_fluid_add_memory_loader(synth, settings) == 0 else {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
            throw SynthesizerError(.creation, "cannot make the SoundFont loader")
        }
        self.settings = settings
        self.synth = synth
    }

    deinit {
        for shared in borrowedFonts {
            shared.lend { _ = fluid_synth_remove_sfont(synth, shared.font) }
        }
        delete_fluid_synth(synth)
        delete_fluid_settings(settings)
    }

    /// Loads a SoundFont (SF2, or SF3 where libfluidsynth was built with it, decoded once
    /// into `configuration.decodedFontFolder`) on top of the fonts already loaded; presets
    /// resolve to the newest font that has them. Control thread, before the synthesizer renders.
    public func loadSoundFont(path: String) throws(SynthesizerError) -> SoundFontID {
        // libfluidsynth hands files it cannot read to libinstpatch, which prints glib warnings
        // for junk: check the RIFF structure first.
        if let problem = SoundFontCheck.problem(path) { throw SynthesizerError(.soundFont(path: path), problem) }
        let readable = DecodedSoundFonts.copy(of: path, in: configuration.decodedFontFolder) ?? path
        _ = Self.lastLibraryError()
        let id = load(readable)
        guard id >= 0 else { throw SynthesizerError(.soundFont(path: path), Self.lastLibraryError()) }
        return SoundFontID(raw: id)
    }

    /// Loads a SoundFont held in memory, as `loadSoundFont(path:)` loads a file. The synthesizer
    /// keeps `font` alive as long as it lives. Control thread, before the synthesizer renders.
    public func loadSoundFont(_ font: SoundFontData) throws(SynthesizerError) -> SoundFontID {
        if let problem = SoundFontCheck.problem(font.bytes) { throw SynthesizerError(.soundFont(path: font.name), problem) }
        _ = Self.lastLibraryError()
        var name = [CChar](repeating: 0, count: 64)
        if let file = font.file {
            // A DLS bank: libinstpatch reads files only, so it reads the bank's file in memory.
            name = Array("/proc/self/fd/\(file)".utf8CString)
        } else {
            shim_fluid_memory_name(&name, name.count, font.bytes.baseAddress, font.bytes.count)
        }
        let id = load(name)
        guard id >= 0 else { throw SynthesizerError(.soundFont(path: font.name), Self.lastLibraryError()) }
        memoryFonts.append(font)
        return SoundFontID(raw: id)
    }

    /// Puts the already loaded `shared` on top of the fonts loaded so far, without reading or
    /// copying it; the synthesizer keeps it alive as long as it lives. Control thread, before
    /// the synthesizer renders.
    public func addSoundFont(_ shared: SharedSoundFont) throws(SynthesizerError) -> SoundFontID {
        let id = shared.lend { fluid_synth_add_sfont(synth, shared.font) }
        guard id >= 0 else { throw SynthesizerError(.soundFont(path: shared.name), Self.lastLibraryError()) }
        borrowedFonts.append(shared)
        _ = fluid_synth_program_reset(synth)
        return SoundFontID(raw: id)
    }

    /// libfluidsynth's font behind `id`, `nil` if none.
    func soundFont(_ id: SoundFontID) -> OpaquePointer? { fluid_synth_get_sfont_by_id(synth, id.raw) }

    /// The presets of a loaded font, by bank then program. Control thread.
    public func presets(of font: SoundFontID) -> [Preset] {
        guard let sfont = soundFont(font) else { return [] }
        var presets: [Preset] = []
        fluid_sfont_iteration_start(sfont)
        while let preset = fluid_sfont_iteration_next(sfont) {
            presets.append(Preset(bank: Int(fluid_preset_get_banknum(preset)), program: Int(fluid_preset_get_num(preset)),
                                  name: fluid_preset_get_name(preset).map { String(cString: $0) } ?? ""))   // a DLS instrument may have no name
        }
        return presets.sorted { ($0.bank, $0.program) < ($1.bank, $1.program) }
    }

    /// Pins the preset `channel` has selected now: its samples are loaded (read from the font
    /// here, when loading lazily) and stay loaded whatever the channel selects later, so
    /// selecting it again on the render thread reads nothing. Returns whether the channel has
    /// a preset. Control thread, before the synthesizer renders.
    @discardableResult
    public func pinChannelPreset(channel: Int) -> Bool {
        guard let preset = fluid_synth_get_channel_preset(synth, Int32(channel)), let font = fluid_preset_get_sfont(preset) else { return false }
        return fluid_synth_pin_preset(synth, fluid_sfont_get_id(font), fluid_preset_get_banknum(preset), fluid_preset_get_num(preset)) == FLUID_OK
    }

    /// Back to the power-on state: every channel's program, bank and controllers reset, all
    /// voices off (pinned presets stay loaded). Control thread, before the synthesizer renders.
    public func systemReset() { _ = fluid_synth_system_reset(synth) }

    // MARK: Render thread

    /// Note on (velocity 0 is note off). Render thread only.
    @inline(__always) public func noteOn(channel: Int, key: Int, velocity: Int) {
        _ = fluid_synth_noteon(synth, Int32(channel), Int32(key), Int32(velocity))
    }

    /// Note off. Render thread only.
    @inline(__always) public func noteOff(channel: Int, key: Int) {
        _ = fluid_synth_noteoff(synth, Int32(channel), Int32(key))
    }

    /// Control change. Render thread only.
    @inline(__always) public func controlChange(channel: Int, controller: Int, value: Int) {
        _ = fluid_synth_cc(synth, Int32(channel), Int32(controller), Int32(value))
    }

    /// The value controller `controller` (0...127) of `channel` stands at, -1 if there is no
    /// such channel or controller. Render thread only (or while nothing renders).
    public func controller(channel: Int, _ controller: Int) -> Int {
        var value: Int32 = 0
        return fluid_synth_get_cc(synth, Int32(channel), Int32(controller), &value) == FLUID_OK ? Int(value) : -1
    }

    /// Program change (the bank comes from CC0/CC32 as sent). Render thread only.
    @inline(__always) public func programChange(channel: Int, program: Int) {
        _ = fluid_synth_program_change(synth, Int32(channel), Int32(program))
    }

    /// Pitch bend, 0...16383, centre 8192. Render thread only.
    @inline(__always) public func pitchBend(channel: Int, value: Int) {
        _ = fluid_synth_pitch_bend(synth, Int32(channel), Int32(value))
    }

    /// Channel pressure. Render thread only.
    @inline(__always) public func channelPressure(channel: Int, pressure: Int) {
        _ = fluid_synth_channel_pressure(synth, Int32(channel), Int32(pressure))
    }

    /// Polyphonic key pressure. Render thread only.
    @inline(__always) public func keyPressure(channel: Int, key: Int, pressure: Int) {
        _ = fluid_synth_key_pressure(synth, Int32(channel), Int32(key), Int32(pressure))
    }

    /// A system-exclusive message without its `F0`/`F7` framing (GM/GS/XG resets, tuning…).
    /// Render thread only.
    @inline(__always) public func systemExclusive(_ data: UnsafeBufferPointer<UInt8>) {
        guard let base = data.baseAddress, !data.isEmpty else { return }
        base.withMemoryRebound(to: CChar.self, capacity: data.count) {
            _ = fluid_synth_sysex(synth, $0, Int32(data.count), nil, nil, nil, 0)
        }
    }

    /// Releases every note on `channel` (or every channel for -1), as note-offs do. Render thread only.
    @inline(__always) public func allNotesOff(channel: Int = -1) {
        _ = fluid_synth_all_notes_off(synth, Int32(channel))
    }

    /// Silences every voice on `channel` (or every channel for -1) at once. Render thread only.
    @inline(__always) public func allSoundsOff(channel: Int = -1) {
        _ = fluid_synth_all_sounds_off(synth, Int32(channel))
    }

    /// Voices sounding now. Render thread only.
    public var activeVoiceCount: Int { Int(fluid_synth_get_active_voice_count(synth)) }

    /// Renders `frames` frames of stereo audio into two non-interleaved float buffers (written,
    /// not mixed). libfluidsynth computes 64 frames at a time: events sent between calls take
    /// effect at its next 64-frame block. Render thread only.
    @inline(__always) public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        _ = fluid_synth_write_float(synth, Int32(frames), left, 0, 1, right, 0, 1)
    }

    /// How many times libfluidsynth has read SoundFont data on the calling thread, from any
    /// synthesizer: what a test of the render thread's no-I/O rule counts. Any thread.
    public static var fontReadsOnThisThread: Int { shim_fluid_font_reads() }

    /// libfluidsynth's render block: 64 frames. Any thread.
    public static let blockSize = 64

    // MARK: Library errors

    private static let captureLibraryErrors: Void = shim_fluid_capture_errors()

    /// Why libfluidsynth cannot be opened (it is opened on first use, not linked), nil once it is.
    private static let missingLibrary: String? = cfluidsynth_open().map { String(cString: $0) }

    /// Whether libfluidsynth's own SoundFont reader, with no check before it, loads `bytes`
    /// (samples lazily: the structure is what counts): what the fuzzers compare the check
    /// with. Read from memory, so a font it refuses never reaches libinstpatch. Control thread.
    public static func libraryReads(_ bytes: [UInt8]) -> Bool {
        guard missingLibrary == nil else { return false }
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

    /// libfluidsynth's `sfload` of `name`, libinstpatch's glib messages caught meanwhile.
    private func load(_ name: UnsafePointer<CChar>) -> Int32 {
        shim_glib_begin_capture()
        defer { shim_glib_end_capture() }
        return fluid_synth_sfload(synth, name, 1)
    }

    /// libfluidsynth builds its global tables (the default modulators among them) in the first
    /// new_fluid_synth, and a second thread making a synth meanwhile goes on without waiting,
    /// with half-built defaults (its notes came out about 10 dB too loud when a game loaded two
    /// songs at once). So one synth is made and dropped here first; Swift's static `let` makes
    /// every other thread wait until it is done.
    private static let libraryInitialized: Void = {
        let settings = new_fluid_settings()
        delete_fluid_synth(new_fluid_synth(settings))
        delete_fluid_settings(settings)
    }()

    /// Takes the calling thread's last library message, "" if none: libinstpatch's first (it
    /// says what went wrong in a DLS bank before libfluidsynth says the load failed), else
    /// libfluidsynth's last.
    static func lastLibraryError() -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let glib = shim_take_glib_message(&buffer, buffer.count)
        let length = glib > 0 ? min(glib, buffer.count - 1) : shim_take_last_error(&buffer, buffer.count)
        if glib > 0 { _ = shim_take_last_error(nil, 0) }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A SoundFont's bytes held in memory (a game's asset pack), copied once and shared by every
/// synthesizer that loads it. Any thread.
public final class SoundFontData: @unchecked Sendable {
    // @unchecked Sendable: the bytes are written once, in init, and only read after.

    /// What messages call the font. Any thread.
    public let name: String
    /// The bytes. Any thread.
    public let bytes: UnsafeRawBufferPointer
    /// Whether they are a DLS bank (else a SoundFont, or neither). Any thread.
    public var isDLS: Bool { file != nil }
    private let storage: UnsafeMutableRawBufferPointer

    /// For a DLS bank, the descriptor of a file in memory holding it (libinstpatch reads files only).
    let file: Int32?

    /// A copy of `bytes`, called `name` in messages. Any thread.
    public init(bytes: [UInt8], name: String) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        self.storage = storage
        self.bytes = UnsafeRawBufferPointer(rebasing: storage[0..<bytes.count])
        self.name = name
        let isDLS = bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("DLS ".utf8)
        let file = isDLS ? shim_memory_file(name, storage.baseAddress, bytes.count) : -1
        self.file = file >= 0 ? file : nil
    }

    deinit {
        if let file { close(file) }
        storage.deallocate()
    }
}

/// A synthesizer that could not be made, or a SoundFont that could not be loaded, with
/// libfluidsynth's own words. Any thread.
public struct SynthesizerError: Fault, Hashable, Sendable {
    /// A file's fault: the SoundFont, or libfluidsynth itself missing. Any thread.
    public var kind: FaultKind { .file }
    /// What failed. Any thread.
    public enum Operation: Hashable, Sendable {
        /// Making the synthesizer. Any thread.
        case creation
        /// Loading the font at `path`. Any thread.
        case soundFont(path: String)
    }

    /// What failed. Any thread.
    public var operation: Operation
    /// libfluidsynth's message, if it gave one. Any thread.
    public var libraryMessage: String

    init(_ operation: Operation, _ libraryMessage: String) {
        self.operation = operation
        self.libraryMessage = libraryMessage
    }

    /// One line: what, where, why. Any thread.
    public var description: String {
        let why = libraryMessage.isEmpty ? "" : ": \(libraryMessage)"
        switch operation {
        case .creation: return "cannot start the synthesizer\(why)"
        case .soundFont(let path): return "\(path): cannot load SoundFont\(why)"
        }
    }
}

extension FluidSynthesizer: SoundFontPlayer {}
