import Foundation
import Testing
import MIDI
import SoundFontBook

@Suite("pianola render, run as a user runs it")
struct RenderCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let testFont = root.appendingPathComponent("soundfonts/pianola-test.sf2").path

    /// One sine note (A440) from beat 1 for one beat, in a 2-beat song at 120 bpm.
    static func song() -> [UInt8] {
        MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: [
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 69, velocity: 100)),
            MIDIEvent(tick: 480, .noteOff(channel: 0, note: 69, velocity: 0)),
            MIDIEvent(tick: 960, .meta(.endOfTrack)),
        ])]).serialized()
    }

    /// The frames of a 16-bit stereo WAV written by libsndfile (44-byte header), left channel.
    static func wavLeft(_ path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(String(decoding: data[0..<4], as: UTF8.self) == "RIFF" && String(decoding: data[8..<12], as: UTF8.self) == "WAVE")
        let samples = data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
    }

    @Test("renders the song's length plus the release, deterministic to the byte, and never overwrites unasked")
    func renderWav() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let out = scratch.url.appendingPathComponent("out.wav").path
        let run = try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont, "--reverb", "off", "--chorus", "off")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("SoundFont: \(Self.testFont) (--soundfont)"))
        let left = try Self.wavLeft(out)
        // 2 beats = 48,000 frames of music, then the tail stops once the voice has died.
        #expect(left.count >= 48_000 && left.count <= 48_000 + 4_096 * 2, "\(left.count) frames")
        let loud = left.indices.filter { abs(Int(left[$0])) > 100 }
        #expect(loud.first! < 64 && abs(loud.last! - 24_000) < 1_000)

        let again = scratch.url.appendingPathComponent("again.wav").path
        _ = try CLIRun.pianola("render", song, "-o", again, "--soundfont", Self.testFont, "--reverb", "off", "--chorus", "off")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: URL(fileURLWithPath: again)))

        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        let refused = try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont)
        #expect(refused.status == 1)
        #expect(refused.stderr == "pianola: \(out): already exists (use --force to replace it)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
        let forced = try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont, "--force", "--loop", "3", "--tail", "0")
        #expect(forced.status == 0)
        #expect(try Self.wavLeft(out).count == 3 * 48_000)
    }

    @Test("a MUS score (Doom's) renders by its content, whatever its name: a note 140 ticks in sounds 1 s in, for 70 ticks")
    func renderMUS() throws {
        let scratch = try Scratch()
        // MUS header (score of 9 bytes at byte 18, one instrument), then: a silent-volume note
        // on MUS 0 and a 140-tick delay, A440 at volume 100 and a 70-tick delay, its release, the end.
        let score: [UInt8] = [0x90, 0x80 | 69, 0, 0x81, 0x0C, 0x90, 0x80 | 69, 100, 0x46, 0x00, 69, 0x60]
        let mus = Array("MUS".utf8) + [0x1A, UInt8(score.count), 0, 18, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0] + score
        let song = try scratch.write("e1m1.lmp", mus)
        let out = scratch.url.appendingPathComponent("e1m1.wav").path
        let run = try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont, "--reverb", "off", "--chorus", "off")
        #expect(run.status == 0, "\(run.stderr)")
        let left = try Self.wavLeft(out)
        let loud = left.indices.filter { abs(Int(left[$0])) > 100 }
        #expect(abs(loud.first! - 48_000) <= 64 && abs(loud.last! - 72_000) < 1_000, "\(loud.first!)…\(loud.last!)")
    }

    @Test("--labels writes every note as CSV or JSON; another extension, or an existing file without --force, is refused first")
    func labels() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let out = scratch.url.appendingPathComponent("out.wav").path
        let csv = scratch.url.appendingPathComponent("notes.csv").path, json = scratch.url.appendingPathComponent("notes.json").path
        #expect(try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont, "--labels", csv).status == 0)
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "channel,key,velocity,program,bank,start_frame,end_frame,start_seconds,end_seconds")
        #expect(rows.count == 2 && rows[1].hasPrefix("1,69,100,0,0,0,"))
        let refused = try CLIRun.pianola("render", song, "-o", out + ".2.wav", "--soundfont", Self.testFont, "--labels", csv)
        #expect(refused.status == 1 && refused.stderr == "pianola: \(csv): already exists (use --force to replace it)\n")
        #expect(!FileManager.default.fileExists(atPath: out + ".2.wav"))
        #expect(try CLIRun.pianola("render", song, "-o", out, "--force", "--soundfont", Self.testFont, "--labels", json).status == 0)
        let decoded = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as! [String: Any]
        #expect(decoded["sampleRate"] as? Int == 48_000 && (decoded["notes"] as? [[String: Any]])?.count == 1)
        let wrong = try CLIRun.pianola("render", song, "-o", out, "--force", "--soundfont", Self.testFont, "--labels", csv + ".txt")
        #expect(wrong.status == 1 && wrong.stderr == "pianola: --labels \(csv).txt: name it .csv or .json\n")
    }

    @Test("--synth pianola: notes off the grid labelled on their exact frames and sounding from them; a DLS bank goes to libfluidsynth with one line saying so; an unknown engine is refused")
    func pianolasEngine() throws {
        let scratch = try Scratch()
        // Notes at ticks 7, 500 and 1013 at 120 bpm: frames 350, 25,000 and 50,650 (none on a 64-frame edge).
        let song = try scratch.write("song.mid", MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: [
            MIDIEvent(tick: 7, .noteOn(channel: 0, note: 69, velocity: 100)), MIDIEvent(tick: 200, .noteOff(channel: 0, note: 69, velocity: 0)),
            MIDIEvent(tick: 500, .noteOn(channel: 0, note: 69, velocity: 100)), MIDIEvent(tick: 700, .noteOff(channel: 0, note: 69, velocity: 0)),
            MIDIEvent(tick: 1013, .noteOn(channel: 0, note: 69, velocity: 100)), MIDIEvent(tick: 1200, .noteOff(channel: 0, note: 69, velocity: 0)),
            MIDIEvent(tick: 1440, .meta(.endOfTrack)),
        ])]).serialized())
        let out = scratch.url.appendingPathComponent("out.wav").path, csv = scratch.url.appendingPathComponent("notes.csv").path
        let run = try CLIRun.pianola("render", song, "-o", out, "--soundfont", Self.testFont, "--synth", "pianola", "--labels", csv)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let starts = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst().map { Int($0.split(separator: ",")[5])! }
        #expect(starts == [350, 25_000, 50_650])
        let left = try Self.wavLeft(out)
        for start in starts {
            #expect(left[start - 200 ..< start + 1].allSatisfy { $0 == 0 } && left[start + 1 ..< start + 100].contains { $0 != 0 }, "the note at \(start) sounds from its next frame")
        }
        // A process that plays on Pianola's engine never opens libfluidsynth (ld.so lists what it loads).
        let ours = try CLIRun.pianola(["render", song, "-o", out, "--force", "--soundfont", Self.testFont, "--synth", "pianola"], environment: ["LD_DEBUG": "libs"])
        let theirs = try CLIRun.pianola(["render", song, "-o", out, "--force", "--soundfont", Self.testFont, "--synth", "fluidsynth"], environment: ["LD_DEBUG": "libs"])
        #expect(ours.status == 0 && !ours.stderr.contains("libfluidsynth"), "Pianola's engine opened libfluidsynth")
        #expect(theirs.status == 0 && theirs.stderr.contains("libfluidsynth.so"), "ld.so's list names libfluidsynth when it is used")
        let bank = try scratch.write("bank.dls", SoundFontBook.sineBank().serialized())
        let dls = try CLIRun.pianola("render", song, "-o", out, "--force", "--soundfont", bank, "--synth", "pianola")
        #expect(dls.status == 0 && dls.stderr == "pianola: note: \(bank) is a DLS bank: libfluidsynth plays it\n")
        let wrong = try CLIRun.pianola("render", song, "-o", out, "--force", "--soundfont", Self.testFont, "--synth", "timidity")
        #expect(wrong.status != 0 && wrong.stderr.contains("--synth") && wrong.stderr.contains("timidity"))
    }

    @Test("raw output is the WAV's samples with no header, and streams into a FIFO")
    func raw() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let wav = scratch.url.appendingPathComponent("out.wav").path, raw = scratch.url.appendingPathComponent("out.raw").path
        #expect(try CLIRun.pianola("render", song, "-o", wav, "--bits", "32f", "--soundfont", Self.testFont).status == 0)
        #expect(try CLIRun.pianola("render", song, "-o", raw, "--bits", "32f", "--soundfont", Self.testFont).status == 0)
        let wavBytes = try Data(contentsOf: URL(fileURLWithPath: wav)), rawBytes = try Data(contentsOf: URL(fileURLWithPath: raw))
        #expect(rawBytes.count > 40_000 && wavBytes.suffix(rawBytes.count) == rawBytes)

        let fifo = scratch.url.appendingPathComponent("stream.raw").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = ByteCounter()
        let reader = Thread {
            let fd = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while case let n = read(fd, &buffer, buffer.count), n > 0 { received.add(n) }
            close(fd)
        }
        reader.start()
        let run = try CLIRun.pianola("render", song, "-o", fifo, "--bits", "32f", "--soundfont", Self.testFont, "--force")
        #expect(run.status == 0, "\(run.stderr)")
        while !reader.isFinished { usleep(1_000) }
        #expect(received.value == rawBytes.count)
    }

    @Test("FLAC at 24 bits, tempo, transposition and --from/--to by bar:beat")
    func options() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let flac = scratch.url.appendingPathComponent("out.flac").path
        let run = try CLIRun.pianola("render", song, "-o", flac, "--soundfont", Self.testFont, "--bits", "24",
                                     "--tempo", "200", "--tail", "0", "--from", "1:1", "--to", "1:2")
        #expect(run.status == 0, "\(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: flac))
        #expect(String(decoding: data[0..<4], as: UTF8.self) == "fLaC")
    }

    @Test("bad input: one line on stderr, exit 1, no file left behind", arguments: [
        (["--soundfont", "/nonexistent.sf2"], "/nonexistent.sf2: cannot load SoundFont: No such file or directory"),
        (["--mute", "3"], "track 3 does not exist: SONG has 1 track"),
        (["--from", "0:1"], "--from 0:1: give seconds (12.5) or bar:beat (3:1), counted from 1"),
        (["--bits", "32f", "--format", "flac"], "OUT: FLAC holds 16 or 24 bits, not 32-bit float"),
        (["--tempo", "0"], "--tempo 0: use 10 to 1000 percent"),
        (["--from", "1:2", "--to", "1:1"], "--to 1:1 is not after --from 1:2"),
        (["--threads", "0"], "--threads 0: use 1 to 256"),
    ])
    func badInput(arguments: [String], message: String) throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.song())
        let out = scratch.url.appendingPathComponent("out.wav").path
        let run = try CLIRun.pianola(["render", song, "-o", out, "--soundfont", Self.testFont] + arguments)
        #expect(run.status == 1)
        #expect(run.stderr == "pianola: \(message.replacingOccurrences(of: "SONG", with: song).replacingOccurrences(of: "OUT", with: out))\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

@Suite("pianola render --stems and lossy formats")
struct StemsCommandTests {
    /// Two tracks: A440 for three beats (channel 1), E5 on beat 3 (channel 2); 120 bpm, 4 beats.
    /// (The notes overlap: a FluidSynth voice reused for a later note starts its attack
    /// differently from a fresh one, so a stem's note and the mix's could differ there.)
    static func twoTrackSong() -> [UInt8] {
        MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [
            .init(events: [MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))), MIDIEvent(tick: 1_920, .meta(.endOfTrack))]),
            .init(events: [MIDIEvent(tick: 0, .meta(.text(.trackName, string: "Lead A"))),
                           MIDIEvent(tick: 0, .noteOn(channel: 0, note: 69, velocity: 100)),
                           MIDIEvent(tick: 1_440, .noteOff(channel: 0, note: 69, velocity: 0)), MIDIEvent(tick: 1_920, .meta(.endOfTrack))]),
            .init(events: [MIDIEvent(tick: 960, .noteOn(channel: 1, note: 76, velocity: 100)),
                           MIDIEvent(tick: 1_440, .noteOff(channel: 1, note: 76, velocity: 0)), MIDIEvent(tick: 1_920, .meta(.endOfTrack))]),
        ]).serialized()
    }

    @Test("one file per track with notes and per --with file, each as long as the mix, summing to it; existing stems refused first")
    func stems() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.twoTrackSong())
        let click = try scratch.write("click.wav", WithAudioTests.clickWav(rate: 48_000))
        let out = scratch.url.appendingPathComponent("mix.wav").path
        let folder = scratch.url.appendingPathComponent("stems").path
        let arguments = ["render", song, "-o", out, "--soundfont", RenderCommandTests.testFont, "--with", "\(click)@1:2", "--stems", folder]
        let run = try CLIRun.pianola(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == ["track-02-Lead-A.wav", "track-03.wav", "with-1-click.wav"])
        let mix = try RenderCommandTests.wavLeft(out)
        let stems = try names.map { try RenderCommandTests.wavLeft("\(folder)/\($0)") }
        #expect(stems.allSatisfy { $0.count == mix.count })
        let worst = mix.indices.map { i in abs(stems.reduce(0) { $0 + Int($1[i]) } - Int(mix[i])) }.max()!
        #expect(worst <= 3, "the stems differ from the mix by up to \(worst) LSB")
        // Each stem holds its own part only: A from beat 1, E from beat 3 (frame 48,000), the click on beat 2.
        func loudest(_ samples: ArraySlice<Int16>) -> Int { samples.map { abs(Int($0)) }.max()! }
        #expect(loudest(stems[0][12_000..<12_200]) > 100 && loudest(stems[1][..<48_000]) <= 3 && loudest(stems[1][50_000..<50_200]) > 100)
        #expect(stems[2].firstIndex { $0 != 0 } == 24_000)

        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        let again = try CLIRun.pianola(arguments.map { $0 == out ? out + ".2.wav" : $0 })
        #expect(again.status == 1)
        #expect(again.stderr == "pianola: \(folder)/track-02-Lead-A.wav: already exists (use --force to replace it)\n")
        #expect(!FileManager.default.fileExists(atPath: out + ".2.wav"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
        let forced = try CLIRun.pianola(arguments + ["--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
    }

    @Test("renders Ogg Vorbis, Opus and MP3 that play back with --with; Opus refuses 44.1 kHz in one line")
    func lossy() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", RenderCommandTests.song())
        for ext in ["ogg", "opus", "mp3"] {
            let out = scratch.url.appendingPathComponent("out.\(ext)").path
            let run = try CLIRun.pianola("render", song, "-o", out, "--soundfont", RenderCommandTests.testFont, "--tail", "0")
            #expect(run.status == 0, "\(ext): \(run.stderr)")
            // Played back under a silent song (all of it muted) into a WAV: the A440 is there for the first beat.
            let wav = scratch.url.appendingPathComponent("back-\(ext).wav").path
            let back = try CLIRun.pianola("render", song, "-o", wav, "--soundfont", RenderCommandTests.testFont, "--mute", "1", "--with", out, "--tail", "0")
            #expect(back.status == 0, "\(ext): \(back.stderr)")
            let left = try RenderCommandTests.wavLeft(wav)
            let beat = left[2_400..<21_600]
            let crossings = zip(beat, beat.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            #expect(abs(crossings - 176) <= 2, "\(ext): \(crossings) upward zero crossings in 0.4 s (440 Hz gives 176)")
            #expect(left[30_000..<46_000].allSatisfy { abs(Int($0)) < 200 }, "\(ext): the second beat is silent")
        }
        let opus = try CLIRun.pianola("render", song, "-o", scratch.url.appendingPathComponent("x.opus").path, "--soundfont",
                                      RenderCommandTests.testFont, "--sample-rate", "44100")
        #expect(opus.status == 1 && opus.stderr.hasSuffix(": Opus only supports sample rates of 8000, 12000, 16000, 24000, and 48000\n"))
        #expect(opus.stderr.split(separator: "\n").count == 1)
    }
}

/// A byte count one thread adds to and another reads.
final class ByteCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.withLock { count += n } }
    var value: Int { lock.withLock { count } }
}
