import Foundation
import Testing
import TestSupport

/// `pianola render SONGS… -o FOLDER/`: many songs, one shared font, every core.
@Suite("pianola render of many songs, run as a user runs it", .cpuHeavy)
struct BatchRenderTests {
    static let root = RenderCommandTests.root
    static let font = root.appendingPathComponent("soundfonts/pianola-gm.sf2").path
    static let songNames = ["battle", "greensleeves", "ode-to-joy", "town", "twinkle"]

    /// The project's songs copied into `scratch/songs`, `ode-to-joy` and `town` in a subfolder.
    static func songFolder(_ scratch: Scratch) throws -> String {
        let folder = scratch.url.appendingPathComponent("songs")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for name in songNames {
            let to = folder.appendingPathComponent(["ode-to-joy", "town"].contains(name) ? "sub/\(name).mid" : "\(name).mid")
            try FileManager.default.copyItem(at: root.appendingPathComponent("songs/\(name).mid"), to: to)
        }
        try Data("not a song".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        return folder.path
    }

    /// Every file under `folder`, relative, sorted.
    static func files(_ folder: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted()
    }

    @Test("a folder renders every song in its place; each file matches a single --whole-font render to the byte; a bad song is reported and skipped")
    func folder() throws {
        let scratch = try Scratch()
        let songs = try Self.songFolder(scratch)
        let bad = try scratch.write("songs/sub/broken.mid", Array("MThd".utf8) + [0, 0])
        let out = scratch.url.appendingPathComponent("out").path
        let run = try CLIRun.pianola("render", songs, "-o", out + "/", "--soundfont", Self.font, "--threads", "2")
        #expect(run.status == 1)
        #expect(Self.files(out) == ["battle.wav", "greensleeves.wav", "sub/ode-to-joy.wav", "sub/town.wav", "twinkle.wav"])
        #expect(run.stdout.contains("rendering 6 songs on 2 threads"))
        #expect(run.stdout.contains("rendered 5 songs"))
        let errors = run.stderr.split(separator: "\n")
        #expect(errors == ["pianola: \(bad): byte 0: the file ends inside the MIDI header (size 6)", "pianola: 1 of 6 songs failed (each said above)"])
        for (name, path) in [("battle", "battle.wav"), ("ode-to-joy", "sub/ode-to-joy.wav")] {
            let single = scratch.url.appendingPathComponent("\(name).wav").path
            let alone = try CLIRun.pianola("render", Self.root.appendingPathComponent("songs/\(name).mid").path, "-o", single, "--soundfont", Self.font, "--whole-font")
            #expect(alone.status == 0, "\(alone.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: single)) == Data(contentsOf: URL(fileURLWithPath: out + "/" + path)), "\(name)")
        }
    }

    @Test("--synth pianola: a batch shares one font read by Pianola's reader, and each file matches a single render of the song to the byte")
    func pianolasEngine() throws {
        let scratch = try Scratch()
        let songs = try Self.songFolder(scratch)
        let out = scratch.url.appendingPathComponent("out").path
        let run = try CLIRun.pianola("render", songs, "-o", out + "/", "--soundfont", Self.font, "--synth", "pianola", "--threads", "2")
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        #expect(Self.files(out).count == 5)
        for (name, path) in [("town", "sub/town.wav"), ("twinkle", "twinkle.wav")] {
            let single = scratch.url.appendingPathComponent("\(name).wav").path
            let alone = try CLIRun.pianola("render", Self.root.appendingPathComponent("songs/\(name).mid").path, "-o", single, "--soundfont", Self.font, "--synth", "pianola")
            #expect(alone.status == 0, "\(alone.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: single)) == Data(contentsOf: URL(fileURLWithPath: out + "/" + path)), "\(name)")
        }
    }

    @Test("with effects on (a delay in the song's tempo and an EQ), each file of a batch matches a single render with them to the byte")
    func effects() throws {
        let scratch = try Scratch()
        let songs = try Self.songFolder(scratch)
        let out = scratch.url.appendingPathComponent("out").path
        let fx = ["--fx", "delay,time=1/8.,feedback=0.4", "--fx", "eq,low_gain=4,mid2_gain=-6,high_gain=3"]
        let run = try CLIRun.pianola(["render", songs, "-o", out + "/", "--soundfont", Self.font, "--threads", "2"] + fx)
        #expect(run.status == 0, "\(run.stderr)")
        for (name, path) in [("greensleeves", "greensleeves.wav"), ("town", "sub/town.wav")] {
            let single = scratch.url.appendingPathComponent("\(name).wav").path
            let alone = try CLIRun.pianola(["render", Self.root.appendingPathComponent("songs/\(name).mid").path, "-o", single, "--soundfont", Self.font, "--whole-font"] + fx)
            #expect(alone.status == 0, "\(alone.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: single)) == Data(contentsOf: URL(fileURLWithPath: out + "/" + path)), "\(name)")
        }
    }

    @Test("outputs that exist are refused before anything renders; --skip-existing keeps them and renders the rest; --force replaces them")
    func existing() throws {
        let scratch = try Scratch()
        let songs = try Self.songFolder(scratch)
        let out = scratch.url.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let kept = Data("mine".utf8)
        try kept.write(to: URL(fileURLWithPath: out + "/twinkle.wav"))
        let refused = try CLIRun.pianola("render", songs, "-o", out, "--soundfont", Self.font)
        #expect(refused.status == 1)
        #expect(refused.stderr == "pianola: \(out)/twinkle.wav already exists; use --force to replace, or --skip-existing to keep what is there\n")
        #expect(Self.files(out) == ["twinkle.wav"])
        let resumed = try CLIRun.pianola("render", songs, "-o", out, "--soundfont", Self.font, "--skip-existing")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("rendering 4 songs") && resumed.stdout.contains("1 already there, skipped"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/twinkle.wav")) == kept)
        #expect(Self.files(out).count == 5)
        let forced = try CLIRun.pianola("render", songs, "-o", out, "--soundfont", Self.font, "--force")
        #expect(forced.status == 0 && forced.stdout.contains("rendered 5 songs"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/twinkle.wav")).count > 100_000)
    }

    @Test("--shard K/N: the shards are disjoint, cover every song, and are the same on every run")
    func shards() throws {
        let scratch = try Scratch()
        let songs = try Self.songFolder(scratch)
        var seen: [String] = []
        for k in 1...2 {
            let out = scratch.url.appendingPathComponent("shard\(k)").path
            let run = try CLIRun.pianola("render", songs, "-o", out + "/", "--soundfont", Self.font, "--shard", "\(k)/2", "--tail", "0")
            #expect(run.status == 0, "\(run.stderr)")
            seen += Self.files(out)
            // Every second song of the sorted list, from the k-th.
            let sorted = ["battle.wav", "greensleeves.wav", "sub/ode-to-joy.wav", "sub/town.wav", "twinkle.wav"]
            #expect(Self.files(out) == sorted.enumerated().filter { $0.offset % 2 == k - 1 }.map(\.element))
        }
        #expect(seen.sorted() == ["battle.wav", "greensleeves.wav", "sub/ode-to-joy.wav", "sub/town.wav", "twinkle.wav"])
        for bad in ["3/2", "0/2", "1/0", "a/b", "2"] {
            let run = try CLIRun.pianola("render", songs, "-o", scratch.url.appendingPathComponent("x").path + "/", "--soundfont", Self.font, "--shard", bad)
            #expect(run.status == 1 && run.stderr == "pianola: --shard \(bad): give K/N, the K-th of N parts, with 1 ≤ K ≤ N (e.g. 2/8)\n")
        }
    }

    @Test("a pattern names outputs and labels; two songs that would write one file are refused; one file for many songs is refused")
    func naming() throws {
        let scratch = try Scratch()
        let songs = try Self.songFolder(scratch)
        let out = scratch.url.appendingPathComponent("flac").path
        let labels = scratch.url.appendingPathComponent("labels").path
        let run = try CLIRun.pianola("render", songs + "/battle.mid", songs + "/sub/town.mid", "-o", out + "/{name}-mix.flac",
                                     "--labels", labels + "/", "--soundfont", Self.font)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.files(out) == ["battle-mix.flac", "town-mix.flac"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/town-mix.flac")).prefix(4) == Data("fLaC".utf8))
        #expect(Self.files(labels) == ["battle.csv", "town.csv"])
        let rows = try String(contentsOfFile: labels + "/town.csv", encoding: .utf8).split(separator: "\n")
        #expect(rows.count > 20 && rows[0].hasPrefix("channel,key,velocity"))

        let twin = scratch.url.appendingPathComponent("twin").path
        try FileManager.default.createDirectory(atPath: twin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: songs + "/battle.mid", toPath: twin + "/battle.mid")
        let clash = try CLIRun.pianola("render", songs + "/battle.mid", twin + "/battle.mid", "-o", out + "/", "--soundfont", Self.font)
        #expect(clash.status == 1)
        #expect(clash.stderr == "pianola: \(songs)/battle.mid and \(twin)/battle.mid would both write \(out)/battle.wav; name outputs with a pattern or give folders, whose layout is kept\n")
        let one = try CLIRun.pianola("render", songs + "/battle.mid", twin + "/battle.mid", "-o", out + "/x.wav", "--soundfont", Self.font)
        #expect(one.status == 1 && one.stderr == "pianola: -o \(out)/x.wav names one file for many songs: give a folder (out/) or a pattern (out/{name}.wav)\n")
    }

    @Test("interrupted, a batch leaves only whole files, and --skip-existing finishes it")
    func interrupted() throws {
        let scratch = try Scratch()
        let songs = scratch.url.appendingPathComponent("many").path
        try FileManager.default.createDirectory(atPath: songs, withIntermediateDirectories: true)
        for i in 1...6 { try FileManager.default.copyItem(atPath: Self.root.appendingPathComponent("songs/greensleeves.mid").path, toPath: "\(songs)/g\(i).mid") }
        let out = scratch.url.appendingPathComponent("out").path
        let process = Process()
        process.executableURL = CLIRun.binary
        process.arguments = ["render", songs, "-o", out + "/", "--soundfont", Self.font, "--loop", "8", "--threads", "2"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupt once the first song is written, while others are under way (a song takes
        // seconds here, and minutes in a build without the synthesizer's optimization on a busy
        // machine: the deadline only stops a hang).
        let deadline = Date().addingTimeInterval(900)
        while Self.files(out).filter({ $0.hasSuffix(".wav") && !$0.hasPrefix(".") }).isEmpty && Date() < deadline && process.isRunning { usleep(20_000) }
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let left = Self.files(out)
        #expect(!left.isEmpty && left.count < 6, "\(left)")
        #expect(left.allSatisfy { !$0.contains("partial") }, "\(left)")
        let resumed = try CLIRun.pianola("render", songs, "-o", out + "/", "--soundfont", Self.font, "--loop", "8", "--skip-existing")
        #expect(resumed.status == 0 && resumed.stdout.contains("\(left.count) already there, skipped"))
        let sizes = Set(Self.files(out).map { (try? FileManager.default.attributesOfItem(atPath: out + "/" + $0)[.size] as? Int) ?? 0 })
        #expect(Self.files(out).count == 6 && sizes.count == 1, "every copy whole and alike: \(sizes)")
    }

    @Test("on a terminal, a progress bar says songs done and audio written, and is gone at the end")
    func progressBar() throws {
        let scratch = try Scratch()
        let songs = try Self.songFolder(scratch)
        let out = scratch.url.appendingPathComponent("out").path
        let command = [CLIRun.binary.path, "render", songs, "-o", out + "/", "--soundfont", Self.font, "--threads", "1"].joined(separator: " ")
        let (status, shown) = try CLIRun.inTerminal(command)
        #expect(status == 0)
        #expect(shown.contains("] ") && shown.contains("/5 songs, "), "\(shown)")
        #expect(shown.contains("\u{1B}[K"))
        #expect(!shown.contains("wrote "), "per-song lines are for logs, not terminals")
        #expect(shown.contains("rendered 5 songs"))
    }
}
