import FluidSynth
import Foundation
import SF2
import AllocationCounter
import SoundFontModel
@testable import SoundFontSynth
import Testing

/// Pianola's voice against libfluidsynth's on single held notes of a looped sine: the pitch
/// within 0.01 cent, each side's level within 0.1 dB and its samples the same to 50 dB of
/// SNR (144 dB, float precision, at the sample's own pitch; phase rounding and the filter's
/// float coefficients make the rest), for tunings, root keys, scale tuning, attenuation, pan,
/// the low-pass filter, velocity, the volume controller and the pitch wheel (the default
/// modulators read when the note starts).
@Suite("A voice sounds as libfluidsynth's: pitch, level, pan")
struct VoiceTests {
    static let rate = 48_000

    /// One zone of a looped 1 kHz sine (root key 60) with `generators`; the default
    /// modulators that would colour it (velocity to filter, vibrato, reverb, chorus) set to nothing.
    static func font(_ generators: [SF2Generator], correction: Int8 = 0, modulators: [SF2Modulator] = []) -> [UInt8] {
        var font = SF2File(name: "voice")
        let sine = (0..<480).map { Int16((sin(2 * Double.pi * Double($0) / 48) * 20_000).rounded()) }
        let sample = font.add(SF2Sample(name: "sine", data: sine, sampleRate: rate, rootKey: 60, pitchCorrection: correction, loop: (0, 480)))
        let instrument = font.add(SF2Instrument(name: "sine", zones: [
            .init(sample: sample, generators: generators + [.sampleModes(1)],
                  modulators: SF2Modulator.neutralizingDefaults + modulators),
        ]))
        font.presets.append(SF2Preset(name: "sine", bank: 0, program: 0, zones: [.init(instrument: instrument)]))
        return font.serialized()
    }

    /// One second of `key` at `velocity` from libfluidsynth and from a voice of the same font,
    /// the channel's volume at `volume` and its wheel at `wheel`, the note released at frame
    /// `release` (a block edge past 1,504) if given.
    static func render(_ bytes: [UInt8], key: Int, velocity: Int, volume: UInt8, wheel: UInt16, releasedAt release: Int? = nil) throws -> (theirs: [[Float]], ours: [[Float]]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("voice-\(UUID().uuidString).sf2").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = FluidSynthesizer.Configuration()
        configuration.sampleRate = Double(rate)
        configuration.reverb = false
        configuration.chorus = false
        let synthesizer = try FluidSynthesizer(configuration: configuration)
        _ = try synthesizer.loadSoundFont(path: path)
        synthesizer.programChange(channel: 0, program: 0)
        synthesizer.controlChange(channel: 0, controller: 7, value: Int(volume))
        synthesizer.pitchBend(channel: 0, value: Int(wheel))
        synthesizer.noteOn(channel: 0, key: key, velocity: velocity)
        var theirLeft = [Float](repeating: 0, count: rate), theirRight = theirLeft
        theirLeft.withUnsafeMutableBufferPointer { l in
            theirRight.withUnsafeMutableBufferPointer { r in
                let held = release ?? rate
                synthesizer.render(left: l.baseAddress!, right: r.baseAddress!, frames: held)
                synthesizer.noteOff(channel: 0, key: key)
                synthesizer.render(left: l.baseAddress! + held, right: r.baseAddress! + held, frames: rate - held)
            }
        }

        let font = try SoundFont(bytes: bytes, name: "voice.sf2")
        let region = try #require(font.regions(of: font.presets[0], key: UInt8(key), velocity: UInt8(velocity)).first)
        var controllers = ChannelControllers()
        controllers[7] = volume
        controllers.pitchWheel = wheel
        var voice = SoloVoice(try #require(Voice(region: region, font: font, key: key, velocity: velocity, controllers: controllers,
                                       sampleRate: Double(rate), cutoffs: CutoffTable.table(sampleRate: Double(rate)), gain: Float(configuration.gain), loopPeak: Voice.loopPeak(ofSample: region.sample, in: font))))
        var mix = [Float](repeating: 0, count: 4 * rate)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: VoiceQuad.scratchSize)
        defer { scratch.deallocate() }
        mix.withUnsafeMutableBufferPointer { m in
            var done = 0
            for slice in [100, 7, 64, 333, 1000] { // uneven slices: the control blocks follow the note and the synthesizer, not the calls
                voice.render(into: MixPlanes(left: m.baseAddress! + done, stride: rate, sends: true), frames: slice, scratch: scratch)
                done += slice
            }
            if let release {
                voice.render(into: MixPlanes(left: m.baseAddress! + done, stride: rate, sends: true), frames: release - done, scratch: scratch)
                voice.release()
                done = release
            }
            voice.render(into: MixPlanes(left: m.baseAddress! + done, stride: rate, sends: true), frames: rate - done, scratch: scratch)
        }
        return ([theirLeft, theirRight], [Array(mix[0..<rate]), Array(mix[rate..<2 * rate])])
    }

    /// Frequency from upward zero crossings, interpolated.
    static func frequency(_ x: ArraySlice<Float>) -> Double {
        var crossings: [Double] = []
        var previous = x.first!
        for (i, s) in zip(x.indices.dropFirst(), x.dropFirst()) {
            if previous < 0 && s >= 0 { crossings.append(Double(i - 1) + Double(-previous / (s - previous))) }
            previous = s
        }
        return Double(rate) * Double(crossings.count - 1) / (crossings.last! - crossings.first!)
    }

    static func rms(_ x: ArraySlice<Float>) -> Double { (x.reduce(0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot() }

    /// A note: the zone's generators, the key, the velocity, the channel's volume and wheel.
    struct Note: Sendable, CustomStringConvertible {
        var generators: [SF2Generator] = []
        var correction: Int8 = 0
        var modulators: [SF2Modulator] = []
        var key = 60, velocity = 127
        var volume: UInt8 = 100, wheel: UInt16 = 8_192
        var description: String { "\(generators.map { "\($0)".replacingOccurrences(of: "SF2.SF2Generator.", with: "") }) correction \(correction) key \(key) velocity \(velocity) volume \(volume) wheel \(wheel)" }
    }

    @Test("tunings, keys, pan, the filter, velocity, volume and the wheel", arguments: [
        Note(),
        Note(generators: [.coarseTune(2), .attenuation(100), .pan(-250)]),
        Note(generators: [.scaleTuning(50), .pan(400)], key: 72),
        Note(generators: [.scaleTuning(50), .rootKey(84)], key: 60),   // the scale tuning pivots about the root key, not middle C
        Note(generators: [.coarseTune(-70)], key: 60),                 // below 0 cents: the hertz worked out whole, not 1 Hz
        Note(generators: [.rootKey(61)], correction: 45, key: 60),     // 100·(60 − 60.55) + 6055 falls just short of 6000: 5999 cents
        Note(generators: [.scaleTuning(50)], correction: 24, key: 72), // the pivot is the root key less the correction (libfluidsynth 2.3)
        Note(generators: [.scaleTuning(-40)], key: 48),                // a negative scale tuning turns the keyboard round
        // A modulator moves where the sample starts: the key (source 3) times 100 points, 56 at key 72.
        Note(modulators: [SF2Modulator(source: 3, destination: 0, amount: 100)], key: 72),
        // A modulator's fraction of a cent counts: the key (bipolar, negative: 0x303) times 4
        // cents of fine tune gives -0.54 cents at key 72, and with -2 cents the pitch falls below the whole cent.
        Note(generators: [.other(52, -2)], modulators: [SF2Modulator(source: 0x303, destination: 52, amount: 4)], key: 72),
        Note(generators: [.rootKey(57), .attenuation(300)], key: 55),
        Note(generators: [.coarseTune(-12), .pan(-500)], key: 67),
        Note(generators: [.coarseTune(24)], key: 61),   // 4.2 points a frame: a block's points fit the float span or not
        Note(generators: [.coarseTune(36)]),            // 8 points a frame: read from the 16-bit data
        Note(generators: [.filterCutoff(8321), .filterQ(100)], key: 48),   // 1 kHz cutoff, 10 dB resonance: an octave below it,
        Note(generators: [.filterCutoff(8321), .filterQ(100)]),            // at it,
        Note(generators: [.filterCutoff(8321), .filterQ(100)], key: 72),   // an octave above it
        Note(generators: [.filterCutoff(6000), .filterQ(0)], key: 67),     // 262 Hz, no resonance: 2.5 octaves above
        Note(velocity: 100), Note(velocity: 64), Note(velocity: 20),
        Note(velocity: 90, volume: 40), Note(volume: 127),
        Note(wheel: 12_000), Note(wheel: 0), Note(key: 64, wheel: 16_383),
    ])
    func matchesLibfluidsynth(note: Note) throws {
        let (theirs, ours) = try Self.render(Self.font(note.generators, correction: note.correction, modulators: note.modulators), key: note.key, velocity: note.velocity, volume: note.volume, wheel: note.wheel)
        let steady = 9_600 ..< 43_200   // 0.2 s to 0.9 s
        for side in 0..<2 {
            let noise = zip(theirs[side], ours[side]).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
            let signal = theirs[side].reduce(0.0) { $0 + Double($1) * Double($1) }
            let snr = 10 * log10(signal / max(noise, 1e-30))
            let level = (Self.rms(theirs[side][steady]), Self.rms(ours[side][steady]))
            if level.0 < 1e-6 {
                #expect(level.1 < 1e-6, "side \(side): libfluidsynth is silent, ours \(level.1)")
                continue
            }
            let dB = 20 * log10(level.1 / level.0)
            let cents = 1_200 * log2(Self.frequency(ours[side][steady]) / Self.frequency(theirs[side][steady]))
            print(String(format: "voice %@ side %d: level %+.3f dB, pitch %+.3f cents (%.2f Hz), the same samples to %.1f dB SNR", "\(note)", side, dB, cents,
                         Self.frequency(ours[side][steady]), snr))
            #expect(abs(dB) <= 0.1 && abs(cents) <= 0.01 && snr >= 50)
        }
    }
}

extension VoiceTests {
    /// A generator of the modulation envelope or an LFO, by its number.
    static func generator(_ operation: Generator, _ amount: Int16) -> SF2Generator { .other(Int(operation.rawValue), amount) }

    @Test("the modulation envelope and the LFOs move pitch, cutoff and volume as libfluidsynth's do: rate, depth, delay and shape", arguments: [
        // Vibrato: 5.9 Hz (-425 cents abs… 8.176 × 2^(3075/1200)), ±50 cents, after 0.1 s.
        [generator(.vibLFOToPitch, 50), generator(.vibLFOFrequency, 3075), generator(.vibLFODelay, -3986)],
        // Modulation LFO: pitch ±30 cents and tremolo 6 dB at 3 Hz.
        [generator(.modLFOToPitch, 30), generator(.modLFOToVolume, 60), generator(.modLFOFrequency, 1900)],
        // Modulation LFO on a resonant filter: ±1200 cents about 2 kHz at 2 Hz.
        [.filterCutoff(9521), .filterQ(60), generator(.modLFOToFilterCutoff, 1200), generator(.modLFOFrequency, 1200)],
        // Modulation envelope: pitch up an octave over 0.25 s, back down to 20 % over 0.5 s
        // (a sweep: a tenth of a cent puts the phase apart, so only the pitch and level are held).
        [generator(.modEnvToPitch, 1200), generator(.modEnvAttack, -2400), generator(.modEnvDecay, -1200), generator(.modEnvSustain, 800)],
        // Modulation envelope on the filter: a 0.1 s hold, a decay to 30 %, and a release.
        [.filterCutoff(7000), .filterQ(100), generator(.modEnvToFilterCutoff, 4000), generator(.modEnvHold, -3986),
         generator(.modEnvDecay, -600), generator(.modEnvSustain, 700), generator(.modEnvRelease, -1200)],
    ])
    func modulationMatchesLibfluidsynth(generators: [SF2Generator]) throws {
        let (theirs, ours) = try Self.render(Self.font(generators), key: 60, velocity: 127, volume: 100, wheel: 8_192)
        for side in 0..<2 {
            let noise = zip(theirs[side], ours[side]).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
            let signal = theirs[side].reduce(0.0) { $0 + Double($1) * Double($1) }
            let snr = 10 * log10(signal / max(noise, 1e-30))
            // Pitch and level in 20 ms windows through the second: the modulation's path.
            var worstCents = 0.0, worstDB = 0.0
            for start in stride(from: 0, to: Self.rate - 960, by: 960) {
                let window = start ..< start + 960
                let level = (Self.rms(theirs[side][window]), Self.rms(ours[side][window]))
                guard level.0 > 1e-4 else { continue }
                worstDB = max(worstDB, abs(20 * log10(level.1 / level.0)))
                worstCents = max(worstCents, abs(1_200 * log2(Self.frequency(ours[side][window]) / Self.frequency(theirs[side][window]))))
            }
            print(String(format: "modulation %@ side %d: worst 20 ms window %.3f dB, %.3f cents; %.1f dB SNR", "\(generators.map { "\($0)".replacingOccurrences(of: "SF2.SF2Generator.", with: "") })",
                         side, worstDB, worstCents, snr))
            let sweeps = generators.contains { $0.record.operation == Int(Generator.modEnvToPitch.rawValue) }
            #expect(worstDB <= 0.5 && worstCents <= 1 && (sweeps || snr >= 30))
        }
    }
}

extension VoiceTests {
    @Test("a modulation envelope released in its attack falls from the value its convex attack gave, as libfluidsynth's does: the filter does not snap shut")
    func modulationReleasedInItsAttack() throws {
        // A 2 s attack opening a 200 Hz filter by 6,000 cents, released after 0.3 s (its convex
        // curve has then given 0.55, the line under it 0.15), with a 1 s release.
        let generators: [SF2Generator] = [.filterCutoff(5400), Self.generator(.modEnvToFilterCutoff, 6000), Self.generator(.modEnvAttack, 1200),
                                          Self.generator(.modEnvRelease, 0), .release(0)]
        let (theirs, ours) = try Self.render(Self.font(generators), key: 72, velocity: 127, volume: 100, wheel: 8_192, releasedAt: 14_400)
        var worst = 0.0
        for start in stride(from: 14_400, to: Self.rate - 960, by: 960) {
            let window = start ..< start + 960
            let level = (Self.rms(theirs[0][window]), Self.rms(ours[0][window]))
            guard level.0 > 1e-5 else { continue }
            worst = max(worst, abs(20 * log10(level.1 / level.0)))
        }
        print(String(format: "modulation envelope released in its attack: worst 20 ms window after the release %.3f dB", worst))
        #expect(worst <= 0.5)
    }

    @Test("a voice ends where libfluidsynth's ends, on the same control block: once its envelope, times the least attenuation the channel's controllers could still give it, is under libfluidsynth's noise floor", arguments: [
        Note(generators: [.decay(-2786), .sustain(1440)]),             // a 0.2 s decay to silence: ends there, held
        Note(generators: [.decay(-2786), .sustain(1000)]),             // 100 dB is silence too
        Note(generators: [.decay(-2786), .sustain(900)]),              // 90 dB is not: plays on, held
        // Quiet, looped (the sine's loop peaks at 20,000, 4.3 dB under full scale): ends well
        // before its 0.5 s release does, wherever the volume is (it could rise again)…
        Note(generators: [.attenuation(1440), .release(-1200)], velocity: 20),
        Note(generators: [.attenuation(1440), .release(-1200)], velocity: 20, volume: 127),
        Note(generators: [.attenuation(1440), .release(-1200)], velocity: 20, volume: 60),
        Note(generators: [.attenuation(1000), .release(-1200)], velocity: 10, volume: 60),
        // …but quiet by the volume alone, it plays to the release's end.
        Note(generators: [.attenuation(1440), .release(-1200)], volume: 20),
        // A release of 1 ms lasts libfluidsynth's least, 16 ms (-7200 timecents).
        Note(generators: [.release(-12000)]),
    ])
    func endsWhereLibfluidsynthEnds(note: Note) throws {
        let released = note.generators.contains { if case .release = $0 { true } else { false } }
        let (theirs, ours) = try Self.render(Self.font(note.generators), key: note.key, velocity: note.velocity, volume: note.volume, wheel: note.wheel,
                                             releasedAt: released ? 4_800 : nil)
        func end(_ samples: [Float]) -> Int { (samples.lastIndex { $0 != 0 } ?? -1) + 1 }
        let (theirEnd, ourEnd) = (end(theirs[0]), end(ours[0]))
        print(String(format: "voice %@: libfluidsynth's ends at %.4f s, ours at %.4f s", "\(note)", Double(theirEnd) / Double(Self.rate), Double(ourEnd) / Double(Self.rate)))
        #expect(theirEnd / 64 == ourEnd / 64 || (theirEnd == Self.rate && ourEnd == Self.rate), "libfluidsynth's ends at frame \(theirEnd), ours at \(ourEnd)")
    }
}

/// The render-thread rule for Pianola's own voices: rendering, releasing and finishing a
/// voice allocates nothing.
@Suite("A voice renders without allocating")
struct VoiceAllocationTests {
    @Test("a thousand blocks of uneven lengths, a release and the end: no heap allocation")
    func noAllocations() throws {
        let font = try SoundFont(bytes: VoiceTests.font([.attack(-6000), .decay(-1200), .sustain(300), .release(-2400), .filterQ(60)]), name: "voice.sf2")
        let region = try #require(font.regions(of: font.presets[0], key: 64, velocity: 90).first)
        var voice = SoloVoice(try #require(Voice(region: region, font: font, key: 64, velocity: 90, sampleRate: 48_000, cutoffs: CutoffTable.table(sampleRate: 48_000), gain: 0.2)))
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 4 * 512)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: VoiceQuad.scratchSize)
        defer { planes.deallocate(); scratch.deallocate() }
        planes.initialize(repeating: 0, count: 4 * 512)
        let mix = MixPlanes(left: planes, stride: 512, sends: true)
        voice.render(into: mix, frames: 64, scratch: scratch)   // warm-up
        pianola_allocations_start()
        _ = Voice(region: region, font: font, key: 64, velocity: 90, sampleRate: 48_000, cutoffs: CutoffTable.table(sampleRate: 48_000), gain: 0.2)
        #expect(pianola_allocations_stop() == 0, "a voice starts without allocating (a note-on on the render thread makes one)")
        pianola_allocations_start()
        for block in 0..<1_000 {
            if block == 600 { voice.release() }
            voice.render(into: mix, frames: 1 + block % 511, scratch: scratch)
        }
        let allocations = pianola_allocations_stop()
        #expect(voice.isFinished, "the release ended the voice")
        #expect(allocations == 0)
    }
}

/// Where the render calls split a voice's frames changes none of its samples: its control
/// blocks and its envelope's ramp are counted from the note, its mix's ramp and its cutoff
/// from the synthesizer's blocks, not the call.
@Suite("A voice renders the same samples however its calls split")
struct VoiceSplitTests {
    @Test("a note whose cutoff glides (the modulation envelope's attack and decay) then rests, in one call and in calls of 1 to 333 frames: the same bits")
    func splitsChangeNothing() throws {
        let font = try SoundFont(bytes: VoiceTests.font([.attack(-3000), .filterCutoff(6_000), .filterQ(120), .other(11, 3_000), .other(26, -2_400),
                                                           .other(28, -2_400), .other(29, 500)]), name: "voice.sf2")
        let region = try #require(font.regions(of: font.presets[0], key: 67, velocity: 100).first)
        let frames = 48_000
        /// The note rendered in calls of `sizes` frames, cycled, released after 40,000 frames.
        func render(_ sizes: [Int]) throws -> [Float] {
            var voice = SoloVoice(try #require(Voice(region: region, font: font, key: 67, velocity: 100, sampleRate: 48_000, cutoffs: CutoffTable.table(sampleRate: 48_000), gain: 0.2)))
            var planes = [Float](repeating: 0, count: 4 * frames)
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: VoiceQuad.scratchSize)
            defer { scratch.deallocate() }
            planes.withUnsafeMutableBufferPointer { p in
                var done = 0, call = 0
                while done < frames {
                    if done == 40_000 { voice.release() }
                    let count = min(sizes[call % sizes.count], frames - done, done < 40_000 ? 40_000 - done : frames)
                    voice.render(into: MixPlanes(left: p.baseAddress! + done, stride: frames, sends: true), frames: count, scratch: scratch)
                    done += count
                    call += 1
                }
            }
            return planes
        }
        let whole = try render([40_000, 8_000])
        #expect(whole[12_000..<36_000].contains { abs($0) > 0.01 }, "the note sounds")
        for sizes in [[1, 2, 3, 5, 7, 11, 13, 64, 67, 333], [3], [4, 1], [63, 65, 2]] {
            let split = try render(sizes)
            let first = whole.indices.first { whole[$0].bitPattern != split[$0].bitPattern }
            #expect(first == nil, "calls of \(sizes) frames: frame \((first ?? 0) % frames) of plane \((first ?? 0) / frames) differs")
        }
    }
}

/// Sample headers a voice must survive (found by the soundfont fuzz target).
@Suite("A voice of a broken sample header")
struct BrokenSampleHeaderTests {
    /// `key` at velocity 100 on `font`'s first preset, alone, for `frames` frames: the four mix
    /// planes (left, right and the two sends, `frames` apart) and the voice after them.
    static func play(_ font: SoundFont, key: Int, frames: Int) throws -> (planes: [Float], voice: SoloVoice) {
        let region = try #require(font.regions(of: font.presets[0], key: UInt8(key), velocity: 100).first)
        var voice = SoloVoice(try #require(Voice(region: region, font: font, key: key, velocity: 100, sampleRate: 48_000,
                                                 cutoffs: CutoffTable.table(sampleRate: 48_000), gain: 0.2,
                                                 loopPeak: Voice.loopPeak(ofSample: region.sample, in: font))))
        var planes = [Float](repeating: 0, count: 4 * frames)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: VoiceQuad.scratchSize)
        defer { scratch.deallocate() }
        planes.withUnsafeMutableBufferPointer { p in
            voice.render(into: MixPlanes(left: p.baseAddress!, stride: frames, sends: true), frames: frames, scratch: scratch)
        }
        return (planes, voice)
    }

    @Test("a sample whose loop ends before it starts loops between the two, as libfluidsynth swaps them (its render of this font sounds to the note's release, five times the sample's length), without a trap")
    func loopEndingBeforeItStarts() throws {
        var sf2 = SF2File(name: "inverted loop")
        let sine = (0..<4_800).map { Int16((sin(2 * Double.pi * Double($0) / 48) * 20_000).rounded()) }
        let sample = sf2.add(SF2Sample(name: "sine", data: sine, sampleRate: 48_000, rootKey: 60, loop: (1_000, 3_000)))
        let instrument = sf2.add(SF2Instrument(name: "sine", zones: [.init(sample: sample, generators: [.sampleModes(1)])]))
        sf2.presets.append(SF2Preset(name: "sine", bank: 0, program: 0, zones: [.init(instrument: instrument)]))
        // The writer keeps loops whole: swap the first header's loop start and end (bytes 28
        // and 32 of its 46) in the file it writes.
        var bytes = sf2.serialized()
        let shdr = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("shdr".utf8) }) + 8
        for k in 0..<4 { bytes.swapAt(shdr + 28 + k, shdr + 32 + k) }
        let font = try SoundFont(bytes: bytes, name: "inverted-loop.sf2")
        let frames = 9_600
        let (planes, voice) = try Self.play(font, key: 60, frames: frames)
        #expect(planes[1_000..<4_000].contains { abs($0) > 0.01 }, "the sample sounds")
        #expect(planes[8_000..<frames].contains { abs($0) > 0.01 }, "and goes on past its end, round the loop")
        #expect(!voice.isFinished)
    }

    @Test("a note 127 octaves above a 48-point loop (root key 0, 1200 cents a key: 2³¹ points a frame, the most a voice steps) plays its loop, wrapped in one step a frame, not a loop at a time (the differential fuzz target's hang)")
    func pitchFarAboveTheSample() throws {
        var sf2 = SF2File(name: "far above")
        let sine = (0..<4_800).map { Int16((sin(2 * Double.pi * Double($0) / 48) * 20_000).rounded()) }
        let sample = sf2.add(SF2Sample(name: "sine", data: sine, sampleRate: 48_000, rootKey: 60, loop: (1_000, 1_048)))
        let zone = SF2Instrument.Zone(sample: sample, generators: [.scaleTuning(1_200), .sampleModes(1), .rootKey(0)])
        let instrument = sf2.add(SF2Instrument(name: "sine", zones: [zone]))
        sf2.presets.append(SF2Preset(name: "sine", bank: 0, program: 0, zones: [.init(instrument: instrument)]))
        let font = try SoundFont(bytes: sf2.serialized(), name: "far-above.sf2")
        let frames = 4_800
        let (planes, voice) = try Self.play(font, key: 127, frames: frames)
        #expect(planes.allSatisfy { $0.isFinite })
        #expect(planes[2_400..<frames].contains { abs($0) > 0.001 }, "the loop sounds")
        #expect(!voice.isFinished, "a looped note at any pitch holds until released")
    }
}

/// A voice alone in a quad, rendered as the synthesizer renders it, from the start of its
/// control block.
struct SoloVoice {
    private var slot = VoiceSlot()
    private var rendered = 0

    /// `voice`, before it renders.
    init(_ voice: Voice) { slot.voice = voice }

    /// Adds `frames` frames of the voice to `mix`, `scratch` `VoiceQuad.scratchSize` floats.
    mutating func render(into mix: MixPlanes, frames: Int, scratch: UnsafeMutablePointer<Float>) {
        VoiceQuad.render(&slot, count: 1, into: mix, frames: frames, place: rendered % Units.controlBlock, scratch: scratch)
        rendered += frames
    }

    /// Note-off.
    mutating func release() { slot.voice?.release() }

    /// Whether it has ended.
    var isFinished: Bool { slot.voice == nil }
}
