import Foundation
import Testing
import FluidSynth
import SF2
@testable import SoundFontBook

@Suite("The project's SoundFonts")
struct SoundFontTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let testFontPath = root.appendingPathComponent("soundfonts/pianola-test.sf2").path
    static let gmFontPath = root.appendingPathComponent("soundfonts/pianola-gm.sf2").path

    @Test("soundfonts/ holds exactly what SoundFontBook writes")
    func reproducible() throws {
        for (path, font) in [(Self.testFontPath, SoundFontBook.testFont()), (Self.gmFontPath, SoundFontBook.generalMIDIFont())] {
            let committed = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(Array(committed) == font.serialized(), "\(path) is stale: run `swift run make-soundfonts`")
        }
    }

    @Test("libfluidsynth loads both fonts with the presets they promise")
    func presets() throws {
        let synth = try FluidSynthesizer()
        let test = try synth.loadSoundFont(path: Self.testFontPath)
        #expect(synth.presets(of: test).map { "\($0.bank):\($0.program) \($0.name)" } == ["0:0 Sine", "0:1 Square", "0:2 Click", "128:0 Click Kit"])
        let gm = try synth.loadSoundFont(path: Self.gmFontPath)
        let presets = synth.presets(of: gm)
        #expect(presets.filter { $0.bank == 0 }.map(\.program) == Array(0..<128))
        #expect(presets.contains { $0.bank == 128 && $0.program == 0 })
        #expect(presets.first { $0.program == 73 }?.name == "Flute")
    }

    @Test("a file that is not a SoundFont is refused with its path")
    func notASoundFont() throws {
        let synth = try FluidSynthesizer()
        let path = Self.root.appendingPathComponent("README.md").path
        #expect {
            _ = try synth.loadSoundFont(path: path)
        } throws: { error in
            "\(error)" == "\(path): cannot load SoundFont: not a SoundFont (no RIFF header)"
        }
    }

    @Test("a font whose records point outside their chunks is refused in one line before libfluidsynth reads it")
    func brokenReferences() throws {
        // Found by the soundfont fuzz target: libfluidsynth refuses such a font, hands it to
        // libinstpatch (glib CRITICAL lines on stderr) and leaks 48 bytes.
        let font = SoundFontBook.testFont().serialized()
        /// The body offset of the first chunk called `name`.
        func body(_ name: String) -> Int { font.indices.first { Array(font[$0..<$0 + 4]) == Array(name.utf8) }! + 8 }
        let igen = body("igen")
        let sampleGenerator = stride(from: igen, to: igen + 400, by: 4).first { font[$0] == 53 && font[$0 + 1] == 0 }!
        var badSample = font
        badSample[sampleGenerator + 2] = 63
        let pbag = body("pbag")
        var badBag = font
        badBag[pbag + 4] = 0xFF   // the second bag's generator index, past the end of 'pgen'
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-sf-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let cases = [(badSample, "byte \(sampleGenerator + 2): 'igen' record \((sampleGenerator - igen) / 4) names sample 63, which does not exist"),
                     (badBag, "byte \(pbag + 4): 'pbag' record 1 points to generator 255, out of order or past")]
        for (index, (bytes, says)) in cases.enumerated() {
            let path = scratch.appendingPathComponent("broken-\(index).sf2").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect {
                _ = try FluidSynthesizer().loadSoundFont(path: path)
            } throws: { error in
                "\(error)".hasPrefix("\(path): cannot load SoundFont: \(says)")
            }
        }
    }

    /// Renders `frames` frames (left channel) of `key` on `program` of the font at `font`
    /// (the test font unless told), the note held for `hold` frames from frame 0. SF3 fonts
    /// are decoded into `decodedFontFolder` (none: libfluidsynth decodes them itself).
    static func render(program: Int, key: Int, velocity: Int = 127, hold: Int, frames: Int, reverb: Bool = true,
                       font: String = testFontPath, decodedFontFolder: String? = nil) throws -> [Float] {
        var configuration = FluidSynthesizer.Configuration()
        configuration.reverb = reverb
        configuration.decodedFontFolder = decodedFontFolder
        let synth = try FluidSynthesizer(configuration: configuration)
        _ = try synth.loadSoundFont(path: font)
        synth.programChange(channel: 0, program: program)
        var left = [Float](repeating: 0, count: frames), right = left
        synth.noteOn(channel: 0, key: key, velocity: velocity)
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                synth.render(left: l.baseAddress!, right: r.baseAddress!, frames: hold)
                synth.noteOff(channel: 0, key: key)
                synth.render(left: l.baseAddress! + hold, right: r.baseAddress! + hold, frames: frames - hold)
            }
        }
        return left
    }

    /// Frequency from the spacing of upward zero crossings (interpolated), over `samples`.
    static func frequency(_ samples: ArraySlice<Float>, rate: Double = 48_000) -> Double {
        var crossings: [Double] = []
        var previous = samples.first!
        for (i, s) in zip(samples.indices.dropFirst(), samples.dropFirst()) {
            if previous < 0 && s >= 0 { crossings.append(Double(i - 1) + Double(-previous / (s - previous))) }
            previous = s
        }
        return rate * Double(crossings.count - 1) / (crossings.last! - crossings.first!)
    }

    @Test("the sine plays A440 at key 69 and middle C at key 60, pure, at once, and stops at once")
    func sine() throws {
        let a = try Self.render(program: 0, key: 69, hold: 24_000, frames: 28_800)
        #expect(abs(Self.frequency(a[4_800..<24_000]) - 440) < 0.01)
        let c = try Self.render(program: 0, key: 60, hold: 24_000, frames: 24_000)
        #expect(abs(Self.frequency(c[4_800..<24_000]) - 261.6256) < 0.01)
        // Pure: the steady part is a sine of its own peak, to within 0.1 % of the peak.
        let steady = a[4_800..<24_000]
        let peak = steady.map(abs).max()!
        let rms = (steady.reduce(0) { $0 + Double($1 * $1) } / Double(steady.count)).squareRoot()
        #expect(abs(rms / Double(peak) - 0.5.squareRoot()) < 0.001)
        // Attack: within the first 64-frame block the tone is at full level.
        #expect(a[64..<164].map(abs).max()! > peak * 0.95)
        // Release: 20 ms after note off, digital silence with the reverb off, and with it on
        // nothing but the reverb's anti-denormal offset (about 1e-8, −140 dB): the tone sends
        // nothing to it. (libfluidsynth's shortest release fades over about 15 ms.)
        #expect(a[(24_000 + 960)...].allSatisfy { abs($0) < 1e-7 })
        let dry = try Self.render(program: 0, key: 69, hold: 24_000, frames: 28_800, reverb: false)
        #expect(dry[(24_000 + 960)...].allSatisfy { $0 == 0 })
    }

    @Test("the click is the same short burst on every key; the square plays its pitch")
    func clickAndSquare() throws {
        let low = try Self.render(program: 2, key: 30, hold: 4_800, frames: 4_800)
        let high = try Self.render(program: 2, key: 90, hold: 4_800, frames: 4_800)
        #expect(low == high)
        let loud = low.indices.filter { abs(low[$0]) > 0.01 }
        #expect(loud.first! < 64 && loud.last! - loud.first! < 60)
        let square = try Self.render(program: 1, key: 81, hold: 24_000, frames: 24_000)
        #expect(abs(Self.frequency(square[4_800..<24_000]) - 880) < 0.05)
    }
}
