import DSP
import Foundation
@testable import Pianola
import Testing

@Suite("The game API's effects: buses, game parameters driving them, ducking")
struct BusEffectTests {
    /// A 4/4 song at 120 bpm of `bars` bars with no notes: the music is its stem alone.
    static func silence(bars: Int) -> MusicSequence {
        MusicSequence(division: .ticksPerQuarter(480), tracks: [MusicTrack(name: "Rest", events: [], length: bars * 1920)])
    }

    /// A song whose music is the stem `samples` (mono, 48 kHz).
    static func stemSong(_ soundtrack: Soundtrack, _ fixture: SoundtrackFixture, _ samples: [Float]) async throws -> Soundtrack.Song {
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(silence(bars: samples.count / 96_000 + 1), as: "rest.mid"),
                                                     soundFontPath: SoundtrackFixture.testFont)
        description.stems = ["bed": .path(try fixture.writeWAV(samples, as: "bed.wav"))]
        return try await soundtrack.load(description)
    }

    /// The amplitude of the `frequency` Hz sine in `samples[range]` (a whole number of its cycles long).
    static func amplitude(_ samples: [Float], _ range: Range<Int>, frequency: Double) -> Double {
        var s = 0.0, c = 0.0
        for i in range {
            let phase = 2 * Double.pi * frequency * Double(i) / 48_000
            s += Double(samples[i]) * sin(phase)
            c += Double(samples[i]) * cos(phase)
        }
        return 2 * (s * s + c * c).squareRoot() / Double(range.count)
    }

    @Test("A game parameter opening and closing a low-pass on the music: the highs fall by the curve's amount over the glide and come back")
    func underwater() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        var random = SystemRandomNumberGenerator()
        let noise = (0..<(6 * 48_000)).map { _ in Float.random(in: -0.25...0.25, using: &random) }
        let song = try await Self.stemSong(soundtrack, fixture, noise)
        let lowpass = try soundtrack.addEffect(try EffectSpec("lowpass"), on: .music)
        try soundtrack.defineParameter("depth")
        try soundtrack.mapParameter("depth", to: .effect(lowpass, parameter: "cutoff"), curve: .init([(0, 20_000), (1, 500)]))
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(48_000)
        try soundtrack.setParameter("depth", to: 1, seconds: 1)
        pull.pull(96_000)
        try soundtrack.setParameter("depth", to: 0, seconds: 0.5)
        pull.pull(48_000)
        // Under water again, then the low-pass taken off: the parameter lets go of it.
        try soundtrack.setParameter("depth", to: 1)
        pull.pull(24_000)
        try soundtrack.removeEffect(lowpass)
        #expect(soundtrack.effects(on: .music).isEmpty)
        #expect(throws: SoundtrackError.self) { try soundtrack.setEffectParameter(lowpass, "cutoff", to: 1_000) }
        #expect(throws: SoundtrackError.self) { try soundtrack.removeEffect(lowpass) }
        try soundtrack.setParameter("depth", to: 0.5)
        pull.pull(24_000)
        // The level above 4 kHz, in 100 ms windows: an 8th-order high-pass, then RMS.
        var ear = [Biquad](repeating: Biquad(), count: 4)
        for k in ear.indices { ear[k].coefficients = Biquad.Coefficients(.highpass, frequency: 4_000, q: 0.7071, sampleRate: 48_000) }
        let high = pull.left.map { x -> Float in
            var y = SIMD2(Double(x), Double(x))
            for k in ear.indices { y = ear[k].process(y) }
            return Float(y.x)
        }
        func level(_ second: Double) -> Double {
            let start = Int(second * 48_000)
            let power = high[start..<start + 4_800].reduce(0.0) { $0 + Double($1 * $1) } / 4_800
            return 10 * log10(power)
        }
        let open = level(0.5), half = level(1.5), closed = level(2.5), reopened = level(3.8), again = level(4.35), removed = level(4.75)
        print("highs above 4 kHz: open \(open) dB, half-way \(half) dB, under water \(closed) dB, surfaced \(reopened) dB, under again \(again) dB, low-pass removed \(removed) dB")
        #expect(open - closed > 40, "a 500 Hz low-pass takes 40 dB off the highs")
        #expect(half < open - 3 && half > closed + 3, "half-way along the glide, half-way down")
        #expect(abs(reopened - open) < 1, "open again after the glide back")
        // Open, the low-pass still sits at 20 kHz and takes a little of the top octave: removed, a
        // touch more comes through (1.2 to 1.5 dB more, measured here, as the windows fall in the music).
        #expect(open - again > 40 && removed > open - 0.1 && removed < open + 2.5, "the low-pass removed, the highs are back whatever the parameter says")
        #expect(try soundtrack.addEffect(try EffectSpec("lowpass"), on: .music).id == 1, "numbers are not reused")
    }

    @Test("Ducking: a compressor on the music keyed by the sound effects turns the music down by the set amount within the attack time, and back up within the release time")
    func ducking() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        // The music: a 100 Hz sine at -12 dBFS; the voice line: 3 kHz at -6 dBFS for half a second.
        let bed = (0..<(6 * 48_000)).map { Float(0.25 * sin(2 * Double.pi * 100 * Double($0) / 48_000)) }
        let song = try await Self.stemSong(soundtrack, fixture, bed)
        let voice = try await soundtrack.loadSoundEffect(.path(try fixture.writeWAV((0..<24_000).map { Float(0.5 * sin(2 * Double.pi * 3_000 * Double($0) / 48_000)) }, as: "voice.wav")))
        // 24 dB over the threshold at ratio 4: 18 dB down.
        let ducker = try soundtrack.addEffect(try EffectSpec("compressor,threshold=-30,ratio=4,attack=20ms,release=300ms"), on: .music, keyedBy: .sounds)
        #expect(soundtrack.effects(on: .music) == [ducker])
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.slices = [480]
        pull.pull(48_000)
        try soundtrack.playSoundEffect(voice)
        pull.pull(96_000)
        let onset = pull.left.indices.first { $0 >= 48_000 && Self.amplitude(pull.left, ($0 / 16) * 16..<($0 / 16) * 16 + 16, frequency: 3_000) > 0.1 }!
        // The music's level in windows of one 100 Hz cycle (480 frames), in dB against its own.
        func music(at frame: Int) -> Double { 20 * log10(Self.amplitude(pull.left, frame - 240..<frame + 240, frequency: 100) / 0.25) }
        let before = music(at: onset - 2_400), ducked = music(at: onset + 20_000), after = music(at: onset + 24_000 + 48_000)
        print("ducking: music \(before) dB before, \(ducked) dB under the voice, \(after) dB a second after it")
        #expect(abs(before) < 0.05)
        #expect(abs(ducked + 18) < 0.5, "18 dB down under the voice")
        #expect(abs(after) < 0.1, "back up")
        // Attack: 90 % of the 18 dB within 20 ms (a window's half-width of slack either side).
        let attack = (onset..<onset + 9_600).first { music(at: $0) < -16.2 }! - onset
        let release = (onset + 24_000..<onset + 72_000).first { music(at: $0) > -1.8 }! - (onset + 24_000)
        print("ducking: 90 % down in \(attack) frames (attack 960), 90 % back in \(release) frames (release 14,400 after the 480-frame hold)")
        #expect(abs(attack - 960) <= 240 + 16, "attack \(attack) frames")
        #expect(abs(release - 14_400 - 480) <= 240 + 16, "release \(release) frames")
    }

    /// The level in dB above (`above`) or below 4 kHz of `samples` from frame 24,000 on, by an
    /// 8th-order high- or low-pass.
    static func band(_ samples: [Float], above: Bool) -> Double {
        var ear = [Biquad](repeating: Biquad(), count: 4)
        for k in ear.indices { ear[k].coefficients = Biquad.Coefficients(above ? .highpass : .lowpass, frequency: 4_000, q: 0.7071, sampleRate: 48_000) }
        var power = 0.0
        for (i, x) in samples.enumerated() {
            var y = SIMD2(Double(x), Double(x))
            for k in ear.indices { y = ear[k].process(y) }
            if i >= 24_000 { power += y.x * y.x }
        }
        return 10 * log10(power / Double(samples.count - 24_000))
    }

    @Test("A song's own effects and a layer's: a low-pass on the stem layer takes its highs, a high-pass on the song's bus its lows; a layer the song has not is one line")
    func songAndLayerEffects() async throws {
        let fixture = try SoundtrackFixture()
        var random = SystemRandomNumberGenerator()
        let noise = (0..<(3 * 48_000)).map { _ in Float.random(in: -0.25...0.25, using: &random) }
        let (midi, bed) = (try fixture.write(Self.silence(bars: 2), as: "rest.mid"), try fixture.writeWAV(noise, as: "bed.wav"))
        func play(_ configure: (inout Soundtrack.SongDescription) throws -> Void) async throws -> [Float] {
            let soundtrack = Soundtrack(configuration: dryConfiguration())
            var description = Soundtrack.SongDescription(midiPath: midi, soundFontPath: SoundtrackFixture.testFont)
            description.stems = ["bed": .path(bed)]
            try configure(&description)
            try soundtrack.play(try await soundtrack.load(description))
            var pull = Puller(soundtrack)
            pull.pull(96_000)
            return pull.left
        }
        let plain = try await play { _ in }
        let layer = try await play { $0.layerEffects = ["Bed": [try EffectSpec("lowpass,cutoff=500")]] }
        let song = try await play { $0.effects = [try EffectSpec("highpass,cutoff=8kHz")] }
        let (highs, lows) = (Self.band(plain, above: true), Self.band(plain, above: false))
        print("song and layer effects: highs \(highs) dB, through the layer's low-pass \(Self.band(layer, above: true)) dB; lows \(lows) dB, through the song's high-pass \(Self.band(song, above: false)) dB")
        #expect(highs - Self.band(layer, above: true) > 30)
        #expect(lows - Self.band(song, above: false) > 12)
        #expect(highs - Self.band(song, above: true) < lows - Self.band(song, above: false) - 6, "the high-pass leaves more of the highs")
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(Self.silence(bars: 2), as: "rest2.mid"), soundFontPath: SoundtrackFixture.testFont)
        description.layerEffects = ["strings": [try EffectSpec("lowpass")]]
        var line = ""
        do { _ = try await soundtrack.load(description) } catch { line = error.description }
        #expect(line.hasSuffix("rest2.mid: effects for layer 'strings', which is no track layer or stem of the song"), "\(line)")
    }

    @Test("A send to the aux bus: the music at the send's level through the aux's effects (a delay of 100 ms, echoes only), beside the dry music")
    func sendAndReturn() async throws {
        let fixture = try SoundtrackFixture()
        let bed = (0..<(3 * 48_000)).map { Float(0.25 * sin(2 * Double.pi * 100 * Double($0) / 48_000)) }
        let (midi, wav) = (try fixture.write(Self.silence(bars: 2), as: "rest.mid"), try fixture.writeWAV(bed, as: "bed.wav"))
        func play(send: Float?) async throws -> [Float] {
            let soundtrack = Soundtrack(configuration: dryConfiguration())
            var description = Soundtrack.SongDescription(midiPath: midi, soundFontPath: SoundtrackFixture.testFont)
            description.stems = ["bed": .path(wav)]
            try soundtrack.addEffect(try EffectSpec("delay,time=0.1,feedback=0,mix=1"), on: .aux)
            if let send { try soundtrack.setSend(from: .music, level: send) }
            try soundtrack.play(try await soundtrack.load(description))
            var pull = Puller(soundtrack)
            pull.pull(96_000)
            return pull.left
        }
        let dry = try await play(send: nil), sent = try await play(send: 0.5)
        // From the first slice on the send glides up over one slice; after that it is exact.
        var worst: Float = 0
        for i in 10_000..<96_000 { worst = max(worst, abs(sent[i] - dry[i] - 0.5 * dry[i - 4_800])) }
        print("send and return: the aux's output is half the music 4,800 frames late, within \(worst)")
        #expect(worst < 1e-5)
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        #expect(Self.refusal { try soundtrack.setSend(from: .master, level: 1) } == "send from master: only the music and the sounds send to the aux bus")
    }

    /// What `body` throws, as its one line; nil when it does not throw.
    static func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    @Test("Bad effects are refused in one line: a parameter it has not, a value out of range, a key for a filter or a later bus")
    func refusals() throws {
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let lowpass = try soundtrack.addEffect(try EffectSpec("lowpass,cutoff=800"), on: .master)
        let filter = try EffectSpec("lowpass"), compressor = try EffectSpec("compressor")
        #expect(Self.refusal { try soundtrack.setEffectParameter(lowpass, "frequency", to: 500) }
            == "effect master: lowpass,cutoff=800: no parameter 'frequency' (it has cutoff, q)")
        #expect(Self.refusal { try soundtrack.setEffectParameter(lowpass, "cutoff", to: 50_000) }
            == "effect master: lowpass,cutoff=800: cutoff 50000.0 is out of range: use 10.0 to 24000.0 Hz")
        #expect(Self.refusal { try soundtrack.addEffect(filter, on: .music, keyedBy: .sounds) } == "effect 'lowpass': only a compressor or an LV2 plugin with side-chain inputs is keyed by another bus")
        #expect(Self.refusal { try soundtrack.addEffect(compressor, on: .sounds, keyedBy: .music) }
            == "effect 'compressor' on sounds keyed by music: the key must be summed before the bus it drives (sounds, then music, then master)")
        #expect(Self.refusal { try soundtrack.mapParameter("nothing", to: .effect(lowpass, parameter: "cutoff"), curve: .linear(from: 100, to: 200)) }?
            .hasPrefix("no parameter 'nothing'") == true)
        try soundtrack.defineParameter("depth")
        #expect(Self.refusal { try soundtrack.mapParameter("depth", to: .effect(lowpass, parameter: "cutoff"), curve: .linear(from: 1, to: 200)) }?
            .contains("needs points with finite x and y in 10.0...24000.0") == true)
        let elsewhere = Soundtrack(configuration: dryConfiguration())
        #expect(Self.refusal { try elsewhere.setEffectBypassed(lowpass, true) } == "effect master: lowpass,cutoff=800 is not on the master bus of this soundtrack")
    }
}
