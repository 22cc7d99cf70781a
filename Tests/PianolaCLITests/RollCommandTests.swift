import CCairo
import Foundation
import FoundationXML
import MIDI
import Testing

@Suite("pianola roll: a song as a piano-roll picture")
struct RollCommandTests {
    /// Two bars of 4/4 at 120 bpm (4 s): a note on key 72 on beat 1, one on key 60 at bar 2, beat 3, each a beat long.
    static func song() -> [UInt8] {
        MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: [
            MIDIEvent(tick: 0, .meta(.text(.trackName, Array("Lead".utf8)))),
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 72, velocity: 100)),
            MIDIEvent(tick: 480, .noteOff(channel: 0, note: 72, velocity: 0)),
            MIDIEvent(tick: 2880, .noteOn(channel: 0, note: 60, velocity: 100)),
            MIDIEvent(tick: 3360, .noteOff(channel: 0, note: 60, velocity: 0)),
            MIDIEvent(tick: 3840, .meta(.endOfTrack)),
        ])]).serialized()
    }

    /// The colour of pixel (x, y) of a PNG, as red, green, blue bytes.
    static func pixel(_ path: String, x: Int, y: Int) -> (Int, Int, Int) {
        let surface = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(surface) }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        let word = UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
        return (Int(word >> 16 & 0xFF), Int(word >> 8 & 0xFF), Int(word & 0xFF))
    }

    @Test("a note at a known bar:beat and key is drawn where it must be, in its track's colour; SVG and PDF open")
    func notePixel() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let png = scratch.url.appendingPathComponent("roll.png").path
        let run = try CLIRun.pianola("roll", song, "-o", png, "--width", "800", "--height", "600")
        #expect(run.status == 0, "\(run.stderr)")
        // The documented geometry: notes' area 60…780 × 36…480; keys 58…74 (two beyond the notes), 17 rows.
        let row = (480.0 - 36) / 17
        let x = 60 + (3.25 / 4) * 720             // the middle of the note at 3 s (bar 2, beat 3), half a second long
        let y = 480 - 3 * row + row / 2           // the middle of key 60's row, the third from the bottom
        let (r, g, b) = Self.pixel(png, x: Int(x), y: Int(y))
        #expect(abs(r - 229) <= 2 && abs(g - 77) <= 2 && abs(b - 61) <= 2, "\(r), \(g), \(b) at \(Int(x)), \(Int(y))")
        let above = Self.pixel(png, x: Int(x), y: Int(y - 3 * row))   // key 63: nothing there
        #expect(above.0 > 200 && above.1 > 200 && above.2 > 200, "\(above)")
        let earlier = Self.pixel(png, x: Int(60 + (2.25 / 4) * 720), y: Int(y))   // beat 1 of bar 2: nothing on key 60
        #expect(earlier.1 > 200, "\(earlier)")

        let svg = scratch.url.appendingPathComponent("roll.svg").path, pdf = scratch.url.appendingPathComponent("roll.pdf").path
        #expect(try CLIRun.pianola("roll", song, "-o", svg).status == 0)
        #expect(XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: svg))).parse(), "the SVG parses as XML")
        #expect(try CLIRun.pianola("roll", song, "-o", pdf, "--from", "2:1").status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: pdf))
        #expect(bytes.prefix(5) == Data("%PDF-".utf8) && String(decoding: bytes.suffix(8), as: UTF8.self).contains("%%EOF"))
    }

    @Test("a bad picture name, an existing picture or a bad song: one line, exit 1")
    func badInput() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let gif = try CLIRun.pianola("roll", song, "-o", scratch.url.appendingPathComponent("roll.gif").path)
        #expect(gif.status == 1 && gif.stderr.hasSuffix("roll.gif: name the picture .png, .svg or .pdf\n"))
        let png = try scratch.write("taken.png", [1, 2, 3])
        let taken = try CLIRun.pianola("roll", song, "-o", png)
        #expect(taken.status == 1 && taken.stderr == "pianola: \(png): already exists (use --force to replace it)\n")
        let junk = try scratch.write("junk.mid", Array("junk".utf8))
        let bad = try CLIRun.pianola("roll", junk, "-o", scratch.url.appendingPathComponent("x.png").path)
        #expect(bad.status == 1 && bad.stderr == "pianola: \(junk): byte 0: not a Standard MIDI File (no 'MThd' header)\n")
    }
}
