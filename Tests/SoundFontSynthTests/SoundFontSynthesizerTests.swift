import AllocationCounter
import DSP
import FluidSynth
import Foundation
import SF2
import SoundFontModel
import SoundFontSynth
import Testing

/// Pianola's own synthesizer playing events: each note on its exact frame, and a passage of
/// the project's General MIDI font (three channels, drums, program and controller changes,
/// the sustain pedal, the wheel) sounding as libfluidsynth plays it when the events fall on
/// its 64-frame block edges, the only frames libfluidsynth can put them on (35 dB of SNR
/// over five seconds today, the test holds 30; held notes under moving controllers 125 dB),
/// allocating nothing on the render thread.
@Suite("Pianola's synthesizer: exact frames, and libfluidsynth's sound")
struct SoundFontSynthesizerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let gmFont = root.appendingPathComponent("soundfonts/pianola-gm.sf2").path

    /// An event at a frame.
    enum Event {
        case on(Int, Int, Int), off(Int, Int), cc(Int, Int, Int), program(Int, Int), bend(Int, Int), sysex([UInt8])
    }

    /// `events` (frame, event) rendered for `frames` frames by Pianola's synthesizer.
    static func ours(_ font: SoundFont, _ events: [(Int, Event)], frames: Int, reverb: Bool = false) -> [Float] {
        play(SoundFontSynthesizer(font: font, sampleRate: 48_000, reverb: reverb ? Reverb.Settings() : nil), events, frames: frames)
    }

    /// The same through libfluidsynth, chorus off, reverb off unless asked.
    static func theirs(_ path: String, _ events: [(Int, Event)], frames: Int, reverb: Bool = false) throws -> [Float] {
        var configuration = FluidSynthesizer.Configuration()
        configuration.sampleRate = 48_000
        configuration.reverb = reverb
        configuration.chorus = false
        configuration.lazySampleLoading = false
        let synthesizer = try FluidSynthesizer(configuration: configuration)
        _ = try synthesizer.loadSoundFont(path: path)
        return play(synthesizer, events, frames: frames)
    }

    /// The left channel of `synthesizer` playing `events`, rendered up to each event's frame
    /// before it is given.
    static func play(_ synthesizer: some EventPlayer, _ events: [(Int, Event)], frames: Int) -> [Float] {
        var left = [Float](repeating: 0, count: frames), right = left
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                var done = 0
                for index in 0...events.count {
                    let frame = index < events.count ? events[index].0 : frames
                    if frame > done {
                        synthesizer.render(left: l.baseAddress! + done, right: r.baseAddress! + done, frames: frame - done)
                        done = frame
                    }
                    if index < events.count { synthesizer.apply(events[index].1) }
                }
            }
        }
        return left
    }

    @Test("a note starts on the frame it is given, on a block edge or not: its first sound is the next frame")
    func exactFrames() throws {
        let font = try SoundFont(bytes: VoiceTests.font([]), name: "sine.sf2")
        for frame in [0, 1, 37, 63, 64, 65, 1_000, 12_345] {
            let audio = Self.ours(font, [(frame, .program(0, 0)), (frame, .on(0, 60, 100))], frames: frame + 4_800)
            let first = try #require(audio.firstIndex { $0 != 0 })
            #expect(first == frame + 1, "a note at frame \(frame) first sounds at \(first)")
        }
    }

    /// A passage on block edges: a piano line, a pad on channel 2 with its volume and wheel
    /// moved, drums, the sustain pedal, a program change mid-way.
    static let passage: [(Int, Event)] = {
        var events: [(Int, Event)] = [(0, .program(0, 0)), (0, .program(1, 48)), (0, .cc(1, 7, 80)), (0, .cc(0, 64, 127))]
        let beat = 375 * 64   // 0.5 s
        for (i, key) in [60, 64, 67, 72, 71, 67, 64, 62].enumerated() {
            events.append((i * beat, .on(0, key, 60 + i * 8)))
            events.append((i * beat + 192 * 64, .off(0, key)))
            events.append((i * beat, .on(9, i % 2 == 0 ? 36 : 38, 100)))
        }
        events += [(2 * beat, .cc(0, 64, 0)), (beat, .bend(1, 10_000)), (beat, .on(1, 55, 90)), (5 * beat, .off(1, 55)),
                   (4 * beat, .program(0, 24)), (6 * beat, .cc(1, 7, 120)), (6 * beat, .on(1, 59, 70)), (8 * beat, .off(1, 59))]
        return events.sorted { $0.0 < $1.0 }
    }()

    @Test("a passage of the project's GM font with events on block edges sounds as libfluidsynth plays it")
    func passageMatchesLibfluidsynth() throws {
        let frames = 10 * 375 * 64
        let ours = Self.ours(try SoundFont(path: Self.gmFont), Self.passage, frames: frames)
        let theirs = try Self.theirs(Self.gmFont, Self.passage, frames: frames)
        let noise = zip(theirs, ours).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
        let signal = theirs.reduce(0.0) { $0 + Double($1) * Double($1) }
        let snr = 10 * log10(signal / max(noise, 1e-30))
        print(String(format: "passage: %.1f dB SNR against libfluidsynth over %.1f s", snr, Double(frames) / 48_000))
        // 35 dB today (the held-notes passage, with the same font, is 125 dB: what is left is
        // in these notes' starts and releases, still to find); the test holds 30.
        #expect(signal > 0 && snr >= 30)
    }

    /// Held notes under moving controllers, on block edges: the wheel (and its range set to
    /// 12 semitones by RPN 0), volume fades, expression, a pan sweep, channel pressure, Reset
    /// All Controllers.
    static let heldPassage: [(Int, Event)] = {
        let block = 64
        var events: [(Int, Event)] = [(0, .program(0, 0)), (0, .program(1, 48)), (0, .on(0, 60, 100)), (0, .on(1, 55, 90)), (0, .on(1, 62, 90))]
        for step in 1...40 {
            events.append((step * 30 * block, .bend(0, 8_192 + step * 150)))
            events.append((step * 30 * block, .cc(1, 7, 127 - step * 2)))
            events.append((step * 30 * block + 15 * block, .cc(1, 10, step * 3)))
            events.append((step * 30 * block + 7 * block, .cc(0, 11, 127 - step)))
        }
        events += [(1_300 * block, .cc(1, 101, 0)), (1_300 * block, .cc(1, 100, 0)), (1_300 * block, .cc(1, 6, 12)),
                   (1_310 * block, .bend(1, 12_000)), (1_400 * block, .cc(1, 121, 0)), (1_500 * block, .off(0, 60)),
                   (1_500 * block, .off(1, 55)), (1_500 * block, .off(1, 62))]
        return events.sorted { $0.0 < $1.0 }
    }()

    @Test("notes held while the wheel, its range, volume, expression and pan move sound as libfluidsynth plays them")
    func heldNotesFollowControllers() throws {
        let frames = 1_700 * 64
        let ours = Self.ours(try SoundFont(path: Self.gmFont), Self.heldPassage, frames: frames)
        let theirs = try Self.theirs(Self.gmFont, Self.heldPassage, frames: frames)
        let noise = zip(theirs, ours).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
        let signal = theirs.reduce(0.0) { $0 + Double($1) * Double($1) }
        let snr = 10 * log10(signal / max(noise, 1e-30))
        print(String(format: "held notes under controllers: %.1f dB SNR against libfluidsynth over %.1f s", snr, Double(frames) / 48_000))
        #expect(signal > 0 && snr >= 30)
    }

    @Test("the notes' reverb sends (CC91) feed one reverb that is libfluidsynth's: on the held notes and the passage its echoes fall on the same frames, at the same level and colour; with CC91 at 0 it adds nothing")
    func reverbMatchesLibfluidsynth() throws {
        let font = try SoundFont(path: Self.gmFont)
        let sends: [(Int, Event)] = [0, 1, 9].map { (0, .cc($0, 91, 100)) }
        // The held notes' dry sound is libfluidsynth's to 125 dB, so their reverb can be held to 100; the passage's dry sound to 35, its reverb to 30.
        for (name, events, frames, least) in [("held notes", sends + Self.heldPassage, 1_700 * 64, 100.0), ("passage", sends + Self.passage, 10 * 375 * 64, 30)] {
            // Each engine's reverb alone: its render with the reverb less its render without.
            let ours = zip(Self.ours(font, events, frames: frames, reverb: true), Self.ours(font, events, frames: frames)).map { $0 - $1 }
            let theirs = zip(try Self.theirs(Self.gmFont, events, frames: frames, reverb: true), try Self.theirs(Self.gmFont, events, frames: frames)).map { $0 - $1 }
            let noise = zip(theirs, ours).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
            let signal = theirs.reduce(0.0) { $0 + Double($1) * Double($1) }, level = ours.reduce(0.0) { $0 + Double($1) * Double($1) }
            let snr = 10 * log10(signal / max(noise, 1e-30))
            print(String(format: "%@ through the reverb: the reverb %.1f dB SNR against libfluidsynth's; levels %.2f and %.2f dB", name, snr,
                         10 * log10(level / Double(frames)), 10 * log10(signal / Double(frames))))
            #expect(signal > 0 && snr >= least, "\(name)")
        }
        // The lines hold 10⁻⁸ (libfluidsynth's offset against denormals), but with nothing sent nothing is added.
        let unsent: [(Int, Event)] = [(0, .program(0, 0)), (0, .on(0, 60, 127)), (4_800, .off(0, 60))]
        let added = zip(Self.ours(font, unsent, frames: 72_000, reverb: true), Self.ours(font, unsent, frames: 72_000)).map { abs($0 - $1) }.max()!
        #expect(added == 0, "with nothing sent the reverb adds up to \(added)")
    }

    /// The sostenuto pedal, exclusive classes and the channel tunings, on block edges: a
    /// closed hi-hat cutting an open one; a note caught by the sostenuto pedal ringing past its
    /// key while a later one stops with its key; a held note retuned by RPN 1 (+50 cents) and
    /// one by RPN 2 (+2 semitones).
    static let pedalPassage: [(Int, Event)] = {
        let block = 64
        return [(0, .program(0, 0)), (0, .program(1, 48)),
                (0, .on(9, 46, 110)), (60 * block, .on(9, 42, 100)), (120 * block, .on(9, 46, 90)), (125 * block, .on(9, 44, 100)),
                (0, .on(0, 60, 90)), (20 * block, .cc(0, 66, 127)), (40 * block, .on(0, 64, 90)), (80 * block, .off(0, 64)),
                (90 * block, .off(0, 60)), (300 * block, .cc(0, 66, 0)),
                (0, .on(1, 55, 80)), (100 * block, .cc(1, 101, 0)), (100 * block, .cc(1, 100, 1)), (100 * block, .cc(1, 38, 0)),
                (100 * block, .cc(1, 6, 96)), (200 * block, .cc(1, 100, 2)), (200 * block, .cc(1, 6, 66)), (350 * block, .off(1, 55))]
            .sorted { $0.0 < $1.0 }
    }()

    @Test("the sostenuto pedal, exclusive classes and RPN 1 and 2 tunings sound as libfluidsynth plays them")
    func pedalsClassesAndTunings() throws {
        let frames = 450 * 64
        let ours = Self.ours(try SoundFont(path: Self.gmFont), Self.pedalPassage, frames: frames)
        let theirs = try Self.theirs(Self.gmFont, Self.pedalPassage, frames: frames)
        let noise = zip(theirs, ours).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
        let signal = theirs.reduce(0.0) { $0 + Double($1) * Double($1) }
        let snr = 10 * log10(signal / max(noise, 1e-30))
        print(String(format: "pedals, classes, tunings: %.1f dB SNR against libfluidsynth over %.2f s", snr, Double(frames) / 48_000))
        #expect(signal > 0 && snr >= 30)
    }

    /// The MIDI Tuning Standard, on block edges: a one-byte octave tuning on channel 1 heard on
    /// a chord (channel 2, untuned, beside it); a real-time single-note change retuning a
    /// sounding note; a two-byte octave tuning sent non-real-time to channels 1 and 2 (the
    /// sounding notes keep their pitch, the next ones take it); RPN 4 and 3 choosing a new
    /// tuning program (equal temperament) for channel 1's sounding notes; a single-note
    /// change with a bank to that program; a bad message (a count that does not match) ignored.
    static let tuningPassage: [(Int, Event)] = {
        let block = 64
        let octave1: [UInt8] = [0x7F, 0x7F, 0x08, 0x08, 0x00, 0x00, 0x01, 0x7E, 0x02, 0x50, 0x30, 0x7E, 0x02, 0x40, 0x10, 0x7E, 0x02, 0x6A, 0x22]
        let octave2: [UInt8] = [0x7E, 0x7F, 0x08, 0x09, 0x00, 0x00, 0x03] + (0..<12).flatMap { note -> [UInt8] in
            let value = 8_192 + (note % 3 - 1) * 3_000 + note * 100
            return [UInt8(value >> 7), UInt8(value & 0x7F)]
        }
        let note: [UInt8] = [0x7F, 0x7F, 0x08, 0x02, 0x00, 0x01, 64, 65, 0x20, 0x00]
        let noteInBank: [UInt8] = [0x7F, 0x7F, 0x08, 0x07, 0x00, 0x05, 0x02, 60, 61, 0x40, 0x00, 67, 0x7F, 0x7F, 0x7F]
        let badCount: [UInt8] = [0x7F, 0x7F, 0x08, 0x02, 0x00, 0x03, 62, 30, 0x00, 0x00]
        return [(0, .program(0, 0)), (0, .program(1, 48)), (0, .sysex(octave1)),
                (10 * block, .on(0, 60, 90)), (10 * block, .on(0, 64, 90)), (10 * block, .on(0, 69, 90)), (10 * block, .on(1, 62, 80)),
                (100 * block, .sysex(note)), (120 * block, .sysex(badCount)),
                (150 * block, .sysex(octave2)), (160 * block, .on(1, 67, 80)), (170 * block, .on(0, 71, 90)),
                (200 * block, .cc(0, 101, 0)), (200 * block, .cc(0, 100, 4)), (200 * block, .cc(0, 6, 0)),
                (200 * block, .cc(0, 100, 3)), (200 * block, .cc(0, 6, 5)),
                (250 * block, .sysex(noteInBank)),
                (320 * block, .off(0, 60)), (320 * block, .off(0, 64)), (320 * block, .off(0, 69)), (320 * block, .off(0, 71)),
                (320 * block, .off(1, 62)), (320 * block, .off(1, 67))]
            .sorted { $0.0 < $1.0 }
    }()

    @Test("MIDI Tuning Standard octave and single-note tunings, and RPN 3 and 4 tuning programs, sound as libfluidsynth plays them")
    func tuningStandard() throws {
        let frames = 400 * 64
        let ours = Self.ours(try SoundFont(path: Self.gmFont), Self.tuningPassage, frames: frames)
        let theirs = try Self.theirs(Self.gmFont, Self.tuningPassage, frames: frames)
        let untuned = try Self.theirs(Self.gmFont, Self.tuningPassage.filter { if case .sysex = $0.1 { return false } else { return true } }, frames: frames)
        func snr(_ a: [Float], _ b: [Float]) -> Double {
            let noise = zip(a, b).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
            return 10 * log10(a.reduce(0.0) { $0 + Double($1) * Double($1) } / max(noise, 1e-30))
        }
        print(String(format: "MTS tunings: %.1f dB SNR against libfluidsynth (%.1f dB against the passage untuned)", snr(theirs, ours), snr(theirs, untuned)))
        #expect(snr(theirs, untuned) < 10, "the tunings change the sound")
        #expect(snr(theirs, ours) >= 30)
    }

    @Test("a program or bank the font lacks falls back as libfluidsynth's does: to bank 0's program, then to bank 0's program 0; on the drum channel to bank 128's program 0")
    func presetFallbacks() throws {
        // The test font has programs 0-2 of bank 0 (sine, square, click) and a kit in bank 128.
        let path = Self.root.appendingPathComponent("soundfonts/pianola-test.sf2").path
        let events: [(Int, Event)] = [(0, .cc(0, 0, 5)), (0, .program(0, 1)), (0, .on(0, 60, 100)),    // bank 5 program 1: bank 0's square
                                      (0, .program(1, 73)), (0, .on(1, 64, 100)),                      // program 73: bank 0's sine
                                      (0, .cc(9, 0, 3)), (0, .program(9, 40)), (0, .on(9, 36, 100)),    // kit 40: the kit
                                      (24_000, .off(0, 60)), (24_000, .off(1, 64))]
        let ours = Self.ours(try SoundFont(path: path), events, frames: 48_000)
        let theirs = try Self.theirs(path, events, frames: 48_000)
        var noise = 0.0, signal = 0.0
        for i in 0..<48_000 {
            noise += Double(theirs[i] - ours[i]) * Double(theirs[i] - ours[i])
            signal += Double(theirs[i]) * Double(theirs[i])
        }
        let snr = 10 * log10(signal / max(noise, 1e-30))
        print(String(format: "preset fallbacks: %.1f dB SNR against libfluidsynth, level %.1f dBFS", snr, 10 * log10(signal / 48_000)))
        #expect(signal / 48_000 > 1e-4, "the notes sound")
        // 31 dB today (the notes' starts differ a little, as in the passage test); another
        // preset (a sine for a square) would be near 0 dB.
        #expect(snr >= 25)
    }

    @Test("in an MTS tuning a note plays the zone of the key nearest its tuned pitch at its own tuned pitch, as libfluidsynth does: D tuned 62 cents sharp takes D#'s zone, D# tuned 62 flat D's")
    func tuningChoosesZones() throws {
        // Two zones split between D and D#: the upper one 20 dB quieter, so the zone is heard.
        var font = SF2File(name: "zones")
        let sine = (0..<480).map { Int16((sin(2 * Double.pi * Double($0) / 48) * 20_000).rounded()) }
        let sample = font.add(SF2Sample(name: "sine", data: sine, sampleRate: 48_000, rootKey: 60, loop: (0, 480)))
        let instrument = font.add(SF2Instrument(name: "split", zones: [
            .init(sample: sample, generators: [.keyRange(0, 62), .sampleModes(1)], modulators: SF2Modulator.neutralizingDefaults),
            .init(sample: sample, generators: [.keyRange(63, 127), .sampleModes(1), .attenuation(500)], modulators: SF2Modulator.neutralizingDefaults),
        ]))
        font.presets.append(SF2Preset(name: "split", bank: 0, program: 0, zones: [.init(instrument: instrument)]))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("zones-\(UUID().uuidString).sf2").path
        try Data(font.serialized()).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // C, D, E… 62 cents sharp; C#, D#… 62 flat.
        let octave: [UInt8] = [0x7F, 0x7F, 0x08, 0x08, 0x00, 0x00, 0x01] + (0..<12).map { $0 % 2 == 0 ? 0x7E : 0x02 }
        let events: [(Int, Event)] = [(0, .program(0, 0)), (0, .sysex(octave)), (0, .on(0, 62, 100)), (24_000, .off(0, 62)),
                                      (48_000, .on(0, 63, 100)), (72_000, .off(0, 63))]
        let ours = Self.ours(try SoundFont(path: path), events, frames: 96_000)
        let theirs = try Self.theirs(path, events, frames: 96_000)
        // The held notes, after their first 100 ms (a note's start and release differ from
        // libfluidsynth's by themselves, tuned or not; the passage tests measure those).
        var noise = 0.0, signal = 0.0
        for window in [4_800 ..< 24_000, 52_800 ..< 72_000] {
            for i in window {
                noise += Double(theirs[i] - ours[i]) * Double(theirs[i] - ours[i])
                signal += Double(theirs[i]) * Double(theirs[i])
            }
        }
        let snr = 10 * log10(signal / max(noise, 1e-30))
        let (d, dSharp) = (VoiceTests.rms(ours[4_800 ..< 19_200]), VoiceTests.rms(ours[52_800 ..< 67_200]))
        let (dPitch, dSharpPitch) = (VoiceTests.frequency(ours[4_800 ..< 19_200]), VoiceTests.frequency(ours[52_800 ..< 67_200]))
        print(String(format: "MTS zones: %.1f dB SNR against libfluidsynth; D at %.1f dB in %.2f cents, D# at %.1f dB in %.2f cents (from middle C)",
                     snr, 20 * log10(d), 1_200 * log2(dPitch / 1_000), 20 * log10(dSharp), 1_200 * log2(dSharpPitch / 1_000)))
        #expect(snr >= 60)
        #expect(d < dSharp / 5, "D, tuned toward D#, plays the quiet upper zone; D#, tuned toward D, the loud lower one")
        #expect(abs(1_200 * log2(dPitch / 1_000) - 262) < 1 && abs(1_200 * log2(dSharpPitch / 1_000) - 238) < 1, "each at its own tuned pitch")
    }

    @Test("the notes' chorus sends (CC93) feed one chorus built as libfluidsynth's: on a held square wave its wet sound within 0.5 dB of libfluidsynth's, its sides as opposed, the two at least 20 dB SNR apart; with CC93 at 0 nothing is sent")
    func chorusLikeLibfluidsynth() throws {
        let frames = 144_000
        let events: [(Int, Event)] = [(0, .program(0, 80)), (0, .cc(0, 93, 127)), (0, .on(0, 69, 100)), (120_000, .off(0, 69))]
        let font = try SoundFont(path: Self.gmFont)
        func stereo(_ synthesizer: some EventPlayer) -> (left: [Float], right: [Float]) {
            var left = [Float](repeating: 0, count: frames), right = left
            left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
                synthesizer.apply(events[0].1)
                synthesizer.apply(events[1].1)
                synthesizer.apply(events[2].1)
                synthesizer.render(left: l.baseAddress!, right: r.baseAddress!, frames: frames)
            } }
            return (left, right)
        }
        var configuration = FluidSynthesizer.Configuration()
        configuration.sampleRate = 48_000
        configuration.reverb = false
        configuration.lazySampleLoading = false
        let libfluidsynth = try FluidSynthesizer(configuration: configuration)
        _ = try libfluidsynth.loadSoundFont(path: Self.gmFont)
        configuration.chorus = false
        let dryLibfluidsynth = try FluidSynthesizer(configuration: configuration)
        _ = try dryLibfluidsynth.loadSoundFont(path: Self.gmFont)
        let ours = stereo(SoundFontSynthesizer(font: font, sampleRate: 48_000, chorus: Chorus.Settings())), ourDry = stereo(SoundFontSynthesizer(font: font, sampleRate: 48_000))
        let theirs = stereo(libfluidsynth), theirDry = stereo(dryLibfluidsynth)
        /// The chorus (wet less dry) over seconds 1-2: its level (dB) and its sides' correlation.
        func chorus(_ wet: (left: [Float], right: [Float]), _ dry: (left: [Float], right: [Float])) -> (level: Double, correlation: Double) {
            var ll = 0.0, rr = 0.0, lr = 0.0
            for i in 48_000 ..< 96_000 {
                let l = Double(wet.left[i] - dry.left[i]), r = Double(wet.right[i] - dry.right[i])
                (ll, rr, lr) = (ll + l * l, rr + r * r, lr + l * r)
            }
            return (10 * log10((ll + rr) / 96_000), lr / (ll * rr).squareRoot())
        }
        let (a, b) = (chorus(ours, ourDry), chorus(theirs, theirDry))
        // The two choruses' wet sounds against each other, frame by frame: built the same way,
        // they differ only by the LFO's arithmetic.
        var signal = 0.0, noise = 0.0
        for i in 48_000 ..< 96_000 {
            for (wet, dry, theirWet, theirDry) in [(ours.left, ourDry.left, theirs.left, theirDry.left), (ours.right, ourDry.right, theirs.right, theirDry.right)] {
                let mine = Double(wet[i] - dry[i]), reference = Double(theirWet[i] - theirDry[i])
                (signal, noise) = (signal + reference * reference, noise + (mine - reference) * (mine - reference))
            }
        }
        let snr = 10 * log10(signal / max(noise, 1e-30))
        print(String(format: "chorus: ours %.2f dB, sides' correlation %.3f; libfluidsynth's %.2f dB, %.3f; the wet sounds %.1f dB SNR apart", a.level, a.correlation, b.level, b.correlation, snr))
        #expect(abs(a.level - b.level) <= 0.5 && abs(a.correlation - b.correlation) <= 0.02 && snr >= 20)
        let unsent: [(Int, Event)] = [(0, .program(0, 80)), (0, .on(0, 69, 100)), (48_000, .off(0, 69))]
        #expect(Self.play(SoundFontSynthesizer(font: font, sampleRate: 48_000, chorus: Chorus.Settings()), unsent, frames: 72_000) == Self.ours(font, unsent, frames: 72_000))
    }

    @Test("portamento glides as libfluidsynth's: from CC84's key once, over CC5 × 128 + CC37 ms, not between notes played one after another with the switch on; pitch within 1 cent in every 20 ms window after each note's first")
    func portamento() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("portamento-\(UUID().uuidString).sf2").path
        try Data(VoiceTests.font([])).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let events: [(Int, Event)] = [(0, .program(0, 0)), (0, .cc(0, 5, 2)), (0, .cc(0, 37, 44)), (0, .cc(0, 65, 127)),
                                      (0, .on(0, 60, 100)), (24_000, .off(0, 60)), (24_000, .on(0, 67, 100)), (48_000, .off(0, 67)),
                                      (48_000, .cc(0, 84, 55)), (48_000, .on(0, 64, 100)), (72_000, .off(0, 64)),
                                      (72_000, .cc(0, 65, 0)), (72_000, .on(0, 72, 100)), (96_000, .off(0, 72))]
        let ours = Self.ours(try SoundFont(path: path), events, frames: 96_000)
        let theirs = try Self.theirs(path, events, frames: 96_000)
        var worst = 0.0, glided = 0
        // Each note's first 20 ms hold the last note's release too: the windows after it.
        for start in stride(from: 0, to: 96_000 - 960, by: 960) where start % 24_000 >= 960 && start % 24_000 < 24_000 - 960 {
            let window = start ..< start + 960
            guard VoiceTests.rms(theirs[window]) > 1e-3 else { continue }
            let (a, b) = (VoiceTests.frequency(theirs[window]), VoiceTests.frequency(ours[window]))
            worst = max(worst, abs(1_200 * log2(b / a)))
            if start % 24_000 < 12_000, abs(1_200 * log2(b / 1_000) - 100 * Double([0, 7, 4, 12][start / 24_000])) > 50 { glided += 1 }
        }
        print(String(format: "portamento: worst 20 ms window %.3f cents from libfluidsynth, %d windows away from the note's pitch while gliding", worst, glided))
        #expect(worst <= 1 && glided >= 10)
    }

    /// Mono playing on block edges: channel 1, the basic channel, goes to mono mode for itself
    /// alone (CC126 with 1) and plays a legato line, a trill back to the key still held, then a
    /// staccato note; channels 2 and 3, now in no basic channel's group, play nothing, as in
    /// libfluidsynth. On their own (without channel 1), channel 2 holds the legato pedal (CC68)
    /// with portamento on (CC65, 80 ms) so its legato notes glide, and channel 3's mode
    /// messages are not taken (it is no basic channel): its chord sounds whole.
    static let monoPassage: [(Int, Event)] = {
        let b = 64 * 150   // 0.2 s
        let events: [(Int, Event)] = [
            (0, .program(0, 73)), (0, .cc(0, 126, 1)), (0, .program(1, 48)), (0, .cc(1, 68, 127)), (0, .cc(1, 65, 127)), (0, .cc(1, 5, 0)),
            (0, .cc(1, 37, 80)), (0, .program(2, 0)), (0, .cc(2, 126, 1)),
            (b, .on(0, 60, 100)), (2 * b, .on(0, 64, 90)), (3 * b, .on(0, 67, 110)), (4 * b, .off(0, 67)), (5 * b, .off(0, 64)),
            (6 * b, .off(0, 60)), (7 * b, .on(0, 72, 80)), (9 * b, .off(0, 72)),
            (b, .on(1, 48, 100)), (3 * b, .on(1, 55, 100)), (4 * b, .off(1, 48)), (6 * b, .on(1, 52, 70)), (7 * b, .off(1, 55)), (9 * b, .off(1, 52)),
            (2 * b, .cc(2, 127, 0)), (3 * b, .on(2, 48, 80)), (3 * b, .on(2, 52, 80)), (3 * b, .on(2, 55, 80)),
            (8 * b, .off(2, 48)), (8 * b, .off(2, 52)), (8 * b, .off(2, 55)),
        ]
        return events.sorted { $0.0 < $1.0 }
    }()

    @Test("mono mode and the legato pedal: legato notes take the voice over, a trill goes back, portamento glides between them, as libfluidsynth plays them")
    func monoMatchesLibfluidsynth() throws {
        let frames = 12 * 64 * 150
        let font = try SoundFont(path: Self.gmFont)
        let ours = Self.ours(font, Self.monoPassage, frames: frames)
        let theirs = try Self.theirs(Self.gmFont, Self.monoPassage, frames: frames)
        func snr(_ a: [Float], _ b: [Float]) -> Double {
            10 * log10(a.reduce(0.0) { $0 + Double($1) * Double($1) } / max(zip(a, b).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }, 1e-30))
        }
        // The same passage with every channel polyphonic: what mono mode changes.
        let poly = Self.ours(font, Self.monoPassage.filter { if case .cc(_, 126, _) = $0.1 { false } else if case .cc(_, 68, _) = $0.1 { false } else { true } },
                             frames: frames)
        let others = Self.monoPassage.filter { if case .cc(0, _, _) = $0.1 { false } else if case .on(0, _, _) = $0.1 { false } else if case .off(0, _) = $0.1 { false } else { true } }
        let (oursAlone, theirsAlone) = (Self.ours(font, others, frames: frames), try Self.theirs(Self.gmFont, others, frames: frames))
        print(String(format: "mono passage: %.1f dB SNR against libfluidsynth (%.1f dB against it played poly); the legato pedal and a non-basic channel's mode messages: %.1f dB",
                     snr(theirs, ours), snr(theirs, poly), snr(theirsAlone, oursAlone)))
        #expect(snr(theirs, poly) < 15, "mono mode changes the sound")
        func level(_ x: [Float]) -> String { String(format: "%.1f dB", 10 * log10(x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count))) }
        #expect(snr(theirs, ours) >= 60 && snr(theirsAlone, oursAlone) >= 60,
                "levels: libfluidsynth \(level(theirs)), ours \(level(ours)); alone: libfluidsynth \(level(theirsAlone)), ours \(level(oursAlone))")
    }

    @Test("playing the passage, the tuning passage and the mono passage, through the reverb and the chorus, allocates nothing on the render thread")
    func noAllocations() throws {
        let font = try SoundFont(path: Self.gmFont)
        // The Swift runtime fills its caches (metadata, conformances) the first time the test's
        // generic `apply` gives each kind of event: that is the test's own, so it is done on
        // another synthesizer; the one measured has had nothing but its making.
        let warm = SoundFontSynthesizer(font: font, sampleRate: 48_000, reverb: Reverb.Settings(), chorus: Chorus.Settings())
        for event in [Event.program(0, 1), .cc(0, 7, 90), .bend(0, 9_000), .on(0, 60, 100), .off(0, 60), .sysex([0x7E, 0x7F, 0x09, 0x01])] { warm.apply(event) }
        let synthesizer = SoundFontSynthesizer(font: font, sampleRate: 48_000, reverb: Reverb.Settings(), chorus: Chorus.Settings())
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 4_096), right = UnsafeMutablePointer<Float>.allocate(capacity: 4_096)
        defer { left.deallocate(); right.deallocate() }
        let end = Self.passage.last!.0 + 64
        let monoStart = end + Self.tuningPassage.last!.0 + 64
        let passage = Self.passage + Self.tuningPassage.map { ($0.0 + end, $0.1) } + Self.monoPassage.map { ($0.0 + monoStart, $0.1) }
        pianola_allocations_start()
        var done = 0
        for index in 0..<passage.count {   // by index: a debug build's array iterator allocates
            let (frame, event) = passage[index]
            if frame > done { synthesizer.render(left: left, right: right, frames: min(frame - done, 4_096)); done = frame }
            synthesizer.apply(event)
        }
        let allocations = pianola_allocations_stop()
        #expect(allocations == 0)
    }

    @Test("reading only the presets a preload selects plays the passage as reading them all does, allocating nothing on the render thread; a preset no preload read still plays")
    func presetsReadAsSelected() throws {
        let font = try SoundFont(path: Self.gmFont)
        let frames = 10 * 375 * 64
        let eager = Self.play(SoundFontSynthesizer(font: font, sampleRate: 48_000), Self.passage, frames: frames)
        // The preload: the passage's program changes run through, each note's samples touched.
        let synthesizer = SoundFontSynthesizer(font: font, sampleRate: 48_000, readingAllPresets: false)
        for (_, event) in Self.passage {
            switch event {
            case .program(let channel, let program): synthesizer.programChange(channel: channel, program: program)
            case .on(let channel, let key, let velocity): synthesizer.touchSamples(ofChannel: channel, key: key, velocity: velocity)
            default: break
            }
        }
        synthesizer.systemReset()
        _ = Self.play(synthesizer, [(0, .on(0, 60, 100)), (0, .off(0, 60))], frames: 64)   // the test's own generic paths, warmed up
        synthesizer.systemReset()
        let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { left.deallocate(); right.deallocate() }
        left.initialize(repeating: 0, count: frames)
        right.initialize(repeating: 0, count: frames)
        pianola_allocations_start()
        var done = 0
        for index in 0...Self.passage.count {   // by index: a debug build's array iterator allocates
            let frame = index < Self.passage.count ? Self.passage[index].0 : frames
            if frame > done { synthesizer.render(left: left + done, right: right + done, frames: frame - done); done = frame }
            if index < Self.passage.count { synthesizer.apply(Self.passage[index].1) }
        }
        let allocations = pianola_allocations_stop()
        #expect(allocations == 0)
        #expect(Array(UnsafeBufferPointer(start: left, count: frames)) == eager)
        // Program 40 (violin): no preload selected it.
        let unread = Self.play(SoundFontSynthesizer(font: font, sampleRate: 48_000, readingAllPresets: false),
                               [(0, .program(0, 40)), (0, .on(0, 67, 100))], frames: 4_800)
        let read = Self.play(SoundFontSynthesizer(font: font, sampleRate: 48_000), [(0, .program(0, 40)), (0, .on(0, 67, 100))], frames: 4_800)
        #expect(unread == read && unread.contains { $0 != 0 })
    }
}

/// What both synthesizers take: the events of the passage (a system exclusive message
/// besides what every `SoundFontPlayer` takes), and rendering.
protocol EventPlayer: SoundFontPlayer {
    func sysex(_ bytes: [UInt8])
}

extension EventPlayer {
    /// Gives `event`.
    func apply(_ event: SoundFontSynthesizerTests.Event) {
        switch event {
        case .on(let c, let k, let v): noteOn(channel: c, key: k, velocity: v)
        case .off(let c, let k): noteOff(channel: c, key: k)
        case .cc(let c, let n, let v): controlChange(channel: c, controller: n, value: v)
        case .program(let c, let p): programChange(channel: c, program: p)
        case .bend(let c, let v): pitchBend(channel: c, value: v)
        case .sysex(let bytes): sysex(bytes)
        }
    }
}

extension SoundFontSynthesizer: EventPlayer {
    func sysex(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { _ = systemExclusive($0) } }
}

extension FluidSynthesizer: EventPlayer {
    func sysex(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { systemExclusive($0) } }
}
