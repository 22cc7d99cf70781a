import Foundation
import Testing

@Suite("render --with: audio files mixed with the song")
struct WithAudioTests {
    /// A 16-bit stereo WAV at `rate`: silence with one click of `level` at frame 0.
    static func clickWav(rate: Int, level: Int16 = 16_000, frames: Int = 4_800) -> [UInt8] {
        var bytes: [UInt8] = Array("RIFF".utf8)
        func u32(_ v: Int) { bytes += withUnsafeBytes(of: UInt32(v).littleEndian, Array.init) }
        func u16(_ v: Int) { bytes += withUnsafeBytes(of: UInt16(v).littleEndian, Array.init) }
        u32(36 + frames * 4)
        bytes += Array("WAVEfmt ".utf8)
        u32(16); u16(1); u16(2); u32(rate); u32(rate * 4); u16(4); u16(16)
        bytes += Array("data".utf8)
        u32(frames * 4)
        for frame in 0..<frames {
            let v = frame == 0 ? level : 0
            u16(Int(UInt16(bitPattern: v))); u16(Int(UInt16(bitPattern: v)))
        }
        return bytes
    }

    @Test("a click placed at bar 2 beat 1 (and at 1.5 s) lands on that frame of the render exactly")
    func clickAtBarBeat() throws {
        let scratch = try Scratch()
        let click = try scratch.write("click.wav", Self.clickWav(rate: 48_000))
        // Twinkle: 100 bpm in 4/4, so bar 2 beat 1 is 2.4 s: frame 115,200. Muted, so only the clicks sound.
        for (position, frame) in [("2:1", 115_200), ("1.5", 72_000)] {
            let out = scratch.url.appendingPathComponent("out-\(frame).wav").path
            let run = try CLIRun.pianola("render", PlayCommandTests.song, "-o", out, "--soundfont", PlayCommandTests.testFont,
                                         "--reverb", "off", "--chorus", "off", "--mute", "1", "--with", "\(click)@\(position)")
            #expect(run.status == 0, "\(run.stderr)")
            let left = try RenderCommandTests.wavLeft(out)
            #expect(left.firstIndex { $0 != 0 } == frame)
            #expect(left[frame] == 16_000)
        }
    }

    @Test("a missing or unreadable audio file: one line, exit 1, no output file")
    func badAudioFile() throws {
        let scratch = try Scratch()
        let text = try scratch.write("notes.wav", Array("just text".utf8))
        for (file, message) in [("/no/such.ogg", "pianola: /no/such.ogg: No such file or directory"),
                                (text, "pianola: \(text): not an audio file libsndfile can read")] {
            let out = scratch.url.appendingPathComponent("out.wav").path
            let run = try CLIRun.pianola("render", PlayCommandTests.song, "-o", out, "--soundfont", PlayCommandTests.testFont, "--with", file)
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix(message), "\(run.stderr)")
            #expect(run.stderr.filter { $0 == "\n" }.count == 1)
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
