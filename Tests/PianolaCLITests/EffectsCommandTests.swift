import Foundation
import Pianola
import Testing

@Suite("pianola --fx and pianola effects, run as a user runs them")
struct EffectsCommandTests {
    /// The frames of an audio file, left and right.
    static func read(_ path: String) throws -> (left: [Float], right: [Float]) {
        let reader = try AudioFileReader(path: path)
        var interleaved = [Float](repeating: 0, count: Int(reader.frames) * reader.channels)
        let count = try interleaved.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: Int(reader.frames)) }
        return (stride(from: 0, to: 2 * count, by: 2).map { interleaved[$0] }, stride(from: 1, to: 2 * count, by: 2).map { interleaved[$0] })
    }

    @Test("a chain on the output sounds exactly as the dry render through the same effects: a low-pass, a peak and a high shelf")
    func chainOnTheOutput() throws {
        let scratch = try Scratch()
        let song = RenderCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path
        let dryPath = scratch.url.appendingPathComponent("dry.wav").path, wetPath = scratch.url.appendingPathComponent("wet.wav").path
        let chain = ["lowpass,cutoff=1.2kHz,q=2", "peak,frequency=300,q=1.5,gain=+6dB", "highshelf,frequency=5000,gain=-12"]
        let common = ["render", song, "--soundfont", RenderCommandTests.testFont, "--bits", "32f", "--tail", "0"]
        let dryRun = try CLIRun.pianola(common + ["-o", dryPath])
        let wetRun = try CLIRun.pianola(common + ["-o", wetPath] + chain.flatMap { ["--fx", $0] })
        #expect(dryRun.status == 0 && wetRun.status == 0, "\(dryRun.stderr)\(wetRun.stderr)")
        let dry = try Self.read(dryPath), wet = try Self.read(wetPath)
        #expect(dry.left.count == wet.left.count && dry.left.count > 48_000)
        // The dry render through the same units, offline.
        let units = try chain.map { try EffectSpec($0).makeUnit() }
        let buffer = AudioBuffer(capacity: dry.left.count)
        buffer.left.update(from: dry.left, count: dry.left.count)
        buffer.right.update(from: dry.right, count: dry.right.count)
        for unit in units {
            unit.prepare(sampleRate: 48_000, maxFrames: dry.left.count)
            unit.process(buffer.slice(frames: dry.left.count))
        }
        var signal = 0.0, error = 0.0, change = 0.0
        for i in 0..<min(dry.left.count, wet.left.count) {
            for (expected, got, before) in [(buffer.left[i], wet.left[i], dry.left[i]), (buffer.right[i], wet.right[i], dry.right[i])] {
                signal += Double(expected * expected)
                error += Double((expected - got) * (expected - got))
                change += Double((expected - before) * (expected - before))
            }
        }
        let snr = 10 * log10(signal / max(error, 1e-30)), changed = 10 * log10(change / signal)
        print("--fx chain: \(String(format: "%.1f", snr)) dB SNR against the dry render through the same units; the chain changed it by \(String(format: "%.1f", changed)) dB")
        #expect(snr >= 90)
        #expect(changed > -20, "the effects changed the sound audibly")
    }

    @Test("a delay of a dotted eighth at the song's 120 bpm echoes exactly 18,000 frames later")
    func tempoDelay() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", RenderCommandTests.song())
        let dryPath = scratch.url.appendingPathComponent("dry.wav").path, wetPath = scratch.url.appendingPathComponent("wet.wav").path
        let common = ["render", song, "--soundfont", RenderCommandTests.testFont, "--bits", "32f", "--reverb", "off", "--chorus", "off"]
        _ = try CLIRun.pianola(common + ["-o", dryPath])
        let run = try CLIRun.pianola(common + ["-o", wetPath, "--fx", "delay,time=1/8.,feedback=0,mix=1"])
        #expect(run.status == 0, "\(run.stderr)")
        let dry = try Self.read(dryPath).left, wet = try Self.read(wetPath).left
        let onset = dry.firstIndex { $0 != 0 }!
        #expect(wet.firstIndex { $0 != 0 } == onset + 18_000)
        #expect(wet.count >= dry.count + 18_000 - 4_096, "the echo rings out after the voices: \(wet.count) frames, dry \(dry.count)")
        #expect((0..<min(dry.count, wet.count - 18_000)).allSatisfy { wet[$0 + 18_000] == dry[$0] }, "the echo is the sound itself")
    }

    @Test("an LV2 plugin on the output (MDA Overdrive) sounds as lv2apply makes the dry render sound, and a built-in after it still applies")
    func lv2OnTheOutput() throws {
        let scratch = try Scratch()
        let song = RenderCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path
        let dryPath = scratch.url.appendingPathComponent("dry.wav").path, wetPath = scratch.url.appendingPathComponent("wet.wav").path
        let appliedPath = scratch.url.appendingPathComponent("applied.wav").path
        let common = ["render", song, "--soundfont", RenderCommandTests.testFont, "--bits", "32f", "--tail", "0", "--to", "8"]
        let dryRun = try CLIRun.pianola(common + ["-o", dryPath])
        let wetRun = try CLIRun.pianola(common + ["-o", wetPath, "--fx", "mda overdrive,drive=0.6,muffle=0.2,output=0.4"])
        #expect(dryRun.status == 0 && wetRun.status == 0, "\(dryRun.stderr)\(wetRun.stderr)")
        let lv2apply = Process()
        lv2apply.executableURL = URL(fileURLWithPath: "/usr/bin/lv2apply")
        lv2apply.arguments = ["-i", dryPath, "-o", appliedPath, "-c", "drive", "0.6", "-c", "muffle", "0.2", "-c", "output", "0.4",
                              "http://drobilla.net/plugins/mda/Overdrive"]
        try lv2apply.run()
        lv2apply.waitUntilExit()
        #expect(lv2apply.terminationStatus == 0)
        let applied = try Self.read(appliedPath), wet = try Self.read(wetPath)
        var signal = 0.0, error = 0.0
        for i in 0..<min(applied.left.count, wet.left.count) {
            for (expected, got) in [(applied.left[i], wet.left[i]), (applied.right[i], wet.right[i])] {
                signal += Double(expected * expected)
                error += Double((expected - got) * (expected - got))
            }
        }
        let snr = 10 * log10(signal / max(error, 1e-30))
        print("--fx 'mda overdrive': \(String(format: "%.1f", snr)) dB SNR against lv2apply on the dry render")
        #expect(applied.left.count == wet.left.count && snr >= 90)
    }

    @Test("an LV2 effect that stops with its input (MDA Overdrive, a distortion) ends the render where the dry one ends; a delay (MDA Delay) goes on a second more, and past it while it still sounds")
    func lv2TailByClass() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", RenderCommandTests.song())
        func length(_ effects: [String]) throws -> Int {
            let out = scratch.url.appendingPathComponent("out\(effects.count)-\(effects.first?.count ?? 0).wav").path
            let run = try CLIRun.pianola(["render", song, "--soundfont", RenderCommandTests.testFont, "--bits", "32f", "--to", "2", "-o", out]
                                         + effects.flatMap { ["--fx", $0] })
            #expect(run.status == 0, "\(run.stderr)")
            return try Self.read(out).left.count
        }
        let dry = try length([]), overdrive = try length(["mda overdrive"]), delay = try length(["mda delay"])
        print("render lengths: dry \(dry), through MDA Overdrive \(overdrive), through MDA Delay \(delay) frames")
        #expect(overdrive == dry)
        #expect(delay >= dry + 48_000)
    }

    @Test("an LV2 preset by label sets the values lilv reads for it (a value given beside it wins), and a render with one plays")
    func lv2Preset() throws {
        // Compared as specs: some MDA plugins read memory they never cleared, so two renders of
        // theirs differ whatever the values (MDA Detune, ThruZero, Leslie, Splitter).
        let plugin = try LV2World.shared().plugin("mda leslie")
        let label = plugin.presets[0].label
        let values = try LV2World.shared().presetValues(plugin, preset: label)
        func spelled(_ values: [String: Double]) -> String { values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }
        #expect(values.count == plugin.controlInputs.count)
        #expect(try EffectSpec("mda leslie,preset=\(label.lowercased())").values == EffectSpec("mda leslie,\(spelled(values))").values)
        let first = values.keys.sorted()[0]
        var changed = values
        changed[first] = values[first]! > 0.5 ? 0.1 : 0.9
        #expect(try EffectSpec("mda leslie,preset=\(label),\(first)=\(changed[first]!)").values == EffectSpec("mda leslie,\(spelled(changed))").values)
        let scratch = try Scratch()
        let out = scratch.url.appendingPathComponent("out.wav").path
        let run = try CLIRun.pianola("render", try scratch.write("song.mid", RenderCommandTests.song()), "-o", out, "--soundfont", RenderCommandTests.testFont,
                                    "--bits", "32f", "--fx", "mda leslie,preset=\(label)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.read(out).left.contains { abs($0) > 0.01 })
    }

    @Test("pianola plugins lists the installed LV2 plugins, and one plugin's ports and presets")
    func plugins() throws {
        let all = try CLIRun.pianola("plugins")
        #expect(all.status == 0)
        #expect(all.stdout.contains("MDA Delay  <http://drobilla.net/plugins/mda/Delay>  [Delay Plugin]  2 in, 2 out, 6 parameters\n"))
        #expect(all.stdout.contains("MDA JX10  <http://drobilla.net/plugins/mda/JX10>  [Instrument Plugin]  0 in, 2 out, 24 parameters, 52 presets, takes MIDI\n"))
        let one = try CLIRun.pianola("plugins", "mda jx10")
        #expect(one.stdout.contains("  in  control osc_mix 0..1 (default 1): OSC Mix\n"))
        #expect(one.stdout.contains("  not usable as --fx: LV2 plugin 'MDA JX10' is an instrument (MIDI in, no audio in), not an effect\n"))
        #expect(one.stdout.contains("  preset: "))
    }

    @Test("stems with an effect on still sum to the mix")
    func stemsWithEffects() throws {
        let scratch = try Scratch()
        let song = try scratch.write("song.mid", StemsCommandTests.twoTrackSong())
        let out = scratch.url.appendingPathComponent("mix.wav").path
        let folder = scratch.url.appendingPathComponent("stems").path
        let run = try CLIRun.pianola("render", song, "-o", out, "--soundfont", RenderCommandTests.testFont, "--stems", folder, "--fx", "lowshelf,frequency=500,gain=6")
        #expect(run.status == 0, "\(run.stderr)")
        let mix = try RenderCommandTests.wavLeft(out)
        let stems = try ["track-02-Lead-A.wav", "track-03.wav"].map { try RenderCommandTests.wavLeft("\(folder)/\($0)") }
        #expect(stems.allSatisfy { $0.count == mix.count })
        let worst = mix.indices.map { i in abs(stems.reduce(0) { $0 + Int($1[i]) } - Int(mix[i])) }.max()!
        #expect(worst <= 3, "the stems differ from the mix by up to \(worst) LSB")
    }

    @Test("effects on a track's bus and a channel's: each bus sounds as its events alone through the same effects on the output, and the buses sum to the mix")
    func trackAndChannelBuses() throws {
        let scratch = try Scratch()
        let song = RenderCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path
        let common = ["render", song, "--soundfont", RenderCommandTests.testFont, "--bits", "32f", "--tail", "0", "--to", "8"]
        let buses = ["--fx", "track2:lowpass,cutoff=300", "--fx", "ch10:highpass,cutoff=3000", "--fx", "ch10:peak,frequency=6kHz,gain=6dB"]
        func render(_ name: String, _ arguments: [String]) throws -> [Float] {
            let path = scratch.url.appendingPathComponent(name + ".wav").path
            let run = try CLIRun.pianola(common + ["-o", path] + arguments)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let audio = try Self.read(path)
            return zip(audio.left, audio.right).flatMap { [$0, $1] }
        }
        let mix = try render("mix", buses)
        let melody = try render("melody", buses + ["--solo", "2"]), rest = try render("rest", buses + ["--mute", "2"])
        let melodyOnOutput = try render("melody-output", ["--solo", "2", "--fx", "lowpass,cutoff=300"])
        let melodyDry = try render("melody-dry", ["--solo", "2"])
        let drums = try render("drums", buses + ["--solo-channel", "10"])
        let drumsOnOutput = try render("drums-output", ["--solo-channel", "10", "--fx", "highpass,cutoff=3000", "--fx", "peak,frequency=6kHz,gain=6dB"])
        #expect(melody.count > 48_000 * 2 * 7 && [rest, melodyOnOutput, drums, drumsOnOutput].allSatisfy { $0.count == melody.count } && mix.count == melody.count)
        // Compared first, so that a failure reports where rather than diffing the whole renders.
        // Within -120 dBFS: a silent libfluidsynth synthesizer (the song's, with every note on a
        // bus) still adds its reverb's anti-denormal offset, about 1e-8.
        func firstDifference(_ a: [Float], _ b: [Float]) -> String {
            guard let at = a.indices.first(where: { $0 < b.count && abs(a[$0] - b[$0]) > 1e-6 }) else { return a.count == b.count ? "none" : "lengths \(a.count) and \(b.count)" }
            return "frame \(at / 2): \(a[at]) against \(b[at]), largest \(zip(a, b).map { abs($0 - $1) }.max()!)"
        }
        let melodyDifference = firstDifference(melody, melodyOnOutput), drumsDifference = firstDifference(drums, drumsOnOutput)
        #expect(melodyDifference == "none", "track 2 on its bus sounds as track 2 alone through the low-pass on the output")
        #expect(firstDifference(melody, melodyDry) != "none", "and the low-pass changed it")
        #expect(drumsDifference == "none", "channel 10 on its bus sounds as channel 10 alone through the chain on the output")
        let worst = zip(mix, zip(melody, rest)).map { abs($0 - ($1.0 + $1.1)) }.max()!
        print("track and channel buses: the mix differs from its two parts' sum by at most \(worst)")
        #expect(worst < 1e-6, "the buses sum to the mix")
    }

    @Test("an LV2 plugin that needs the worker, given a preset's state (x42's preset convolver, No-OP): the render is the dry render 64 frames later, from the first note")
    func workerAndState() throws {
        let scratch = try Scratch()
        let song = RenderCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path
        let common = ["render", song, "--soundfont", RenderCommandTests.testFont, "--bits", "32f", "--tail", "0", "--to", "6"]
        let dryPath = scratch.url.appendingPathComponent("dry.wav").path, wetPath = scratch.url.appendingPathComponent("wet.wav").path
        let dryRun = try CLIRun.pianola(common + ["-o", dryPath])
        let wetRun = try CLIRun.pianola(common + ["-o", wetPath, "--fx", "x42 - Preset Convolver Stereo,preset=No-OP Stereo"])
        #expect(dryRun.status == 0 && wetRun.status == 0, "\(dryRun.stderr)\(wetRun.stderr)")
        let dry = try Self.read(dryPath), wet = try Self.read(wetPath)
        var power = 0.0, error = 0.0
        for i in 0..<min(dry.left.count, wet.left.count - 64) {
            for (expected, got) in [(dry.left[i], wet.left[i + 64]), (dry.right[i], wet.right[i + 64])] {
                power += Double(expected * expected)
                error += Double((expected - got) * (expected - got))
            }
        }
        let snr = 10 * log10(power / max(error, 1e-30))
        print("x42 preset convolver through the worker, No-OP preset: \(String(format: "%.1f", snr)) dB SNR against the dry render 64 frames later")
        #expect(power > 1 && snr >= 120)
    }

    @Test("an LV2 bundle with broken Turtle is one line naming the bundle, the file and line, and nothing is written; other plugins still play")
    func brokenTurtle() throws {
        let scratch = try Scratch()
        let bundles = scratch.url.appendingPathComponent("lv2")
        let broken = bundles.appendingPathComponent("broken.lv2")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data("""
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            <urn:pianola:test:broken> a lv2:Plugin ; lv2:binary <broken.so> ;; oops {

            """.utf8).write(to: broken.appendingPathComponent("manifest.ttl"))
        let environment = ["LV2_PATH": bundles.path + ":/usr/lib/lv2"]
        let song = try scratch.write("song.mid", RenderCommandTests.song())
        let out = scratch.url.appendingPathComponent("out.wav").path
        let run = try CLIRun.pianola(["render", song, "-o", out, "--soundfont", RenderCommandTests.testFont, "--fx", "urn:pianola:test:broken"],
                                     environment: environment)
        BadInputTableTests.check(run, says: "a bundle could not be read: \(broken.path): manifest.ttl:2:", "a broken manifest")
        #expect(!FileManager.default.fileExists(atPath: out))
        let other = try CLIRun.pianola(["render", song, "-o", out, "--soundfont", RenderCommandTests.testFont, "--fx", "mda overdrive"], environment: environment)
        #expect(other.status == 0 && other.stderr.isEmpty, "lilv's complaints about another bundle stay out of the way: \(other.stderr)")
        let listed = try CLIRun.pianola(["plugins"], environment: environment)
        #expect(listed.status == 0 && listed.stderr.contains("warning: LV2 bundle \(broken.path) could not be read: manifest.ttl:2:"), "\(listed.stderr)")
    }

    @Test("pianola effects lists every built-in with its parameters, ranges and defaults")
    func list() throws {
        let run = try CLIRun.pianola("effects")
        #expect(run.status == 0)
        for effect in BuiltInEffect.all {
            #expect(run.stdout.contains("\(effect.name): \(effect.summary)\n"))
            for parameter in effect.parameters { #expect(run.stdout.contains("    \(parameter.name)=")) }
        }
        #expect(run.stdout.contains("    cutoff=10..24000 Hz (default 20000): "))
    }
}
