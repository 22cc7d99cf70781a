import Foundation
import Pianola
import SF2
import SoundFontModel

/// Voices per core, SynthMark's way: how many voices of a looped sample, each with its filter
/// swept by an LFO and its volume envelope on, one core keeps at 48 kHz with 90 % of it busy,
/// for Pianola's synthesizer and libfluidsynth (reverb and chorus off on both, 256-frame
/// calls). Each engine's CPU per second of audio is measured at two voice counts, three rounds
/// interleaved; the line through the medians gives a first count at 90 %. A voice costs more
/// once the voices outgrow the caches, so renders at that count (the median of three) then
/// move it in proportion to the load they measure until one takes 88...92 % of the core (at
/// most four moves); that count and its load are the figure. With valgrind installed,
/// cachegrind counts each engine's instructions per voice-frame (the difference between two
/// voice counts, so the fixed work drops out).
func voicesBenchmark() throws -> [Figure] {
    let font = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-voices-\(getpid()).sf2").path
    try Data(VoiceLoad.font().serialized()).write(to: URL(fileURLWithPath: font))
    defer { try? FileManager.default.removeItem(atPath: font) }
    let counts = (low: VoiceLoad.layers * 16, high: VoiceLoad.layers * 128)
    print("Voices per core: a looped sample, its filter swept by an LFO, envelopes on, 48 kHz, 256-frame calls; \(counts.low) and \(counts.high) voices, 3 rounds")
    var loads: [VoiceLoad.Engine: (low: [Double], high: [Double])] = [:]
    for _ in 0..<3 {
        for engine in VoiceLoad.Engine.allCases {
            let low = try VoiceLoad.load(engine, voices: counts.low, seconds: 2, font: font)
            let high = try VoiceLoad.load(engine, voices: counts.high, seconds: 2, font: font)
            loads[engine, default: ([], [])].low.append(low)
            loads[engine, default: ([], [])].high.append(high)
        }
    }
    var figures: [Figure] = []
    var perCore: [VoiceLoad.Engine: Int] = [:]
    for engine in VoiceLoad.Engine.allCases {
        let (low, high) = (median(loads[engine]!.low), median(loads[engine]!.high))
        let perVoice = (high - low) / Double(counts.high - counts.low)   // CPU seconds per second of audio, a voice
        let fixed = low - perVoice * Double(counts.low)
        let estimate = Int((0.9 - fixed) / perVoice)
        let (measured, busy) = try VoiceLoad.ninetyPercent(engine, from: estimate, font: font)
        // A noisy machine can keep the load out of the band after the last move: the count is
        // then the measured one scaled to 90 %, and the figure says so.
        let inBand = abs(busy - 0.9) <= 0.02
        let voices = inBand ? measured : Int((Double(measured) * 0.9 / busy).rounded())
        perCore[engine] = voices
        let how = inBand ? "measured" : String(format: "scaled to 90 %% from %d voices", measured)
        print(String(format: "  %@: %.1f ns a voice-frame, %.3f of a core fixed, so %d voices at 90 %%; measured: %d voices take %.1f %% of the core%@",
                     engine.rawValue, perVoice / 48_000 * 1e9, fixed, estimate, measured, busy * 100, inBand ? "" : ", outside 88...92 % after the last move"))
        figures.append(Figure(measure: "voices per core at 48 kHz, 90 % busy: \(engine.rawValue)",
                              value: "\(voices) (\(how) at \(String(format: "%.1f", busy * 100)) % of the core; \(String(format: "%.1f", perVoice / 48_000 * 1e9)) ns a voice-frame at 256...2048)"))
    }
    let ratio = Double(perCore[.pianola]!) / Double(perCore[.fluidsynth]!)
    print(String(format: "  ratio: %.2f×", ratio))
    figures.append(Figure(measure: "voices per core: Pianola ÷ libfluidsynth", value: String(format: "%.2f×", ratio)))
    figures += try VoiceLoad.instructionCounts(font: font)
    return figures
}

/// The voice load of `voicesBenchmark`: its font, a render at a voice count, cachegrind's counts.
enum VoiceLoad {
    /// The two synthesizers.
    enum Engine: String, CaseIterable {
        case pianola, fluidsynth
    }

    /// Voices a note starts: the preset layers this many zones over every key.
    static let layers = 16
    /// Keys 24...107 on the 15 channels but the percussion's 10th, each note `layers` voices
    /// (the keys 5 cents apart, so that every voice reads about one point a frame).
    static let keys = 24...107
    static let channels = (0..<16).filter { $0 != 9 }
    /// The most voices the notes give.
    static let maxVoices = keys.count * channels.count * layers

    /// One preset: `layers` zones of a looped 100 Hz tone with 16 harmonics, each a little
    /// detuned, 5 cents a key, its low-pass (1.5 kHz, 10 dB resonance) swept ±2 octaves by the modulation LFO at
    /// 6 Hz, a volume envelope (10 ms attack, 0.5 s decay to −6 dB) and 40 dB of attenuation.
    static func font() -> SF2File {
        var file = SF2File(name: "Voice load")
        let rate = 48_000, cycle = 480
        let points = (0..<rate).map { i -> Int16 in
            let phase = 2 * Double.pi * Double(i % cycle) / Double(cycle)
            let value = (1...16).reduce(0.0) { $0 + sin(phase * Double($1)) / Double($1) }
            return Int16((value * 0.5 * 32_767 / 1.9).rounded())
        }
        let sample = file.add(SF2Sample(name: "tone", data: points, sampleRate: rate, rootKey: 60, loop: (start: rate / 2, end: rate)))
        let zones = (0..<layers).map { layer in
            SF2Instrument.Zone(sample: sample, generators: [
                .filterCutoff(9_000), .filterQ(100), .other(10, 2_400), .other(22, -500),
                .attack(-7_973), .decay(-1_200), .sustain(60), .attenuation(400),
                .other(52, Int16(layer * 3 - 24)), .scaleTuning(5),   // fine tune, cents
                .sampleModes(1), .sampleID(sample),
            ])
        }
        let instrument = file.add(SF2Instrument(name: "layers", zones: zones))
        file.presets = [SF2Preset(name: "layers", bank: 0, program: 0, zones: [SF2Preset.Zone(instrument: instrument)])]
        return file
    }

    /// The voice count, a multiple of `layers`, whose render takes 88...92 % of a core for
    /// `engine`, found from `estimate` by moving it in proportion to the load measured there
    /// (the median of three renders), at most four times; that count and its load (outside
    /// the band when the machine's noise kept it there).
    static func ninetyPercent(_ engine: Engine, from estimate: Int, font: String) throws -> (voices: Int, load: Double) {
        /// `count` held to what the notes can give, in whole notes.
        func whole(_ count: Int) -> Int { min(max(count, layers), maxVoices) / layers * layers }
        var (voices, moves) = (whole(estimate), 0)
        while true {
            let busy = median(try (0..<3).map { _ in try load(engine, voices: voices, seconds: 2, font: font) })
            // The load returned is always the one measured at the count returned.
            if abs(busy - 0.9) <= 0.02 || moves == 4 { return (voices, busy) }
            voices = whole(Int(Double(voices) * 0.9 / busy))
            moves += 1
        }
    }

    /// A fresh synthesizer of `engine` with the font at `path`, `voices` sounding (a multiple
    /// of `layers`), its process CPU per second of audio over `seconds` once the attacks are over.
    static func load(_ engine: Engine, voices: Int, seconds: Double, font path: String) throws -> Double {
        let synthesizer = try make(engine, voices: voices, font: path)
        let block = 256
        var left = [Float](repeating: 0, count: block), right = left
        func render(_ frames: Int) {
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    for _ in 0..<frames / block { synthesizer.render(left: l.baseAddress!, right: r.baseAddress!, frames: block) }
                }
            }
        }
        start(voices, on: synthesizer)
        render(12_288)
        let sounding = (synthesizer as? SoundFontSynthesizer)?.activeVoices ?? (synthesizer as? FluidSynthesizer)?.activeVoiceCount ?? 0
        guard sounding == voices else { throw BenchError("voices: \(engine.rawValue) sounds \(sounding) voices of \(voices)") }
        let before = cpuSeconds()
        render(Int(seconds * 48_000))
        return (cpuSeconds() - before) / seconds
    }

    /// `engine`'s synthesizer at 48 kHz with room for `voices`, reverb and chorus off.
    static func make(_ engine: Engine, voices: Int, font path: String) throws -> any SoundFontPlayer {
        switch engine {
        case .pianola:
            var configuration = SoundFontSynthesizer.Configuration()
            (configuration.polyphony, configuration.reverb, configuration.chorus) = (voices + 64, nil, nil)
            return SoundFontSynthesizer(font: try SoundFont(path: path), configuration: configuration)
        case .fluidsynth:
            var configuration = FluidSynthesizer.Configuration()
            (configuration.polyphony, configuration.reverb, configuration.chorus) = (voices + 64, false, false)
            let synthesizer = try FluidSynthesizer(configuration: configuration)
            _ = try synthesizer.loadSoundFont(path: path)
            return synthesizer
        }
    }

    /// Starts `voices / layers` notes: keys of `keys` on `channels` in turn.
    static func start(_ voices: Int, on synthesizer: any SoundFontPlayer) {
        for note in 0..<voices / layers {
            synthesizer.noteOn(channel: channels[note % channels.count], key: keys.lowerBound + note / channels.count % keys.count, velocity: 100)
        }
    }

    /// `pianola-bench voices-child ENGINE VOICES`: a quarter second of `VOICES` rendered, for cachegrind to count.
    static func child(_ arguments: [String]) throws {
        guard arguments.count == 3, let engine = Engine(rawValue: arguments[1]), let voices = Int(arguments[2]) else {
            throw BenchError("usage: pianola-bench voices-child pianola|fluidsynth VOICES FONT")
        }
        _ = try load(engine, voices: voices, seconds: 0.25, font: arguments[0])
    }

    /// Each engine's instructions per voice-frame: cachegrind's count of a quarter second at
    /// two voice counts, the difference over the voice-frames between them.
    static func instructionCounts(font: String) throws -> [Figure] {
        let valgrind = "/usr/bin/valgrind"
        guard FileManager.default.isExecutableFile(atPath: valgrind) else {
            print("  instructions: valgrind is not installed (apt-get install valgrind), so they are not counted")
            return []
        }
        // valgrind cannot read the Swift release build's debug information: a copy without it.
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-stripped-\(getpid())").path
        try? FileManager.default.removeItem(atPath: binary)
        try FileManager.default.copyItem(atPath: CommandLine.arguments[0], toPath: binary)
        defer { try? FileManager.default.removeItem(atPath: binary) }
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: "/usr/bin/strip")
        strip.arguments = ["--strip-debug", binary]
        try strip.run()
        strip.waitUntilExit()
        var figures: [Figure] = []
        for engine in Engine.allCases {
            let counts = try [layers * 4, layers * 36].map { voices in
                try instructions(valgrind, [binary, "voices-child", font, engine.rawValue, "\(voices)"])
            }
            let frames = 12_288 + 12_000 / 256 * 256   // the child's attacks and its quarter second, in whole calls
            let perVoiceFrame = Double(counts[1] - counts[0]) / Double(layers * 32 * frames)
            print(String(format: "  %@: %.1f instructions a voice-frame (cachegrind)", engine.rawValue, perVoiceFrame))
            figures.append(Figure(measure: "instructions a voice-frame: \(engine.rawValue)", value: String(format: "%.1f", perVoiceFrame)))
        }
        return figures
    }

    /// The instructions `command` runs under cachegrind.
    static func instructions(_ valgrind: String, _ command: [String]) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments = ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"] + command
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = text.split(separator: "\n").first(where: { $0.contains("I refs:") || $0.contains("I   refs:") }),
              let count = Int(line.split(separator: ":").last!.filter(\.isNumber)) else {
            throw BenchError("voices: cachegrind of \(command.joined(separator: " ")) failed: \(text.suffix(300))")
        }
        return count
    }
}
