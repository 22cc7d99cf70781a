import FluidSynth
import Glibc
import SF2
import SoundFontModel
import SoundFontSynth

/// Pianola's synthesizer against libfluidsynth on what the input makes: one instrument zone
/// over a looped tone, with up to eight generators and four modulators, each within the range
/// SF2.04 section 8.1.3 gives it, and a note held then released. Both render it, reverb and
/// chorus off; in every 20 ms window where either is above −50 dBFS and within 24 dB of
/// libfluidsynth's loudest, each side's level must be within 6 dB of libfluidsynth's. A wide
/// net: it catches a generator or a modulator one engine applies and the other does not, a
/// sign, a unit, an envelope stage out of place, not the fractions of a dB the preset
/// conformance table measures.
enum DifferentialTarget {
    /// The generators played with, and the range each may take (SF2.04 section 8.1.3): the
    /// sample offsets within the tone, the effects sends left out (reverb and chorus are off),
    /// the LFOs' and the modulation envelope's pitch depths within two octaves (deeper, a
    /// note swings to thousands of sample points a frame, and the two engines' rounding of
    /// so fast a phase drifts apart: the noise it makes is not comparable).
    static let ranges: [(generator: Int, range: ClosedRange<Int16>)] = [
        (0, 0...400), (1, -400...0), (2, -400...400), (3, -400...400),
        (5, -2_400...2_400), (6, -2_400...2_400), (7, -2_400...2_400), (8, 1_500...13_500), (9, 0...960),
        (10, -12_000...12_000), (11, -12_000...12_000), (13, -960...960), (17, -500...500),
        (21, -12_000...5_000), (22, -16_000...4_500), (23, -12_000...5_000), (24, -16_000...4_500),
        (25, -12_000...5_000), (26, -12_000...8_000), (27, -12_000...5_000), (28, -12_000...8_000), (29, 0...1_000),
        (30, -12_000...8_000), (31, -1_200...1_200), (32, -1_200...1_200),
        (33, -12_000...5_000), (34, -12_000...8_000), (35, -12_000...5_000), (36, -12_000...8_000), (37, 0...1_440),
        (38, -12_000...8_000), (39, -1_200...1_200), (40, -1_200...1_200),
        (46, 0...127), (47, 0...127), (48, 0...1_440), (51, -120...120), (52, -99...99), (54, 0...3), (56, 0...1_200), (58, 0...127),
    ]
    /// The modulator sources SF2.04 section 8.2.1 defines: the general controllers (none, note-on
    /// velocity and key, poly and channel pressure, the wheel and its range) and the MIDI
    /// controllers a source may name.
    static let sources: [UInt16] = [0, 2, 3, 10, 13, 14, 16] + [1, 7, 10, 11, 71, 74, 91].map { 0x80 | $0 }
    static let rate = 48_000, window = 960, block = 64

    static func run(_ bytes: [UInt8]) {
        var input = InputReader(bytes)
        let key = Int(input.next(1) & 0x7F), velocity = Int(input.next(1) % 127) + 1
        let held = block * (8 + Int(input.next(1)) * 3)          // 10 ms to 0.5 s, on libfluidsynth's blocks
        var generators: [SF2Generator] = []
        for _ in 0..<input.next(1) % 9 {
            let (generator, range) = ranges[Int(input.next(1)) % ranges.count]
            let amount = Int(range.lowerBound) + Int(input.next(2)) % (Int(range.upperBound) - Int(range.lowerBound) + 1)
            generators.append(generator == 54 ? .sampleModes(Int16(amount == 2 ? 1 : amount)) : .other(generator, Int16(amount)))
        }
        var modulators: [SF2Modulator] = []
        for _ in 0..<input.next(1) % 5 {
            let form = UInt16(input.next(1) & 0x0F) << 8                // curve type, polarity, direction
            let source = sources[Int(input.next(1)) % sources.count] | form
            let amountSource = input.next(1) & 1 == 0 ? 0 : sources[Int(input.next(1)) % sources.count] | UInt16(input.next(1) & 0x0F) << 8
            // Not the sample modes, the key number or the velocity: libfluidsynth reads the
            // last two while it works the modulators out, so what they add depends on order.
            var destination = UInt16(ranges[Int(input.next(1)) % ranges.count].generator)
            if [46, 47, 54, 56, 58].contains(destination) { destination = 48 }
            // Into the pitch, no more than two octaves, as the generators' depths. Into the
            // sample offsets, 20 points a modulator, so that four of them and the generators
            // together keep every offset within the tone: libfluidsynth 2.3.1 reads outside its
            // sample (SIGSEGV) when modulators move the offsets thousands of points past its ends.
            let reach: Int16? = destination == 51 ? 24 : [5, 6, 7, 52].contains(destination) ? 2_400
                : (0...3).contains(destination) ? 20 : nil
            let amount = Int16(bitPattern: UInt16(input.next(2)))
            modulators.append(SF2Modulator(source: source, destination: destination, amount: reach.map { amount % ($0 + 1) } ?? amount,
                                           amountSource: amountSource))
        }
        let controllers = (0..<4).map { _ in Int(input.next(1) & 0x7F) }   // CC1, CC7, CC11, the wheel's high byte
        // A note more than three octaves above its sample steps over more than eight points a
        // frame, up to millions where the scale tuning and the root key pull apart: the two
        // engines' rounding of so fast a phase drifts apart, and past a loop's length a frame
        // they wrap it differently (libfluidsynth's fixed point overflows), so the noise is not
        // comparable. Such notes are left out, as the pitch depths above are bounded.
        func amounts(_ generator: Int) -> [Int] { generators.compactMap { if case .other(generator, let v) = $0 { Int(v) } else { nil } } }
        let playedKey = amounts(46).max() ?? key, root = amounts(58).min() ?? 43, scale = amounts(56).max() ?? 100
        let swing = modulators.reduce(0) { $0 + abs(Int($1.amount)) * ($1.destination == 51 ? 100 : $1.destination == 52 ? 1 : 0) }
        guard scale * (playedKey - root) + 100 * (amounts(51).max() ?? 0) + (amounts(52).max() ?? 0) + swing <= 3_600 else { return }
        compare(font(generators, modulators), key: key, velocity: velocity, held: held, controllers: controllers,
                described: "key \(key) velocity \(velocity) held \(held) frames, controllers \(controllers), generators \(generators), modulators \(modulators.map { ($0.source, $0.destination, $0.amount, $0.amountSource) })")
    }

    /// A font of one preset: one zone over a looped tone of ten harmonics at 100 Hz (480 points
    /// a period at 48 kHz, root key 43 sharpened to it), with `generators` and `modulators`.
    static func font(_ generators: [SF2Generator], _ modulators: [SF2Modulator]) -> [UInt8] {
        let data = (0..<4_800).map { i -> Int16 in
            var x = 0.0
            for h in 1...10 { x += sin(2 * Double.pi * Double(h * i) / 480) / Double(h) }
            return Int16(x * 12_000)
        }
        var file = SF2File(name: "differential")
        let sample = file.add(SF2Sample(name: "tone", data: data, sampleRate: rate, rootKey: 43, pitchCorrection: 0, loop: (480, 4_320)))
        let zone = SF2Instrument.Zone(sample: sample, generators: ([.sampleModes(1)] + generators).sorted(), modulators: modulators)
        let instrument = file.add(SF2Instrument(name: "zone", zones: [zone]))
        file.presets.append(SF2Preset(name: "preset", bank: 0, program: 0, zones: [.init(instrument: instrument)]))
        return file.serialized()
    }

    /// `font` played by both synthesizers; fails with `described` when a window's level differs.
    static func compare(_ font: [UInt8], key: Int, velocity: Int, held: Int, controllers: [Int], described: String) {
        let frames = held + rate / 2
        let path = ScratchFile.write(font, extension: "sf2")
        defer { unlink(path) }
        var configuration = FluidSynthesizer.Configuration()
        configuration.sampleRate = Double(rate)
        configuration.reverb = false
        configuration.chorus = false
        configuration.decodedFontFolder = nil
        let theirs: FluidSynthesizer, ours: SoundFontSynthesizer
        do {
            theirs = try FluidSynthesizer(configuration: configuration)
            _ = try theirs.loadSoundFont(path: path)
            ours = SoundFontSynthesizer(font: try SoundFont(bytes: font, name: "differential.sf2"), sampleRate: Double(rate))
        } catch {
            fail("a font the writer made does not load: \(error)")
        }
        var renders: [[Float]] = []
        for synthesizer in [theirs as any SoundFontPlayer, ours] {
            for (controller, value) in zip([1, 7, 11], controllers) { synthesizer.controlChange(channel: 0, controller: controller, value: value) }
            synthesizer.pitchBend(channel: 0, value: controllers[3] << 7)
            synthesizer.noteOn(channel: 0, key: key, velocity: velocity)
            var left = [Float](repeating: 0, count: frames), right = left
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    synthesizer.render(left: l.baseAddress!, right: r.baseAddress!, frames: held)
                    synthesizer.noteOff(channel: 0, key: key)
                    synthesizer.render(left: l.baseAddress! + held, right: r.baseAddress! + held, frames: frames - held)
                }
            }
            renders += [left, right]
        }
        func level(_ x: [Float], _ start: Int) -> Double {
            var power = 0.0
            for i in start..<start + window { power += Double(x[i] * x[i]) }
            return 10 * log10(max(power / Double(window), 1e-30))
        }
        // Windows far under the note's loudest (a filter swept to 20 Hz, a release's end) are
        // where the engines' float rounding shows, not what they play: left out.
        let starts = Array(stride(from: 0, to: frames - window, by: window))
        for side in 0..<2 {
            let floor = max(-50, (starts.map { level(renders[side], $0) }.max() ?? -50) - 24)
            for start in starts {
                let (a, b) = (level(renders[side], start), level(renders[2 + side], start))
                guard max(a, b) > floor else { continue }
                require(abs(a - b) <= 6, "\(side == 0 ? "left" : "right") at frames \(start)..<\(start + window): libfluidsynth \(a) dB, Pianola \(b) dB; \(described)")
            }
        }
    }

    /// Seeds: a plain note, and a note under each group of four generators with a modulator.
    static func seeds() -> [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = [("plain", [60, 100, 20, 0, 0, 0, 127, 127, 64])]
        for first in stride(from: 0, to: ranges.count, by: 4) {
            var bytes: [UInt8] = [64, 90, 40, 4]
            for k in first..<first + 4 { bytes += [UInt8(k % ranges.count), 0x40, UInt8(k * 37 & 0xFF)] }
            bytes += [1, 0x02, 3, 0, 1, 0x20, 0x00, 0, 100, 127, 0, 64]
            seeds.append(("generators-\(ranges[first].generator)", bytes))
        }
        return seeds
    }
}
