import Foundation
import Testing
import CFluidSynth
import CSndFile
@testable import FluidSynth
import SF2
import SoundFontBook

@Suite("SF3 fonts, and the check agreeing with libfluidsynth's reader")
struct SF3Tests {
    /// A folder of this run's own, for fonts the tests write.
    static let scratch: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-sf3-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// Writes `bytes` to `name` in the scratch folder and returns its path.
    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `sample`'s points as a mono Ogg Vorbis stream, encoded by libsndfile (libvorbis) at its
    /// best quality.
    static func vorbis(_ sample: SF2Sample) -> [UInt8] {
        let path = scratch.appendingPathComponent("\(UUID().uuidString).ogg").path
        defer { unlink(path) }
        var info = SF_INFO()
        info.samplerate = Int32(sample.sampleRate)
        info.channels = 1
        info.format = Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        let file = sf_open(path, Int32(SFM_WRITE), &info)!
        var quality = 1.0
        _ = sf_command(file, Int32(SFC_SET_VBR_ENCODING_QUALITY), &quality, Int32(MemoryLayout<Double>.size))
        _ = sample.data.withUnsafeBufferPointer { sf_write_short(file, $0.baseAddress, sf_count_t($0.count)) }
        sf_close(file)
        return Array(FileManager.default.contents(atPath: path)!)
    }

    /// `font` laid out as MuseScore's SF3 files are: 'smpl', and so 'sdta', an odd number of
    /// bytes long with no pad byte after them (one byte of sample data more or one pad byte
    /// less), 'pdta' straight after. libfluidsynth reads the lists back to back.
    static func withOddSampleData(_ font: [UInt8]) -> [UInt8] {
        func le32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(font[at + $1]) << (8 * $1) } }
        let sdta = 12 + 8 + le32(16), smpl = sdta + 12
        let smplLength = le32(smpl + 4), smplEnd = smpl + 8 + smplLength
        let grow = smplLength.isMultiple(of: 2) ? 1 : -1
        var odd = font
        if grow == 1 { odd.insert(0x55, at: smplEnd) } else { odd.remove(at: smplEnd) }
        for (at, value) in [(4, le32(4) + grow), (sdta + 4, le32(sdta + 4) + grow), (smpl + 4, smplLength + max(grow, 0))] {
            odd.replaceSubrange(at..<at + 4, with: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        return odd
    }

    /// Whether libfluidsynth's own reader loads the font at `path`, with no check before it
    /// (samples loaded lazily: only the structure is read).
    static func libfluidsynthLoads(_ path: String) -> Bool {
        let settings = new_fluid_settings()
        defer { delete_fluid_settings(settings) }
        fluid_settings_setint(settings, "synth.dynamic-sample-loading", 1)
        let synth = new_fluid_synth(settings)
        defer { delete_fluid_synth(synth) }
        return fluid_synth_sfload(synth, path, 0) >= 0
    }

    @Test("the test font as SF3 (its tones in Ogg Vorbis) plays A440 at the SF2's level, with or without a pad byte after an odd 'sdta'")
    func testFontAsSF3() throws {
        let sf3 = SoundFontBook.testFont().serialized(compressing: Self.vorbis)
        #expect(Array(sf3[8..<12]) == Array("sfbk".utf8) && Array(sf3[32..<36]) == [3, 0, 1, 0])   // ifil 3.1
        let padded = try Self.write(sf3, "test.sf3"), odd = try Self.write(Self.withOddSampleData(sf3), "test-odd.sf3")
        let sf2 = try Self.render(font: SoundFontTests.testFontPath)
        let compressed = try Self.render(font: padded)
        #expect(abs(SoundFontTests.frequency(compressed[4_800..<24_000]) - 440) < 0.05)
        let level = { (samples: [Float]) in 10 * log10(samples[4_800..<24_000].reduce(0) { $0 + Double($1 * $1) } / 19_200) }
        #expect(abs(level(compressed) - level(sf2)) < 0.2, "SF3 \(level(compressed)) dB, SF2 \(level(sf2)) dB")
        #expect(try Self.render(font: odd) == compressed)
    }

    /// Key 69 on the sine, held half a second, dry, from the font at `font` (an SF3 decoded
    /// into `cache`, or by libfluidsynth itself).
    static func render(font: String, cache: String? = nil) throws -> [Float] {
        try SoundFontTests.render(program: 0, key: 69, hold: 24_000, frames: 24_000, reverb: false, font: font, decodedFontFolder: cache)
    }

    /// The modification time of `path`, in nanoseconds.
    static func modified(_ path: String) -> Int {
        var info = stat()
        stat(path, &info)
        return info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
    }

    @Test("an SF3 is decoded once into the cache: the copy passes the check and plays exactly what libfluidsynth makes of the SF3; it is reused, remade when cut short or when the font changes, and skipped where it cannot be written")
    func decodedOnce() throws {
        let cache = Self.scratch.appendingPathComponent("cache-\(UUID().uuidString)").path
        let sf3 = try Self.write(SoundFontBook.testFont().serialized(compressing: Self.vorbis), "cached.sf3")
        let copy = try #require(DecodedSoundFonts.copy(of: sf3, in: cache))
        #expect(copy.hasPrefix(cache + "/cached.sf3-") && copy.hasSuffix(".sf2"))
        #expect(SoundFontCheck.problem(copy) == nil && Self.libfluidsynthLoads(copy))
        let direct = try Self.render(font: sf3)
        #expect(try Self.render(font: sf3, cache: cache) == direct)
        #expect(try Self.render(font: copy) == direct)
        // Reused: the same file, not written again.
        let written = Self.modified(copy)
        #expect(DecodedSoundFonts.copy(of: sf3, in: cache) == copy && Self.modified(copy) == written)
        // A copy cut short (or tampered with) is checked, removed and made again.
        let whole = try Data(contentsOf: URL(fileURLWithPath: copy))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: copy))
        #expect(DecodedSoundFonts.copy(of: sf3, in: cache) == copy)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == whole)
        // The font changed (one byte more of sample data): a new copy.
        _ = try Self.write(Self.withOddSampleData(try Array(Data(contentsOf: URL(fileURLWithPath: sf3)))), "cached.sf3")
        let changed = try #require(DecodedSoundFonts.copy(of: sf3, in: cache))
        let rerendered = try Self.render(font: sf3, cache: cache)
        #expect(changed != copy && rerendered == direct)
        // A folder that cannot be made (under a file): no copy, and libfluidsynth reads the SF3.
        #expect(DecodedSoundFonts.copy(of: sf3, in: "\(sf3)/cache") == nil)
        #expect(try Self.render(font: sf3, cache: "\(sf3)/cache") == direct)
        // An SF2 is never copied.
        #expect(DecodedSoundFonts.copy(of: SoundFontTests.testFontPath, in: cache) == nil)
    }

    @Test("Debian's MuseScore SF3 decoded into the cache holds the same presets and plays them as libfluidsynth plays the SF3")
    func museScoreDecoded() throws {
        let lite = "/usr/share/sounds/sf3/MuseScore_General_Lite.sf3"
        try #require(FileManager.default.fileExists(atPath: lite), "install musescore-general-soundfont-small (the README's setup does)")
        let cache = Self.scratch.appendingPathComponent("cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let copy = try #require(DecodedSoundFonts.copy(of: lite, in: cache))
        #expect(SoundFontCheck.problem(copy) == nil)
        /// A note on each of four programs and a snare (those on `channels`), from `font`, and the font's presets.
        func play(_ font: String, only channels: [Int] = [0, 1, 2, 3, 9]) throws -> (presets: [String], audio: [Float]) {
            var configuration = FluidSynthesizer.Configuration()
            configuration.decodedFontFolder = nil
            let synth = try FluidSynthesizer(configuration: configuration)
            let id = try synth.loadSoundFont(path: font)
            for (channel, program) in [(0, 0), (1, 24), (2, 48), (3, 73)] { synth.programChange(channel: channel, program: program) }
            for channel in channels { synth.noteOn(channel: channel, key: channel == 9 ? 38 : 60, velocity: 100) }
            var left = [Float](repeating: 0, count: 24_000), right = left
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in synth.render(left: l.baseAddress!, right: r.baseAddress!, frames: 24_000) }
            }
            return (synth.presets(of: id).map { "\($0.bank):\($0.program) \($0.name)" }, left + right)
        }
        let (sf3Presets, _) = try play(lite), (copyPresets, _) = try play(copy)
        #expect(sf3Presets.count > 128 && copyPresets == sf3Presets)
        // The looped tones exactly; a one-shot (the snare) to within 10⁻⁵ at its very end,
        // where libfluidsynth plays on through an SF2's 46 zero points but stops an SF3's at
        // its last point.
        let tones = try play(lite, only: [0, 1, 2, 3]).audio, snare = try play(lite, only: [9]).audio
        let copiedTones = try play(copy, only: [0, 1, 2, 3]).audio
        #expect(tones.contains { abs($0) > 0.01 } && copiedTones == tones)
        let copiedSnare = try play(copy, only: [9]).audio
        #expect(snare.contains { abs($0) > 0.01 } && zip(snare, copiedSnare).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    @Test("every font libfluidsynth loads here passes the check: the project's, the installed GM banks, Debian's SF3, odd 'sdta' layouts")
    func checkAgreesWithLibfluidsynth() throws {
        let installed = ["/usr/share/sounds/sf2", "/usr/share/sounds/sf3"].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map { "\(folder)/\($0)" }
        }
        let fonts = Set((installed + [SoundFontTests.testFontPath, SoundFontTests.gmFontPath]).map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
        let lite = "/usr/share/sounds/sf3/MuseScore_General_Lite.sf3"
        #expect(fonts.contains(lite), "install musescore-general-soundfont-small (the README's setup does): its SF3 is the case the check once refused")
        let written = [
            try Self.write(Self.withOddSampleData(SoundFontBook.testFont().serialized()), "test-odd.sf2"),
            try Self.write(Self.withOddSampleData(SoundFontBook.generalMIDIFont().serialized(compressing: Self.vorbis)), "gm-odd.sf3"),
        ]
        for font in fonts.sorted() + written {
            let problem = SoundFontCheck.problem(font)
            #expect(Self.libfluidsynthLoads(font) == (problem == nil), "\(font): libfluidsynth and the check disagree (\(problem ?? "the check passes it"))")
        }
    }
}
