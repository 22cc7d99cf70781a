import FluidSynth
import Foundation
import SoundFontBook
import Testing

@Suite("DLS banks, read by libinstpatch through libfluidsynth, behind Pianola's structure check")
struct DLSTests {
    /// The sine bank as the tests write it.
    static let sine = SoundFontBook.sineBank().serialized()

    @Test("a DLS bank the tests write (the test font's sine) plays A440 at key 69 and middle C at key 60, at the SF2 sine's level")
    func sineBank() throws {
        let bank = try SF3Tests.write(Self.sine, "sine.dls")
        let a = try SoundFontTests.render(program: 0, key: 69, hold: 24_000, frames: 24_000, reverb: false, font: bank)
        let c = try SoundFontTests.render(program: 0, key: 60, hold: 24_000, frames: 24_000, reverb: false, font: bank)
        let sf2 = try SoundFontTests.render(program: 0, key: 69, hold: 24_000, frames: 24_000, reverb: false)
        #expect(abs(SoundFontTests.frequency(a[4_800..<24_000]) - 440) < 0.01)
        #expect(abs(SoundFontTests.frequency(c[4_800..<24_000]) - 440 * pow(2, -9.0 / 12)) < 0.01)
        let level = { (samples: [Float]) in 10 * log10(samples[4_800..<24_000].reduce(0) { $0 + Double($1 * $1) } / 19_200) }
        // The sample's peak is 0.8 of full scale; the synthesizer's gain 0.2 and its centre pan
        // (half to each side) make a sine of peak 0.08, whose level is 20·log10(0.08/√2).
        #expect(abs(level(a) - 20 * log10(0.08 / 2.0.squareRoot())) < 0.1, "DLS \(level(a)) dB")
        #expect(abs(level(a) - level(sf2)) < 0.1, "DLS \(level(a)) dB, SF2 \(level(sf2)) dB")
    }

    @Test("a DLS bank held in memory loads too (libinstpatch reads it as an anonymous file in memory), with its instrument as a preset")
    func fromMemory() throws {
        let synthesizer = try FluidSynthesizer()
        let font = try synthesizer.loadSoundFont(SoundFontData(bytes: Self.sine, name: "sine.dls"))
        #expect(synthesizer.presets(of: font).map { "\($0.bank):\($0.program) \($0.name)" } == ["0:0 Sine"])
        var broken = Self.sine
        broken[broken.firstRange(of: Array("colh".utf8))!.lowerBound + 8] = 3
        #expect(throws: SynthesizerError.self) { try synthesizer.loadSoundFont(SoundFontData(bytes: broken, name: "broken.dls")) }
    }

    @Test("an instrument with no name (no INAM in its INFO list) lists as a preset with an empty name, not a crash (found by the dls fuzz target)")
    func unnamedInstrument() throws {
        var bank = Self.sine
        let insh = bank.firstRange(of: Array("insh".utf8))!.lowerBound
        let name = bank[insh...].firstRange(of: Array("INAM".utf8))!.lowerBound   // the instrument's, after its header
        bank.replaceSubrange(name ..< name + 4, with: Array("ICMT".utf8))
        let synthesizer = try FluidSynthesizer()
        let font = try synthesizer.loadSoundFont(path: try SF3Tests.write(bank, "unnamed.dls"))
        #expect(synthesizer.presets(of: font).map { "\($0.bank):\($0.program) '\($0.name)'" } == ["0:0 ''"])
    }

    /// `Self.sine` with `bytes` written at the first place `pattern` occurs (plus `offset`).
    static func mutated(_ pattern: String, offset: Int, _ bytes: [UInt8]) -> (bytes: [UInt8], at: Int) {
        var bank = sine
        let at = bank.firstRange(of: Array(pattern.utf8))!.lowerBound + offset
        bank.replaceSubrange(at ..< at + bytes.count, with: bytes)
        return (bank, at)
    }

    @Test("the structure check refuses, in one line with its byte, what libinstpatch would trust: a pool-table cue outside the wave pool, counts that disagree, a wave link past the table, a wave that is not PCM, loops that do not fill their 'wsmp' (found by the dls fuzz target), a chunk past its list")
    func checkRefuses() throws {
        let cue = Self.mutated("ptbl", offset: 16, [0xFF, 0xFF, 0xFF, 0x7F])
        let instruments = Self.mutated("colh", offset: 8, [2])
        let link = Self.mutated("wlnk", offset: 16, [5])
        let float = Self.mutated("fmt ", offset: 8, [3])
        let regions = Self.mutated("insh", offset: 8, [2])
        let cut = Array(Self.sine.dropLast(40))
        let loops = Self.mutated("wsmp", offset: 24, [0])
        let cases: [(String, [UInt8], String)] = [
            ("cue", cue.bytes, "byte \(cue.at): pool table cue 0 points at byte 2147483647 of the wave pool, where no 'wave' list starts"),
            ("colh", instruments.bytes, "byte \(instruments.at): 'colh' says 2 instruments, the instrument list holds 1"),
            ("wlnk", link.bytes, "byte \(link.at): a region plays pool table cue 5, of 1"),
            ("fmt", float.bytes, "byte \(float.at - 20): a wave that is not 8- or 16-bit PCM, mono or stereo (format 3, 1 channels, 16 bits, 44000 Hz, 2-byte frames)"),
            ("insh", regions.bytes, "byte \(regions.at): 'insh' says 2 regions, the instrument holds 1"),
            ("wsmp", loops.bytes, "byte \(loops.at - 16): 'wsmp' claims 0 loops after a 20-byte header; it holds 36 bytes"),
            ("cut", cut, "byte 4: the RIFF chunk claims \(Self.sine.count - 8) bytes, the file holds \(cut.count - 8) after its header"),
        ]
        for (name, bytes, says) in cases {
            let path = try SF3Tests.write(bytes, "\(name).dls")
            do {
                _ = try FluidSynthesizer().loadSoundFont(path: path)
                Issue.record("\(name): loaded")
            } catch {
                #expect(error.description == "\(path): cannot load SoundFont: \(says)", "\(name)")
            }
        }
    }
}
