#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DLS
import SF2

/// The SoundFonts the project makes itself, written to soundfonts/ by `swift run make-soundfonts`.
public enum SoundFontBook {
    /// `pianola-test.sf2`: tones made to be measured. Bank 0 program 0 a pure sine, program 1 a
    /// square, program 2 a click; bank 128 program 0 a kit of clicks. Instant attack (1 ms, the
    /// SoundFont minimum), full sustain, instant release, no vibrato, no filter, no reverb or
    /// chorus send. Every tone plays A440 at key 69 and tracks the keyboard in equal temperament;
    /// the click sounds the same on every key: 48 points (1.09 ms) at +0.75 of full scale.
    public static func testFont() -> SF2File {
        var font = SF2File(name: "Pianola test tones", comment: "Pure tones for measuring onset, pitch and level.")
        let sine = font.add(Waveforms.tone("sine A440", harmonics: [1], pointsPerCycle: 100, rootKey: 69))
        let square = font.add(Waveforms.square("square A440", pointsPerCycle: 100, rootKey: 69))
        let click = font.add(SF2Sample(name: "click", data: [Int16](repeating: 24_576, count: 48) + [Int16](repeating: 0, count: 16),
                                       sampleRate: Waveforms.sampleRate, rootKey: 60))
        let steady: [SF2Generator] = [
            .attack(-12000), .hold(-12000), .decay(-12000), .sustain(0), .release(-12000),
            .reverbSend(0), .chorusSend(0),
        ]
        func instrument(_ name: String, _ sample: Int, looped: Bool, scale: Int16 = 100) -> Int {
            font.add(SF2Instrument(name: name, zones: [
                .init(sample: sample, generators: steady + [.sampleModes(looped ? 1 : 0), .scaleTuning(scale)],
                      modulators: SF2Modulator.neutralizingDefaults),
            ]))
        }
        let sineInstrument = instrument("sine", sine, looped: true)
        let squareInstrument = instrument("square", square, looped: true)
        let clickInstrument = instrument("click", click, looped: false, scale: 0)
        font.presets = [
            SF2Preset(name: "Sine", bank: 0, program: 0, zones: [.init(instrument: sineInstrument)]),
            SF2Preset(name: "Square", bank: 0, program: 1, zones: [.init(instrument: squareInstrument)]),
            SF2Preset(name: "Click", bank: 0, program: 2, zones: [.init(instrument: clickInstrument)]),
            SF2Preset(name: "Click Kit", bank: 128, program: 0, zones: [.init(instrument: clickInstrument)]),
        ]
        return font
    }

    /// A DLS Level 1 bank of the test font's sine (A440 at key 69, looped, at full level on
    /// bank 0 program 0), for the tests and fuzzers: libinstpatch reads it, not Pianola.
    public static func sineBank() -> DLSBank {
        let sine = Waveforms.tone("sine A440", harmonics: [1], pointsPerCycle: 100, rootKey: 69)
        let wave = DLSBank.Wave(name: sine.name, sampleRate: sine.sampleRate, frames: sine.data, unityNote: Int(sine.rootKey),
                                loop: sine.loop.map { $0.start ..< $0.end })
        return DLSBank(name: "Pianola sine", instruments: [.init(name: "Sine", program: 0, regions: [.init(wave: 0)])], waves: [wave])
    }

    /// `pianola-gm.sf2`: a small General MIDI set so any song plays with no download. The 128
    /// programs map by GM family onto a handful of synthesized timbres with sensible envelopes;
    /// bank 128 program 0 is a drum kit for channel 10 (kick, snare, clap, toms, hi-hats with a
    /// shared exclusive class, cymbals, cowbell, and a click for the rest).
    public static func generalMIDIFont() -> SF2File {
        var font = SF2File(name: "Pianola GM", comment: "Synthesized General MIDI set made by the Pianola project.")

        struct Timbre { let name: String; let harmonics: [Double]; let points: Int; let root: UInt8; let envelope: [SF2Generator] }
        let saw = (1...24).map { 1.0 / Double($0) }
        let odd = (1...24).map { $0 % 2 == 1 ? 1.0 / Double($0) : 0 }
        func env(attack: Double, decay: Double, sustain: Int16, release: Double) -> [SF2Generator] {
            [.attack(SF2Generator.timecents(attack)), .decay(SF2Generator.timecents(decay)), .sustain(sustain),
             .release(SF2Generator.timecents(release))]
        }
        let timbres = [
            Timbre(name: "piano", harmonics: (1...12).map { 1.0 / pow(Double($0), 1.6) }, points: 100, root: 69,
                   envelope: env(attack: 0.002, decay: 4, sustain: 1000, release: 0.25)),
            Timbre(name: "organ", harmonics: [1, 0.8, 0.5, 0.4, 0, 0.3, 0, 0.25], points: 100, root: 69,
                   envelope: env(attack: 0.01, decay: 0.1, sustain: 0, release: 0.08)),
            Timbre(name: "guitar", harmonics: (1...16).map { 1.0 / pow(Double($0), 1.2) }, points: 100, root: 69,
                   envelope: env(attack: 0.002, decay: 2, sustain: 1000, release: 0.15)),
            Timbre(name: "bass", harmonics: [1, 0.6, 0.3, 0.15, 0.08], points: 400, root: 45,
                   envelope: env(attack: 0.004, decay: 2.5, sustain: 200, release: 0.08)),
            Timbre(name: "strings", harmonics: saw, points: 100, root: 69,
                   envelope: env(attack: 0.15, decay: 1, sustain: 30, release: 0.4)),
            Timbre(name: "brass", harmonics: saw.map { $0 * 1.2 }, points: 100, root: 69,
                   envelope: env(attack: 0.04, decay: 0.6, sustain: 40, release: 0.15)),
            Timbre(name: "reed", harmonics: odd, points: 100, root: 69,
                   envelope: env(attack: 0.03, decay: 0.5, sustain: 30, release: 0.1)),
            Timbre(name: "flute", harmonics: [1, 0.12, 0.05], points: 100, root: 69,
                   envelope: env(attack: 0.06, decay: 0.5, sustain: 20, release: 0.15)),
            Timbre(name: "lead", harmonics: odd.map { $0 * 0.9 }, points: 100, root: 69,
                   envelope: env(attack: 0.005, decay: 0.3, sustain: 40, release: 0.1)),
            Timbre(name: "pad", harmonics: saw.prefix(10).map { $0 }, points: 100, root: 69,
                   envelope: env(attack: 0.5, decay: 2, sustain: 60, release: 1.0)),
        ]
        let instruments = timbres.map { timbre -> Int in
            let sample = font.add(Waveforms.tone(timbre.name, harmonics: timbre.harmonics, pointsPerCycle: timbre.points, rootKey: timbre.root))
            return font.add(SF2Instrument(name: timbre.name, zones: [
                .init(sample: sample, generators: timbre.envelope + [.sampleModes(1)]),
            ]))
        }
        // GM families of eight programs each → timbre index.
        let familyTimbre = [0, 0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 9, 2, 0, 2]
        for program in 0..<128 {
            font.presets.append(SF2Preset(name: generalMIDINames[program], bank: 0, program: UInt16(program),
                                          zones: [.init(instrument: instruments[familyTimbre[program / 8]])]))
        }
        font.presets.append(drumKit(&font))
        return font
    }

    /// The GM drum kit: one instrument whose zones cover the GM percussion keys.
    static func drumKit(_ font: inout SF2File) -> SF2Preset {
        let kick = font.add(Waveforms.oneShot("kick", seconds: 0.35, Waveforms.sweep(from: 160, to: 48, decay: 0.12)))
        let snareNoise = Waveforms.noise(decay: 0.07, brightness: 0.5, seed: 1)
        let snareTone = Waveforms.sweep(from: 240, to: 180, decay: 0.05)
        let snare = font.add(Waveforms.oneShot("snare", seconds: 0.25) { 0.8 * snareNoise($0) + 0.5 * snareTone($0) })
        let clapNoise = Waveforms.noise(decay: 0.06, brightness: 0.6, seed: 2)
        let clap = font.add(Waveforms.oneShot("clap", seconds: 0.2) { t in
            clapNoise(t) * (t < 0.03 ? (t.truncatingRemainder(dividingBy: 0.01) < 0.004 ? 1 : 0.2) : 1)
        })
        let tom = font.add(Waveforms.oneShot("tom", seconds: 0.4, rootKey: 45, Waveforms.sweep(from: 150, to: 110, decay: 0.15)))
        let closedHat = font.add(Waveforms.oneShot("closed hat", seconds: 0.08, Waveforms.noise(decay: 0.02, brightness: 1, seed: 3)))
        let openHat = font.add(Waveforms.oneShot("open hat", seconds: 0.45, Waveforms.noise(decay: 0.15, brightness: 1, seed: 4)))
        let crash = font.add(Waveforms.oneShot("crash", seconds: 1.4, Waveforms.noise(decay: 0.5, brightness: 0.9, seed: 5)))
        let rideNoise = Waveforms.noise(decay: 0.4, brightness: 1, seed: 6)
        let ride = font.add(Waveforms.oneShot("ride", seconds: 0.9) { t in 0.5 * rideNoise(t) + 0.3 * sin(2 * Double.pi * 3100 * t) * exp(-t / 0.3) })
        let cowbell = font.add(Waveforms.oneShot("cowbell", seconds: 0.25) { t in
            (sin(2 * Double.pi * 562 * t) + sin(2 * Double.pi * 845 * t)) * 0.45 * exp(-t / 0.07)
        })
        let stick = font.add(Waveforms.oneShot("stick", seconds: 0.03) { t in sin(2 * Double.pi * 1800 * t) * exp(-t / 0.005) })

        func zone(_ sample: Int, _ keys: ClosedRange<UInt8>, pitched: Bool = false, exclusive: Int16? = nil) -> SF2Instrument.Zone {
            var generators: [SF2Generator] = [.keyRange(keys.lowerBound, keys.upperBound), .release(SF2Generator.timecents(0.3))]
            if !pitched { generators.append(.scaleTuning(0)) }
            if let exclusive { generators.append(.exclusiveClass(exclusive)) }
            return .init(sample: sample, generators: generators)
        }
        var zones: [SF2Instrument.Zone] = [
            zone(stick, 0...34), zone(kick, 35...36), zone(stick, 37...37), zone(snare, 38...38), zone(clap, 39...39),
            zone(snare, 40...40), zone(tom, 41...41, pitched: true), zone(closedHat, 42...42, exclusive: 1),
            zone(tom, 43...43, pitched: true), zone(closedHat, 44...44, exclusive: 1), zone(tom, 45...45, pitched: true),
            zone(openHat, 46...46, exclusive: 1), zone(tom, 47...48, pitched: true), zone(crash, 49...49),
            zone(tom, 50...50, pitched: true), zone(ride, 51...51), zone(crash, 52...52), zone(ride, 53...53),
            zone(closedHat, 54...54), zone(crash, 55...55), zone(cowbell, 56...56), zone(crash, 57...57),
            zone(stick, 58...58), zone(ride, 59...59),
        ]
        zones.append(zone(stick, 60...127))
        let kit = font.add(SF2Instrument(name: "GM kit", zones: zones))
        return SF2Preset(name: "Standard Kit", bank: 128, program: 0, zones: [.init(instrument: kit)])
    }

    /// The General MIDI program names, 0-based.
    static let generalMIDINames: [String] = """
        Acoustic Grand Piano|Bright Acoustic Piano|Electric Grand Piano|Honky-tonk Piano|Electric Piano 1|Electric Piano 2|Harpsichord|Clavinet|\
        Celesta|Glockenspiel|Music Box|Vibraphone|Marimba|Xylophone|Tubular Bells|Dulcimer|\
        Drawbar Organ|Percussive Organ|Rock Organ|Church Organ|Reed Organ|Accordion|Harmonica|Tango Accordion|\
        Nylon Guitar|Steel Guitar|Jazz Guitar|Clean Guitar|Muted Guitar|Overdriven Guitar|Distortion Guitar|Guitar Harmonics|\
        Acoustic Bass|Finger Bass|Pick Bass|Fretless Bass|Slap Bass 1|Slap Bass 2|Synth Bass 1|Synth Bass 2|\
        Violin|Viola|Cello|Contrabass|Tremolo Strings|Pizzicato Strings|Orchestral Harp|Timpani|\
        String Ensemble 1|String Ensemble 2|Synth Strings 1|Synth Strings 2|Choir Aahs|Voice Oohs|Synth Voice|Orchestra Hit|\
        Trumpet|Trombone|Tuba|Muted Trumpet|French Horn|Brass Section|Synth Brass 1|Synth Brass 2|\
        Soprano Sax|Alto Sax|Tenor Sax|Baritone Sax|Oboe|English Horn|Bassoon|Clarinet|\
        Piccolo|Flute|Recorder|Pan Flute|Blown Bottle|Shakuhachi|Whistle|Ocarina|\
        Square Lead|Saw Lead|Calliope Lead|Chiff Lead|Charang Lead|Voice Lead|Fifths Lead|Bass + Lead|\
        New Age Pad|Warm Pad|Polysynth Pad|Choir Pad|Bowed Pad|Metallic Pad|Halo Pad|Sweep Pad|\
        Rain|Soundtrack|Crystal|Atmosphere|Brightness|Goblins|Echoes|Sci-fi|\
        Sitar|Banjo|Shamisen|Koto|Kalimba|Bagpipe|Fiddle|Shanai|\
        Tinkle Bell|Agogo|Steel Drums|Woodblock|Taiko Drum|Melodic Tom|Synth Drum|Reverse Cymbal|\
        Guitar Fret Noise|Breath Noise|Seashore|Bird Tweet|Telephone Ring|Helicopter|Applause|Gunshot
        """.split(separator: "|").map(String.init)
}
