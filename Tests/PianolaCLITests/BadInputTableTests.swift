import Foundation
import MIDI
import SoundFontBook
import Testing

/// Hostile inputs, each run through the command a user would run: one clear line on stderr
/// (warnings aside) that names the input and says what is wrong, exit status 1, no signal,
/// no output file left behind.
@Suite("Bad input table: one line, exit 1, no crash")
struct BadInputTableTests {
    static let font = RenderCommandTests.testFont

    /// A Standard MIDI File header (format 0, one track, 480 ticks) and one track chunk
    /// claiming `length` bytes, holding `body`.
    static func smf(trackLength length: UInt32, _ body: [UInt8]) -> [UInt8] {
        Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8)
            + [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)] + body
    }

    /// One row: its name, the pianola arguments (given the scratch folder), what the line says,
    /// and the environment it runs in (given the scratch folder, after the arguments are made).
    struct Row: CustomStringConvertible, Sendable {
        let description: String
        let arguments: @Sendable (Scratch) throws -> [String]
        let says: String
        var environment: @Sendable (Scratch) throws -> [String: String] = { _ in [:] }
    }

    static let rows: [Row] = [
        Row(description: "empty file", arguments: { ["info", try $0.write("empty.mid", [])] }, says: "empty.mid: byte 0: the file is empty"),
        Row(description: "a text file", arguments: { ["info", try $0.write("notes.mid", Array("some notes\n".utf8))] },
            says: "notes.mid: byte 0: not a Standard MIDI File (no 'MThd' header)"),
        Row(description: "an MP3 renamed .mid", arguments: { scratch in
            let mp3 = scratch.url.appendingPathComponent("song.mp3").path
            _ = try CLIRun.pianola("render", try scratch.write("a.mid", RenderCommandTests.song()), "-o", mp3, "--soundfont", font)
            return ["info", try scratch.write("song.mid", Array(try Data(contentsOf: URL(fileURLWithPath: mp3))))]
        }, says: "song.mid: byte 0: not a Standard MIDI File (no 'MThd' header)"),
        Row(description: "a MUS whose score runs past its lump (strict)", arguments: {
            // Doom's MUS: score of 100 bytes claimed from byte 18; five are there (a note, its delay, its release).
            ["info", "--strict", try $0.write("e1m1.mus", Array("MUS".utf8) + [0x1A, 100, 0, 18, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0] + [0x90, 60, 0x0A, 0x00, 60])]
        }, says: "e1m1.mus: byte 4: MUS: the score claims 100 bytes from byte 18, past the end of the file (size 23)"),
        Row(description: "a truncated XMI (strict)", arguments: {
            // Miles' XMI: a FORM XMID claiming 64 bytes, of which 12 are there (an EVNT chunk cut short).
            ["info", "--strict", try $0.write("intro.xmi", Array("FORM".utf8) + [0, 0, 0, 64] + Array("XMIDEVNT".utf8) + [0, 0, 0, 52, 0x90, 60, 100, 60])]
        }, says: "intro.xmi: byte 4: XMI: chunk 'FORM' claims 64 bytes, past the end of what holds it (byte 24)"),
        Row(description: "an HMP with an absurd track count (strict)", arguments: {
            // HMI's HMP: the whole 776-byte header, claiming 4,294,967,295 track chunks after it.
            var header = Array("HMIMIDIP".utf8) + [UInt8](repeating: 0, count: 768)
            header.replaceSubrange(48..<52, with: [0xFF, 0xFF, 0xFF, 0xFF])
            return ["info", "--strict", try $0.write("descent.hmp", header)]
        }, says: "descent.hmp: byte 48: HMP: the header claims 4294967295 tracks; the file has room for at most 0"),
        Row(description: "an HMI whose track table points outside the file (strict)", arguments: {
            var header = Array("HMI-MIDISONG061595".utf8) + [UInt8](repeating: 0, count: 352) + [0xFF, 0xFF, 0xFF, 0x7F]
            header[212] = 120
            header[228] = 1
            return ["info", "--strict", try $0.write("level.hmi", header)]
        }, says: "level.hmi: byte 370, track 1: HMI: the track table points at byte 2147483647, where no 'HMI-MIDITRACK' header is"),
        Row(description: "a DLS bank whose pool table points outside the file", arguments: { scratch in
            // The test sine bank with its pool table's one cue moved to byte 2,147,483,647 of the wave pool.
            var bank = SoundFontBook.sineBank().serialized()
            let cue = bank.firstRange(of: Array("ptbl".utf8))!.lowerBound + 16
            bank.replaceSubrange(cue ..< cue + 4, with: [0xFF, 0xFF, 0xFF, 0x7F])
            return ["render", try scratch.write("song.mid", RenderCommandTests.song()), "-o", scratch.url.appendingPathComponent("out.wav").path,
                    "--soundfont", try scratch.write("bank.dls", bank)]
        }, says: "bank.dls: cannot load SoundFont: byte "),
        Row(description: "a song number a file does not hold", arguments: {
            ["render", try $0.write("one.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font, "--song", "3"]
        }, says: "--song 3: "),
        Row(description: "a 10-byte header", arguments: { ["info", try $0.write("short.mid", Array("MThd".utf8) + [0, 0, 0, 6, 0, 1])] },
            says: "short.mid: byte 0: the file ends inside the MIDI header (size 10)"),
        Row(description: "a header claiming 65,535 tracks (strict)", arguments: {
            ["info", "--strict", try $0.write("tracks.mid", Array("MThd".utf8) + [0, 0, 0, 6, 0, 1, 0xFF, 0xFF, 0x01, 0xE0])]
        }, says: "tracks.mid: byte 10: header says 65535 tracks, the file holds 0"),
        Row(description: "a 4 GB chunk length (strict)", arguments: {
            ["info", "--strict", try $0.write("huge.mid", smf(trackLength: 0xFFFF_FFFF, [0, 0x90, 60, 100]))]
        }, says: "huge.mid: byte 22, track 1: chunk length 4294967295 runs past the end of the file (size 26)"),
        Row(description: "an endless variable-length number (strict)", arguments: {
            ["info", "--strict", try $0.write("vlq.mid", smf(trackLength: 20, Array(repeating: 0xFF, count: 20)))]
        }, says: "vlq.mid: byte 22, track 1: variable-length number longer than 4 bytes"),
        Row(description: "a sysex without its end (strict)", arguments: {
            ["info", "--strict", try $0.write("sysex.mid", smf(trackLength: 8, [0, 0xF0, 0x7F, 1, 2, 3, 4, 5]))]
        }, says: "sysex.mid: byte 22, track 1: the track ends inside an event"),
        Row(description: "a WAV whose header gives no channels", arguments: { scratch in
            var wav = WithAudioTests.clickWav(rate: 48_000)
            wav[22] = 0   // the fmt chunk's channel count
            return ["render", try scratch.write("song.mid", RenderCommandTests.song()), "-o", scratch.url.appendingPathComponent("out.wav").path,
                    "--soundfont", font, "--with", try scratch.write("lying.wav", wav)]
        }, says: "lying.wav: not an audio file libsndfile can read (Channel count is zero)"),
        Row(description: "a FLAC cut short: it ends the render with the line", arguments: { scratch in
            let song = try scratch.write("song.mid", RenderCommandTests.song())
            let flac = scratch.url.appendingPathComponent("whole.flac").path
            _ = try CLIRun.pianola("render", song, "-o", flac, "--soundfont", font, "--bits", "24")
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: flac)))
            return ["render", song, "-o", scratch.url.appendingPathComponent("out.wav").path, "--soundfont", font,
                    "--with", try scratch.write("cut.flac", Array(bytes[..<(bytes.count / 2)]))]
        }, says: "cut.flac: unreadable: flac decoder lost sync"),
        Row(description: "a port that does not exist", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--port", "no such port"]
        }, says: "sequencer"),
        Row(description: "a timecode rate MIDI timecode has not", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--mtc", "14:0", "--mtc-rate", "50"]
        }, says: "--mtc-rate 50: use 24, 25, 29.97df or 30"),
        Row(description: "a timecode rate with nowhere to send the timecode", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--mtc-rate", "25"]
        }, says: "--mtc-rate 25: give the ports the timecode goes to with --mtc"),
        Row(description: "an empty port in a clock list", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--clock", "14:0,,24:0"]
        }, says: "--clock 14:0,,24:0: an empty port name; give ports separated by commas"),
        Row(description: "a port latency that is not a number", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--port", "14:0", "--port-latency", "14:0=fast"]
        }, says: "--port-latency 14:0=fast: give PORT=MS, e.g. 24:0=12.5 or 'Midi Through'=-8"),
        Row(description: "a port latency of more than a second", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--port", "14:0", "--port-latency=14:0=-1500"]
        }, says: "--port-latency 14:0=-1500: use -1000 to 1000 milliseconds"),
        Row(description: "a port latency when nothing goes to a port", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--port-latency", "14:0=5"]
        }, says: "--port-latency 14:0=5: Pianola sends to no MIDI port (give --port, --route, --clock or --mtc)"),
        Row(description: "a device name with shell characters", arguments: { scratch in
            ["play", try scratch.write("song.mid", RenderCommandTests.song()), "--soundfont", font, "--device", "hw:0;touch \(scratch.url.path)/pwned"]
        }, says: "audio device 'hw:0;touch "),
        Row(description: "a start time beyond all time (1e300 s)", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font, "--from", "1e300"]
        }, says: "--from 1e300 is at or after the end of "),
        Row(description: "a start bar past the song's end", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font, "--from", "9223372036854775807:1"]
        }, says: "--from 9223372036854775807:1 is at or after the end of "),
        Row(description: "a path that is a directory", arguments: { ["info", $0.url.path] }, says: "is a directory"),
        Row(description: "a SysEx dump with a status byte inside a message", arguments: {
            ["send", try $0.write("patch.syx", [0xF0, 0x43, 0x10, 0xF7, 0xF0, 0x43, 0x90, 0x01, 0xF7]), "--port", "14:0"]
        }, says: "patch.syx: byte 6: status byte 0x90 inside the message from byte 4 (its data bytes are 00-7F; it has no F7)"),
        Row(description: "a SysEx dump cut off before its F7", arguments: {
            ["send", try $0.write("bank.syx", [0xF0, 0x41, 0x10, 0x42, 0x12]), "--port", "14:0"]
        }, says: "bank.syx: byte 5: the file ends inside the message from byte 0 (no F7)"),
        Row(description: "a negative delay between SysEx messages", arguments: {
            ["send", try $0.write("ok.syx", [0xF0, 0x7E, 0xF7]), "--port", "14:0", "--delay=-5"]
        }, says: "--delay -5.0: use 0 to 60000 milliseconds"),
        Row(description: "an effect that does not exist", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font, "--fx", "lopass,cutoff=800"]
        }, says: "--fx 'lopass,cutoff=800': no built-in effect 'lopass'; did you mean 'lowpass'?"),
        Row(description: "an effect parameter that does not exist", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--soundfont", font, "--fx", "lowpass,frequency=800"]
        }, says: "--fx 'lowpass,frequency=800': lowpass has no parameter 'frequency' (it has cutoff, q)"),
        Row(description: "an effect parameter out of its range", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font, "--fx", "peak,frequency=2kHz,gain=-60dB"]
        }, says: "--fx 'peak,frequency=2kHz,gain=-60dB': gain -60 dB is out of range: use -48 to 48 dB"),
        Row(description: "an effect value that is not a number", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font, "--fx", "highpass,cutoff=low"]
        }, says: "--fx 'highpass,cutoff=low': cutoff 'low' is not a number of Hz (e.g. cutoff=20Hz)"),
        Row(description: "a filter frequency above what the sample rate holds", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--sample-rate", "22050", "--fx", "lowpass,cutoff=15kHz"]
        }, says: "--fx 'lowpass,cutoff=15kHz': cutoff 15000 Hz is not below half the sample rate (22050 Hz)"),
        Row(description: "an LV2 plugin that is not installed", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "http://example.org/plugins/nothing,gain=1"]
        }, says: "no LV2 plugin 'http://example.org/plugins/nothing' is installed"),
        Row(description: "an LV2 plugin whose control port does not exist", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "mda delay,l_delai=0.3"]
        }, says: "--fx 'mda delay,l_delai=0.3': MDA Delay has no parameter 'l_delai' (it has l_delay, r_delay, feedback, fb_tone, fx_mix, output)"),
        Row(description: "an LV2 control value out of the port's range", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "http://drobilla.net/plugins/mda/Delay,feedback=2"]
        }, says: "feedback 2 is out of range: use 0 to 1"),
        Row(description: "an LV2 plugin a stereo bus cannot take (an oscillator: no audio input)", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "http://plugin.org.uk/swh-plugins/analogueOsc"]
        }, says: "has 0 audio inputs and 1 outputs; an effect on a stereo bus takes 1 or 2 of each"),
        Row(description: "an instrument plugin as an effect", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "mda piano"]
        }, says: "LV2 plugin 'MDA Piano' is an instrument (MIDI in, no audio in), not an effect"),
        Row(description: "a plugin that is not hard real-time, played live", arguments: {
            ["play", try $0.write("song.mid", RenderCommandTests.song()), "--soundfont", font, "--fx", "http://plugin.org.uk/swh-plugins/zm1"]
        }, says: "does not say it is hard real-time capable (lv2:hardRTCapable); it can render (pianola render) but not play live"),
        Row(description: "an effect plugin as an instrument", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--instrument", "1=mda delay"]
        }, says: "--instrument 1=mda delay: LV2 plugin 'MDA Delay' takes no MIDI: it is not an instrument"),
        Row(description: "an instrument parameter that does not exist", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--instrument", "1=mda piano,detune=0"]
        }, says: "--instrument 1=mda piano,detune=0: MDA Piano has no parameter 'detune' (it has env_decay, "),
        Row(description: "an instrument without its tracks", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--instrument", "mda piano"]
        }, says: "--instrument mda piano: give TRACKS=PLUGIN, e.g. 2=mda piano"),
        Row(description: "an instrument for a track the song has not", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--instrument", "4=mda piano"]
        }, says: "track 4 does not exist"),
        Row(description: "an LV2 preset that does not exist", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "mda detune,preset=Cathedral"]
        }, says: "--fx 'mda detune,preset=Cathedral': MDA Detune has no preset 'Cathedral' (it has 'Out Of Tune', 'Stereo Detune', 'Symphonic')"),
        Row(description: "an effect bus for a track the song has not", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "track4:lowpass"]
        }, says: "--fx track4:lowpass: 'track4' is not a track of this song or range of them within 1-1"),
        Row(description: "two effect buses taking the same events", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "track1:lowpass", "--fx", "ch1:highpass"]
        }, says: "--fx 'track1:…' and --fx 'ch1:…' both take track 1's channel 1; give each track and channel one bus"),
        Row(description: "an effect bus on an LV2 instrument's track", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--instrument", "1=mda piano", "--fx", "track1:lowpass"]
        }, says: "--fx 'track1:…': track 1 plays on an LV2 instrument (--instrument), whose sound takes the output's effects only"),
        Row(description: "an effect bus whose effect does not exist", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
             "--fx", "ch3:lopass"]
        }, says: "--fx 'lopass': no built-in effect 'lopass'"),
        Row(description: "an LV2 bundle with broken Turtle", arguments: {
            let broken = $0.url.appendingPathComponent("lv2/broken.lv2")
            try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
            try Data("@prefix lv2: <http://lv2plug.in/ns/lv2core#> .\n<urn:pianola:test:broken> a lv2:Plugin ;; oops {\n".utf8)
                .write(to: broken.appendingPathComponent("manifest.ttl"))
            return ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", font,
                    "--fx", "urn:pianola:test:broken"]
        }, says: "broken.lv2: manifest.ttl:2:", environment: { ["LV2_PATH": $0.url.appendingPathComponent("lv2").path + ":/usr/lib/lv2"] }),
        Row(description: "a SoundFont that is a directory", arguments: {
            ["render", try $0.write("song.mid", RenderCommandTests.song()), "-o", $0.url.appendingPathComponent("out.wav").path, "--soundfont", $0.url.path]
        }, says: "cannot load SoundFont: is a directory"),
    ]

    /// Checks one run: one line saying `says` (after any warnings), exit status 1, no signal.
    static func check(_ run: CLIRun, says: String, _ what: String) {
        let lines = run.stderr.split(separator: "\n").filter { !$0.contains(": warning: ") }
        #expect(!run.signaled, "\(what): killed by a signal")
        #expect(run.status == 1, "\(what): exit \(run.status)")
        #expect(lines.count == 1, "\(what): \(lines.count) lines: \(run.stderr)")
        #expect(lines.first?.hasPrefix("pianola: ") == true && lines.first?.contains(says) == true, "\(what): \(run.stderr)")
    }

    @Test("each hostile input", arguments: rows)
    func row(_ row: Row) throws {
        let scratch = try Scratch()
        let arguments = try row.arguments(scratch)
        Self.check(try CLIRun.pianola(arguments, environment: try row.environment(scratch)), says: row.says, row.description)
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("pwned").path), "a shell ran the device name")
    }

    @Test("a file that cannot be read (as another user when run as root)")
    func unreadable() throws {
        let scratch = try Scratch()
        let song = try scratch.write("locked.mid", RenderCommandTests.song())
        #expect(chmod(song, 0) == 0)
        let asNobody = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        #expect(chmod(scratch.url.path, 0o755) == 0)
        Self.check(try CLIRun.pianola(["info", song], prefix: asNobody), says: "locked.mid: Permission denied", "unreadable file")
    }

    @Test("a SoundFont truncated at each of its chunks, and halfway through each")
    func truncatedSoundFont() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", RenderCommandTests.song())
        let font = Array(try Data(contentsOf: URL(fileURLWithPath: Self.font)))
        var cuts: [Int] = []
        /// Every chunk's start and middle, descending into RIFF and LIST chunks.
        func walk(_ start: Int, _ end: Int) {
            var offset = start
            while offset + 8 <= end {
                let length = Int(font[offset + 4]) | Int(font[offset + 5]) << 8 | Int(font[offset + 6]) << 16 | Int(font[offset + 7]) << 24
                cuts += [offset, offset + 8 + length / 2]
                let id = String(decoding: font[offset..<offset + 4], as: UTF8.self)
                if id == "RIFF" || id == "LIST" { walk(offset + 12, min(end, offset + 8 + length)) }
                offset += 8 + length + (length & 1)
            }
        }
        walk(0, font.count)
        #expect(cuts.count > 30)
        for cut in Set(cuts).sorted() where cut < font.count {
            let path = try scratch.write("cut.sf2", Array(font[..<cut]))
            let out = scratch.url.appendingPathComponent("out.wav").path
            Self.check(try CLIRun.pianola("render", song, "-o", out, "--soundfont", path), says: "cut.sf2: cannot load SoundFont: ", "font cut at byte \(cut)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
