import Engine
import Foundation
import MIDI
import Synchronization
import Testing
import TestSupport

/// What a user coming from timidity, fluidsynth and aplaymidi types first, run as they run it.
@Suite("The command line as a new user meets it")
struct NewUserTests {
    static let font = RenderCommandTests.testFont

    /// A four-bar song in 4/4 at 120 bpm, a note on every beat, 480 ticks a quarter.
    static func fourBars() -> [UInt8] {
        var events: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(numerator: 4, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8))))]
        for beat in 0..<16 {
            events.append(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: 60, velocity: 100)))
            events.append(MIDIEvent(tick: beat * 480 + 240, .noteOff(channel: 0, note: 60, velocity: 0)))
        }
        return MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: events + [MIDIEvent(tick: 16 * 480, .meta(.endOfTrack))])]).serialized()
    }

    @Test("negative numbers are values, with or without =; out of range they get the range")
    func negativeValues() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.fourBars())
        let spaced = scratch.url.appendingPathComponent("spaced.wav").path, equals = scratch.url.appendingPathComponent("equals.wav").path
        let a = try CLIRun.pianola("render", song, "--transpose", "-5", "-o", spaced, "--soundfont", Self.font)
        let b = try CLIRun.pianola("render", song, "--transpose=-5", "-o", equals, "--soundfont", Self.font)
        #expect(a.status == 0 && b.status == 0, "\(a.stderr)\(b.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: spaced)) == Data(contentsOf: URL(fileURLWithPath: equals)))
        let plain = scratch.url.appendingPathComponent("plain.wav").path
        _ = try CLIRun.pianola("render", song, "-o", plain, "--soundfont", Self.font)
        #expect(try Data(contentsOf: URL(fileURLWithPath: spaced)) != Data(contentsOf: URL(fileURLWithPath: plain)), "transposed")
        for (arguments, says) in [(["--tempo", "-5"], "--tempo -5: use 10 to 1000 percent"), (["--tail", "-1"], "--tail -1.0: use 0 to 60 seconds"),
                                  (["--from", "-3"], "--from -3: give seconds (12.5) or bar:beat (3:1), counted from 1"),
                                  (["--gain", "-0.5"], "--gain -0.5: use 0 to 10")] {
            let run = try CLIRun.pianola(["render", song, "-o", scratch.url.appendingPathComponent("x.wav").path, "--soundfont", Self.font] + arguments)
            #expect(run.status == 1 && run.stderr == "pianola: \(says)\n", "\(arguments): \(run.stderr)")
        }
    }

    @Test("a bar:beat:tick that is no place in the song's meter is refused with the range")
    func impossiblePositions() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.fourBars())
        let out = scratch.url.appendingPathComponent("x.wav").path
        for (position, says) in [("3:5", "bar 3 has 4 beats (4/4): give a beat from 1 to 4"), ("1:30", "bar 1 has 4 beats (4/4): give a beat from 1 to 4"),
                                 ("3:1:9999", "a beat of bar 3 (1/4) has 480 ticks: give a tick from 0 to 479")] {
            let run = try CLIRun.pianola("render", song, "--from", position, "-o", out, "--soundfont", Self.font)
            #expect(run.status == 1 && run.stderr == "pianola: --from \(position): \(says)\n", "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        let fine = try CLIRun.pianola("render", song, "--from", "3:4:479", "-o", out, "--soundfont", Self.font, "--tail", "0")
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    @Test("-o - writes the audio to standard output (WAV, FLAC or raw), and the words to standard error")
    func standardOutput() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.fourBars())
        let file = scratch.url.appendingPathComponent("file.wav").path
        _ = try CLIRun.pianola("render", song, "-o", file, "--soundfont", Self.font)
        let piped = try CLIRun.pianolaBytes("render", song, "-o", "-", "--soundfont", Self.font)
        #expect(piped.status == 0)
        #expect(piped.stderr.contains("SoundFont: \(Self.font)") && piped.stderr.contains("wrote standard output: "))
        #expect(Array(piped.stdout.prefix(4)) == Array("RIFF".utf8) && Array(piped.stdout[36..<40]) == Array("data".utf8))
        let samples = try Data(contentsOf: URL(fileURLWithPath: file)).dropFirst(44)
        #expect(piped.stdout.dropFirst(44) == samples, "the same samples as the file's")
        let flac = try CLIRun.pianolaBytes("render", song, "-o", "-", "--format", "flac", "--soundfont", Self.font)
        #expect(flac.status == 0 && Array(flac.stdout.prefix(4)) == Array("fLaC".utf8))
        let raw = try CLIRun.pianolaBytes("render", song, "-o", "-", "--format", "raw", "--soundfont", Self.font)
        #expect(raw.status == 0 && raw.stdout == samples)
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("-").path))
    }

    @Test("a folder as -o takes the song's file, named after it")
    func folderOutput() throws {
        let scratch = try Scratch()
        let song = try scratch.write("tune.mid", Self.fourBars())
        let folder = scratch.url.appendingPathComponent("renders").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let run = try CLIRun.pianola("render", song, "-o", folder, "--soundfont", Self.font)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/tune.wav"))
    }

    /// Two tracks, format 1: "Melody" on channel 1 and "Drums" on channel 10, a note every beat for two bars.
    static func melodyAndDrums() -> [UInt8] {
        func track(_ name: String, channel: UInt8, key: UInt8) -> MIDIFile.Track {
            var events = [MIDIEvent(tick: 0, .meta(.text(.trackName, Array(name.utf8))))]
            for beat in 0..<8 {
                events.append(MIDIEvent(tick: beat * 480, .noteOn(channel: channel, note: key, velocity: 100)))
                events.append(MIDIEvent(tick: beat * 480 + 240, .noteOff(channel: channel, note: key, velocity: 0)))
            }
            return .init(events: events + [MIDIEvent(tick: 8 * 480, .meta(.endOfTrack))])
        }
        return MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [track("Melody", channel: 0, key: 72), track("Drums", channel: 9, key: 38)]).serialized()
    }

    @Test("tracks by number, list, range or name and channels by number; the song's path is never taken as a track; silencing everything warns")
    func trackOptions() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.melodyAndDrums())
        let gm = NewUserTests.gmFont
        var renders: [String: Data] = [:]
        func render(_ name: String, _ options: [String], before: Bool = false) throws -> CLIRun {
            let out = scratch.url.appendingPathComponent("\(name).wav").path
            let run = try CLIRun.pianola(["render"] + (before ? options + [song] : [song] + options) + ["-o", out, "--soundfont", gm, "--tail", "0"])
            renders[name] = try? Data(contentsOf: URL(fileURLWithPath: out))
            return run
        }
        #expect(try render("all", []).status == 0)
        #expect(try render("muteBefore", ["--mute", "2"], before: true).status == 0, "the path after --mute 2 is the song")
        _ = try render("muteDrumChannel", ["--mute-channel", "10"])
        _ = try render("soloMelodyName", ["--solo", "melody"])
        _ = try render("soloChannel1", ["--solo-channel", "1"])
        #expect(renders["muteBefore"] != nil && renders["muteBefore"] != renders["all"])
        #expect(renders["muteDrumChannel"] == renders["muteBefore"] && renders["soloMelodyName"] == renders["muteBefore"] && renders["soloChannel1"] == renders["muteBefore"])
        _ = try render("muteList", ["--mute", "1,2"])
        _ = try render("muteRange", ["--mute", "1-2"])
        let twice = try render("muteTwice", ["--mute", "1", "--mute", "Drums"])
        #expect(renders["muteList"] == renders["muteRange"] && renders["muteRange"] == renders["muteTwice"])
        #expect(twice.status == 0 && twice.stderr == "pianola: \(song): warning: the mutes and solos leave no note to hear\n")
        for (options, says) in [(["--mute-channel", "17"], "--mute-channel 17: give channels 1 to 16, or ranges such as 1-9"),
                                (["--solo", "Nope"], "no track named 'Nope' in \(song); give a number or a name as 'pianola info' lists them"),
                                (["--mute", "2-5"], "track 2-5 does not exist: \(song) has 2 tracks")] {
            let run = try render("bad", options)
            #expect(run.status == 1 && run.stderr == "pianola: \(says)\n", "\(options): \(run.stderr)")
        }
    }

    static let gmFont = RenderCommandTests.root.appendingPathComponent("soundfonts/pianola-gm.sf2").path

    @Test("every line fits 100 columns, long paths cut in the middle; a font that fails is not announced; stdout and stderr keep their order in one pipe")
    func lineWidths() throws {
        let scratch = try Scratch()
        let deep = scratch.url.appendingPathComponent(String(repeating: "a-rather-long-folder-name/", count: 6)).path
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        let song = try scratch.write("four.mid", Self.fourBars())
        let out = deep + "/out.wav"
        let font = deep + "/font.sf2"
        try FileManager.default.copyItem(atPath: Self.gmFont, toPath: font)
        let render = try CLIRun.pianola("render", song, "-o", out, "--soundfont", font)
        #expect(render.status == 0, "\(render.stderr)")
        let play = try CLIRun.pianola("play", song, "--device", "null", "--soundfont", font)
        #expect(play.status == 0, "\(play.stderr)")
        for line in (render.stdout + render.stderr + play.stdout + play.stderr).split(separator: "\n") {
            #expect(line.count <= 100, "\(line.count) columns: \(line)")
        }
        #expect(render.stdout.contains("SoundFont: \(font.prefix(10))") && render.stdout.contains("…") && render.stdout.contains("font.sf2 (--soundfont)"))
        #expect(play.stdout.contains("Audio: null, 48000 Hz"), "\(play.stdout)")

        let broken = try scratch.write("broken.sf2", Array("RIFF\u{4}\0\0\0sfbk".utf8))
        let refused = try CLIRun.pianola("render", song, "-o", scratch.url.appendingPathComponent("x.wav").path, "--soundfont", broken)
        #expect(refused.status == 1 && !refused.stdout.contains("SoundFont:"), "\(refused.stdout)")

        let wav = try scratch.write("click.wav", WithAudioTests.clickWav(rate: 48_000))
        let both = try CLIRun.pianola(["-c", "'\(CLIRun.binary.path)' render '\(song)' --with '\(wav)@9:1' -o '\(scratch.url.appendingPathComponent("y.wav").path)' --soundfont '\(Self.font)' 2>&1"],
                                      prefix: ["/bin/sh"], bare: true)
        let lines = both.stdout.split(separator: "\n").map(String.init)
        let warning = lines.firstIndex { $0.contains("starts 8 s after") }, announced = lines.firstIndex { $0.hasPrefix("SoundFont:") }
        #expect(warning != nil && announced != nil && warning! < announced!, "\(lines)")
    }

    @Test("info lists lyrics, copyright, key and each channel's programs by General MIDI name; takes several files; JSON tempos are round")
    func info() throws {
        let kar = RenderCommandTests.root.deletingLastPathComponent().appendingPathComponent("shared/corpus/midi/jazzsoft__test-karaoke-kar.mid").path
        let scratch = try Scratch()
        var events = [MIDIEvent(tick: 0, .meta(.text(.copyright, Array("(c) Pianola".utf8)))),
                      MIDIEvent(tick: 0, .meta(.keySignature(KeySignature(sharps: -3, isMinor: false)))),
                      MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 535_714))),      // 112.00005973… bpm
                      MIDIEvent(tick: 0, .programChange(channel: 0, program: 40)),
                      MIDIEvent(tick: 0, .meta(.text(.lyric, Array("Hel".utf8)))), MIDIEvent(tick: 240, .meta(.text(.lyric, Array("lo\r".utf8)))),
                      MIDIEvent(tick: 480, .meta(.text(.lyric, Array("world".utf8))))]
        events += [MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 90)), MIDIEvent(tick: 100, .noteOn(channel: 9, note: 38, velocity: 90)),
                   MIDIEvent(tick: 480, .programChange(channel: 0, program: 0)), MIDIEvent(tick: 480, .noteOn(channel: 0, note: 62, velocity: 90)),
                   MIDIEvent(tick: 960, .meta(.endOfTrack))]
        let song = try scratch.write("song.mid", MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: events.sorted { $0.tick < $1.tick })]).serialized())
        let run = try CLIRun.pianola("info", song, kar)
        #expect(run.status == 0, "\(run.stderr)")
        for line in ["  key Eb", "  copyright \"(c) Pianola\"", "    channel 1   Violin, Acoustic Grand Piano", "    channel 10  drums",
                     "    0:00.00  Hello", "    0:00.54  world", "\n\n\(kar)\n", "    0:00.00  Mary was a little lame,", "    0:07.67  A little lame was she!",
                     "  tempo 112 bpm"] {
            #expect(run.stdout.contains(line), "\(line)")
        }
        let json = try CLIRun.pianola("info", "--json", song)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect((object["tempoChanges"] as! [[String: Any]])[0]["bpm"] as? Double == 112)
        #expect((object["programs"] as! [[String: Any]]).map { $0["channel"] as! Int } == [1, 10])
        let both = try CLIRun.pianola("info", "--json", song, kar)
        #expect((try JSONSerialization.jsonObject(with: Data(both.stdout.utf8)) as? [Any])?.count == 2)
        let oneBad = try CLIRun.pianola("info", song, scratch.url.appendingPathComponent("gone.mid").path)
        #expect(oneBad.status == 1 && oneBad.stdout.contains("  key Eb") && oneBad.stderr.hasSuffix("gone.mid: No such file or directory\n"))
    }

    @Test("on a terminal the status line shows the song's name and its place in the playlist, and fits the terminal's width")
    func statusLine() throws {
        let scratch = try Scratch()
        let long = String(repeating: "A Very Long Song Title ", count: 6)
        var events = [MIDIEvent(tick: 0, .meta(.text(.trackName, Array(long.utf8))))]
        events += [MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 90)), MIDIEvent(tick: 960, .noteOff(channel: 0, note: 60, velocity: 0)),
                   MIDIEvent(tick: 960, .meta(.endOfTrack))]
        let named = try scratch.write("named.mid", MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: events)]).serialized())
        let plain = try scratch.write("plain.mid", Self.fourBars())
        let command = "stty cols 60; '\(CLIRun.binary.path)' play '\(named)' '\(plain)' --device null --soundfont '\(Self.font)'"
        let (status, shown) = try CLIRun.inTerminal(command)
        #expect(status == 0)
        let drawn = shown.replacingOccurrences(of: "\u{1B}[K", with: "").replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\r", with: "\n").split(separator: "\n").map(String.init)
        let statuses = drawn.filter { $0.contains(" / 0:") }
        #expect(statuses.contains { $0.hasPrefix("1/2 A Very") && $0.contains("… ") && $0.contains("Title  0:") }, "\(statuses)")
        #expect(statuses.contains { $0.hasPrefix("2/2 plain.mid  0:") }, "\(statuses)")
        #expect(statuses.allSatisfy { $0.count < 60 }, "\(statuses.map(\.count))")
    }

    @Test("play shows each lyric line as it is sung: a karaoke file through a device drained in real time", .listensInRealTime)
    func lyricsWhilePlaying() throws {
        let kar = RenderCommandTests.root.deletingLastPathComponent().appendingPathComponent("shared/corpus/midi/jazzsoft__test-karaoke-kar.mid").path
        let scratch = try Scratch()
        let fifo = scratch.url.appendingPathComponent("device.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // The device: takes 48,000 stereo float frames a second, as a sound card does. Its pipe
        // is shrunk to 4 KB (F_SETPIPE_SZ) before the player opens it: a pipe holds 64 KB (170
        // ms) unless told, far more than a sound card, and it cannot shrink once that full.
        let fd = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(fcntl(fd, 1031, Int32(4_096)) >= 4_096)
        _ = fcntl(fd, F_SETFL, Int32(0))                   // blocking again
        // How much audio the device has taken, in bytes: where the listener is in the song. A
        // line is measured against it, not against the wall clock, so a machine too busy to keep
        // time delays the audio and the lines alike and the test still holds.
        let heard = Atomic<Int>(-1)
        let device = Thread {
            var buffer = [UInt8](repeating: 0, count: 3_840)   // 10 ms
            var start: Date?
            var taken = 0, waited = 0
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 {
                    waited += 1
                    if start == nil && waited < 60_000 { usleep(1_000); continue }   // no player yet (a minute at most)
                    break
                }
                if start == nil { start = Date() }
                taken += n
                heard.store(taken, ordering: .relaxed)
                let due = start!.addingTimeInterval(Double(taken) / 384_000)   // 48,000 frames of two floats a second
                if due > Date() { usleep(useconds_t(due.timeIntervalSinceNow * 1e6)) }
            }
            close(fd)
        }
        device.start()
        let process = Process(), output = Pipe()
        process.executableURL = CLIRun.binary
        process.arguments = ["play", kar, "--soundfont", Self.font, "--device", "file:'\(fifo)',raw"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var sung: [(text: String, at: Double)] = []   // seconds of audio heard when the line was shown
        var pending = Data()
        while case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
            pending += chunk
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                if line.hasPrefix("♪ "), let gap = line.range(of: "  ") { sung.append((String(line[gap.upperBound...]), Double(heard.load(ordering: .relaxed)) / 384_000)) }
            }
        }
        process.waitUntilExit()
        #expect(sung.map(\.text) == ["Mary was a little lame,", "Little lame,", "Little lame,", "Mary was a little lame,", "A little lame was she!"])
        // Each line appears when its first syllable is heard: 0, 2.67, 4, 5.33 and 7.67 s into the audio.
        #expect(heard.load(ordering: .relaxed) > 0, "the device heard the song")
        if sung.count == 5 {
            for (line, due) in zip(sung, [0.0, 2.667, 4.0, 5.333, 7.667]) {
                let late = line.at - due
                #expect(late > -0.1 && late < 0.25, "\(line.text): \(Int(late * 1000)) ms after its time")
            }
        }
    }

    @Test("--version prints the project's one version number, pianola.h's, which debian/changelog and the Python module's metadata repeat")
    func version() throws {
        let root = RenderCommandTests.root
        let header = try String(contentsOf: root.appendingPathComponent("Sources/CPianola/pianola.h"), encoding: .utf8)
        let run = try CLIRun.pianola("--version")
        #expect(run.status == 0)
        let version = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(header.contains("#define PIANOLA_VERSION_STRING \"\(version)\""), "\(version)")
        let changelog = try String(contentsOf: root.appendingPathComponent("debian/changelog"), encoding: .utf8)
        #expect(changelog.hasPrefix("pianola (\(version)) "), "\(changelog.prefix(40))")
        let pyproject = try String(contentsOf: root.appendingPathComponent("python/pyproject.toml"), encoding: .utf8)
        #expect(pyproject.contains("\nversion = \"\(version)\"\n"))
    }

    @Test("pianola starts without libfluidsynth, libjack, libpipewire, GLib, cairo, X11, libsoxr or OpenMP (the loader's trace lists none); a render on Pianola's synthesizer opens none of them, one on libfluidsynth opens it, one with a 44.1 kHz file libsoxr, roll opens cairo")
    func librariesOpenedOnUse() throws {
        let trace = try CLIRun.pianola(["--version"], environment: ["LD_TRACE_LOADED_OBJECTS": "1"])
        #expect(trace.status == 0)
        #expect(trace.stdout.contains("libasound.so.2"), "\(trace.stdout)")
        for library in ["libfluidsynth", "libjack", "libpipewire", "libglib", "libcairo", "libX11", "libsoxr", "libgomp"] {
            #expect(!trace.stdout.contains(library), "\(library) is linked")
        }
        let scratch = try Scratch()
        /// What a render of the ode on `engine` (with `more` arguments) opens with dlopen.
        func opened(rendering engine: String, _ more: [String] = []) throws -> [String] {
            let render = try CLIRun.pianola(["render", RenderCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path, "--synth", engine,
                                             "--soundfont", Self.gmFont, "--to", "2:1", "-o", scratch.url.appendingPathComponent("ode.wav").path, "--force"] + more,
                                            environment: ["LD_DEBUG": "files"])
            #expect(render.status == 0)
            // LD_DEBUG=files: "file=NAME [0];  dynamically loaded by PROGRAM" for each dlopen, and
            // "needed by" for what a library needs (libfluidsynth needs libjack itself).
            return render.stderr.split(separator: "\n").filter { $0.contains("dynamically loaded by") }.map {
                $0.split(separator: "file=").last.map { String($0.prefix { $0 != " " }) } ?? ""
            }
        }
        let own = try opened(rendering: "pianola")
        #expect(!own.contains { $0.hasPrefix("libfluidsynth") || $0.hasPrefix("libjack") || $0.hasPrefix("libpipewire") || $0.hasPrefix("libcairo") || $0.hasPrefix("libsoxr") },
                "\(own)")
        let click = try scratch.write("click.wav", WithAudioTests.clickWav(rate: 44_100))
        let resampling = try opened(rendering: "pianola", ["--with", click])
        #expect(resampling.contains("libsoxr.so.0"), "a 44.1 kHz file is converted to 48 kHz by libsoxr: \(resampling)")
        let fluid = try opened(rendering: "fluidsynth")
        #expect(fluid.contains("libfluidsynth.so.3"), "\(fluid)")
        #expect(!fluid.contains { $0.hasPrefix("libjack") || $0.hasPrefix("libpipewire") || $0.hasPrefix("libcairo") }, "\(fluid)")
        let roll = try CLIRun.pianola(["roll", RenderCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path,
                                       "-o", scratch.url.appendingPathComponent("ode.svg").path], environment: ["LD_DEBUG": "files"])
        #expect(roll.status == 0)
        #expect(roll.stderr.split(separator: "\n").contains { $0.contains("file=libcairo.so.2") && $0.contains("dynamically loaded by") },
                "roll opens cairo when it draws")
    }

    @Test("with no PipeWire or JACK socket to connect to, play chooses ALSA without loading libpipewire or libjack to ask, and plays")
    func defaultDriverLooksFirst() throws {
        let scratch = try Scratch()
        let raw = scratch.url.appendingPathComponent("out.raw").path
        let play = try CLIRun.pianola(["play", RenderCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path, "--soundfont", Self.gmFont,
                                       "--device", "file:'\(raw)',raw", "--to", "2:1", "--quiet"],
                                      environment: ["LD_DEBUG": "files", "PIANOLA_DRIVER": "", "XDG_RUNTIME_DIR": scratch.url.path, "PIPEWIRE_RUNTIME_DIR": "",
                                                    "PIPEWIRE_REMOTE": "", "JACK_DEFAULT_SERVER": "pianola-nobody-\(getpid())"])
        #expect(play.status == 0, "\(play.stderr.suffix(300))")
        let opened = play.stderr.split(separator: "\n").filter { $0.contains("dynamically loaded by") }.map {
            $0.split(separator: "file=").last.map { String($0.prefix { $0 != " " }) } ?? ""
        }
        #expect(!opened.contains { $0.hasPrefix("libjack") || $0.hasPrefix("libpipewire") }, "\(opened)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: raw)).count > 48_000 * 2, "a bar of ode-to-joy reached ALSA's file plugin")
    }

    @Test("the audio drivers are one table: pianola.h's codes, the Python module's, --driver's help and pianola devices all follow AudioDriver, whose default choice Swift, C and Python share")
    func driverTable() throws {
        let root = RenderCommandTests.root
        let header = try String(contentsOf: root.appendingPathComponent("Sources/CPianola/pianola.h"), encoding: .utf8)
        let inHeader = Dictionary(uniqueKeysWithValues: header.matches(of: /PIANOLA_DRIVER_([A-Z]+) = (\d+)/).map { (String($0.1), Int32($0.2)!) })
        let table = Dictionary(uniqueKeysWithValues: AudioDriver.allCases.map { ($0.rawValue.uppercased(), $0.code) })
        #expect(inHeader == table.merging(["DEFAULT": 0]) { $1 })
        let python = try String(contentsOf: root.appendingPathComponent("python/pianola/_library.py"), encoding: .utf8)
        let drivers = try #require(python.firstMatch(of: /DRIVERS = \{None: 0, ([^}]*)\}/)?.1)
        let inPython = Dictionary(uniqueKeysWithValues: drivers.matches(of: /"([a-z]+)": (\d+)/).map { (String($0.1).uppercased(), Int32($0.2)!) })
        #expect(inPython == table)
        // The defaults: C's pianola_output_start and pianola_play_file and Python's driver=None.
        #expect(header.contains("pianola_output_start_driver on the driver `pianola play` chooses (PIANOLA_DRIVER_DEFAULT)"))
        #expect(header.contains("pianola_play_file_driver on the driver `pianola play` chooses (PIANOLA_DRIVER_DEFAULT)"))
        let module = try ["__init__.py", "_offline.py"].map { try String(contentsOf: root.appendingPathComponent("python/pianola/\($0)"), encoding: .utf8) }.joined()
        #expect(module.matches(of: /driver: Optional\[str\] = None/).count == 2 && !module.contains("driver: Optional[str] = \""))
        let help = try CLIRun.pianola("play", "--help").stdout.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ")
        for driver in AudioDriver.allCases { #expect(help.contains(driver.rawValue), "\(driver) is missing from play's --driver help") }
        let devices = try CLIRun.pianola("devices", "--driver", "oss")
        #expect(devices.status != 0 && AudioDriver.allCases.allSatisfy { devices.stderr.contains($0.rawValue) }, "\(devices.stderr)")
    }

    @Test("shell completions for bash, zsh and fish come from the command definitions; bash's parses")
    func completions() throws {
        let scratch = try Scratch()
        for shell in ["bash", "zsh", "fish"] {
            let run = try CLIRun.pianola("--generate-completion-script", shell)
            #expect(run.status == 0)
            for word in ["render", "play", "record", "soundfont", "mute-channel", "skip-existing"] {
                #expect(run.stdout.contains(word), "\(shell): \(word)")
            }
            if shell == "bash" {
                let script = try scratch.write("pianola.bash", Array(run.stdout.utf8))
                let parse = Process()
                parse.executableURL = URL(fileURLWithPath: "/bin/bash")
                parse.arguments = ["-n", script]
                try parse.run()
                parse.waitUntilExit()
                #expect(parse.terminationStatus == 0)
            }
        }
    }

    @Test("small words: one note, one byte; --force worded alike; record's --thru and --route say what they do; audio placed past the end warns")
    func wording() throws {
        let scratch = try Scratch()
        let one = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [.init(events: [
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 90)), MIDIEvent(tick: 480, .meta(.endOfTrack)),
        ])]).serialized()
        let song = try scratch.write("one.mid", one + [0])   // and one byte of junk after the track
        let info = try CLIRun.pianola("info", song)
        #expect(info.stdout.contains(", 1 note\n") && info.stdout.contains(" 1 note   channels"), "\(info.stdout)")
        #expect(info.stdout.contains("1 byte after the last chunk is not a chunk"), "\(info.stdout)")
        let help = try CLIRun.pianola("record", "--help")
        #expect(help.stdout.contains("Also pass what arrives, as it arrives, to the synth") && help.stdout.contains("With --play: send the song's chosen tracks"))
        let wav = try scratch.write("click.wav", WithAudioTests.clickWav(rate: 48_000))
        let late = try CLIRun.pianola("render", try scratch.write("four.mid", Self.fourBars()), "--with", "\(wav)@9:1", "-o",
                                      scratch.url.appendingPathComponent("x.wav").path, "--soundfont", Self.font)
        #expect(late.status == 0 && late.stderr.contains("pianola: --with \(wav)@9:1: starts 8 s after "), "\(late.stderr)")
    }

    @Test("a playlist skips a song it cannot read and plays the rest, then says so in its status; folders play their songs; --shuffle plays them all")
    func playlist() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("list").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["battle", "town"] {
            try FileManager.default.copyItem(atPath: RenderCommandTests.root.appendingPathComponent("songs/\(name).mid").path, toPath: "\(folder)/\(name).mid")
        }
        let bad = try scratch.write("list/bad.mid", Array("junk".utf8))
        let run = try CLIRun.pianola("play", folder, "--device", "null", "--soundfont", Self.gmFont)
        #expect(run.status == 1)
        #expect(run.stderr == "pianola: \(bad): byte 0: not a Standard MIDI File (no 'MThd' header)\npianola: 1 of 3 songs could not be played (each said above)\n")
        let played = run.stdout.split(separator: "\n").filter { $0.contains(" / 0:") }
        #expect(played.first?.hasPrefix("2/3 Battle (Pianola game loop)  0:") == true && played.last?.hasPrefix("3/3 Town (Pianola game loop)  0:") == true,
                "bad.mid, first, is skipped: \(run.stdout)")
        let shuffled = try CLIRun.pianola("play", "\(folder)/town.mid", "\(folder)/battle.mid", "--shuffle", "--device", "null", "--soundfont", Self.gmFont)
        #expect(shuffled.status == 0 && shuffled.stdout.contains("Battle (Pianola game loop)  0:") && shuffled.stdout.contains("Town (Pianola game loop)  0:"))
    }

    @Test("--loop forever plays until stopped; a render refuses it")
    func loopForever() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.fourBars())
        // Unpaced (the null device), one play takes a moment: still playing after 3 s is endless.
        let endless = try CLIRun.pianola(["--preserve-status", "-s", "INT", "3", CLIRun.binary.path, "play", song, "--loop", "forever", "--device", "null", "--soundfont", Self.font, "--quiet"],
                                         prefix: ["/usr/bin/timeout"], bare: true)
        #expect(endless.status == 130, "\(endless.stderr)")
        let refused = try CLIRun.pianola("render", song, "--loop", "0", "-o", scratch.url.appendingPathComponent("x.wav").path, "--soundfont", Self.font)
        #expect(refused.status == 1 && refused.stderr == "pianola: --loop 0: a render must end; give a number of plays\n")
        let bad = try CLIRun.pianola("render", song, "--loop", "often", "-o", scratch.url.appendingPathComponent("x.wav").path, "--soundfont", Self.font)
        #expect(bad.status == 1 && bad.stderr == "pianola: --loop often: play 1 to 1000 times, or forever (0)\n")
    }

    @Test("a misspelt command gets the closest; an unknown one the list; a MIDI file as the first word plays it")
    func commands() throws {
        let paly = try CLIRun.pianola("paly", "x.mid")
        #expect(paly.status == 1 && paly.stderr == "pianola: unknown command 'paly'; did you mean 'play'?\n")
        let rendr = try CLIRun.pianola("rendr")
        #expect(rendr.status == 1 && rendr.stderr == "pianola: unknown command 'rendr'; did you mean 'render'?\n")
        let xyzzy = try CLIRun.pianola("xyzzy")
        #expect(xyzzy.status == 1 && xyzzy.stderr == "pianola: unknown command 'xyzzy'; the commands are convert, devices, effects, info, play, plugins, ports, receive, record, render, roll, send, or give MIDI files to play\n")
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", Self.fourBars())
        let played = try CLIRun.pianola(song, "--device", "null", "--soundfont", Self.font, "--quiet")
        #expect(played.status == 0, "\(played.stderr)")
        let missing = try CLIRun.pianola(scratch.url.appendingPathComponent("gone.mid").path, "--device", "null")
        #expect(missing.status == 1 && missing.stderr.hasSuffix("gone.mid: No such file or directory\n"), "\(missing.stderr)")
    }
}
