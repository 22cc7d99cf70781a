import FluidSynth
import Foundation
import SF2
@testable import SoundFontSynth
import Testing

/// Pianola's volume envelope against libfluidsynth's, measured: a looped 1 kHz sine played
/// through libfluidsynth with each set of envelope generators, its level every 10 ms, and the
/// envelope's own gain over the same frames; the two curves agree within 0.5 dB down to −60 dB.
@Suite("The volume envelope sounds as libfluidsynth's")
struct EnvelopeTests {
    static let rate = 48_000
    static let window = 480   // ten periods of the sine

    /// A font of one looped 1 kHz sine whose instrument has `envelope`, dry and steady otherwise.
    static func font(_ envelope: [SF2Generator]) -> [UInt8] {
        var font = SF2File(name: "envelope")
        let sine = (0..<480).map { Int16((sin(2 * Double.pi * Double($0) / 48) * 20_000).rounded()) }
        let sample = font.add(SF2Sample(name: "sine", data: sine, sampleRate: rate, rootKey: 60, loop: (0, 480)))
        let instrument = font.add(SF2Instrument(name: "sine", zones: [
            .init(sample: sample, generators: envelope + [.sampleModes(1)], modulators: SF2Modulator.neutralizingDefaults),
        ]))
        font.presets.append(SF2Preset(name: "sine", bank: 0, program: 0, zones: [.init(instrument: instrument)]))
        return font.serialized()
    }

    /// libfluidsynth's left channel for key 60 held `held` frames then released, `total` in all.
    static func libfluidsynth(_ font: [UInt8], held: Int, total: Int) throws -> [Float] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("envelope-\(UUID().uuidString).sf2").path
        try Data(font).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = FluidSynthesizer.Configuration()
        configuration.sampleRate = Double(rate)
        configuration.reverb = false
        configuration.chorus = false
        let synthesizer = try FluidSynthesizer(configuration: configuration)
        _ = try synthesizer.loadSoundFont(path: path)
        synthesizer.programChange(channel: 0, program: 0)
        synthesizer.noteOn(channel: 0, key: 60, velocity: 127)
        var left = [Float](repeating: 0, count: total), right = [Float](repeating: 0, count: total)
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                synthesizer.render(left: l.baseAddress!, right: r.baseAddress!, frames: held)
                synthesizer.noteOff(channel: 0, key: 60)
                synthesizer.render(left: l.baseAddress! + held, right: r.baseAddress! + held, frames: total - held)
            }
        }
        return left
    }

    /// The envelope's gain at every frame: stepped each 64-frame block, ramping within it.
    static func ours(_ times: Envelope.Times, held: Int, total: Int) -> [Float] {
        var envelope = Envelope(.volume, times, key: 60, sampleRate: Double(rate))
        var gains: [Float] = []
        var amplitude: Float = 0
        for block in 0..<(total / Units.controlBlock) {
            if block * Units.controlBlock == held { envelope.release() }
            let target = envelope.nextBlockGain()
            let step = (target - amplitude) / Float(Units.controlBlock)
            for i in 0..<Units.controlBlock { gains.append(amplitude + step * Float(i)) }
            amplitude = target
        }
        return gains
    }

    @Test("attack, hold, decay to the sustain level, release; a note released in its attack; a sustain below the envelope's range", arguments: [
        (Envelope.Times(attack: -1200, hold: -2400, decay: 0, sustain: 200, release: -600), 72_000),   // 0.5 s, 0.25 s, 1 s, −20 dB, 0.7 s
        (Envelope.Times(attack: 0, decay: -1200, sustain: 100, release: -1200), 24_000),                 // released at 0.5 s, halfway up
        (Envelope.Times(attack: -3600, hold: -12_000, decay: -600, sustain: 1_440, release: -2400), 48_000), // sustain past 96 dB: silence
    ])
    func matchesLibfluidsynth(times: Envelope.Times, held: Int) throws {
        let generators: [SF2Generator] = [.attack(Int16(times.attack)), .hold(Int16(times.hold)), .decay(Int16(times.decay)),
                                          .sustain(Int16(times.sustain)), .release(Int16(times.release))]
        let total = 2 * 48_000 + held
        let theirs = try Self.libfluidsynth(Self.font(generators), held: held, total: total)
        let ours = Self.ours(times, held: held, total: total)
        let windows = total / Self.window
        func level(_ x: ArraySlice<Float>, sine: Bool) -> Double {
            (x.reduce(0) { $0 + Double($1) * Double($1) } / Double(x.count) * (sine ? 2 : 1)).squareRoot()
        }
        let measured = (0..<windows).map { level(theirs[$0 * Self.window ..< ($0 + 1) * Self.window], sine: true) }
        let expected = (0..<windows).map { level(ours[$0 * Self.window ..< ($0 + 1) * Self.window], sine: false) }
        // libfluidsynth's constant factors (gain, pan, the filter at its default cutoff): its
        // level for the same sine held at full scale (an instant attack, a long hold).
        let steady = try Self.libfluidsynth(Self.font([.attack(-12_000), .hold(5_000)]), held: 48_000, total: 48_000)
        let scale = level(steady[24_000 ..< 24_000 + Self.window], sine: true)
        var worst = (window: 0, dB: 0.0)
        for w in 0..<windows where expected[w] > 1e-3 {
            let difference = 20 * log10(measured[w] / (scale * expected[w]))
            if abs(difference) > abs(worst.dB) { worst = (w, difference) }
        }
        print(String(format: "envelope %@: worst %+.3f dB at %.2f s", "\(times)", worst.dB, Double(worst.window * Self.window) / Double(Self.rate)))
        #expect(abs(worst.dB) <= 0.5, "worst \(worst.dB) dB at window \(worst.window)")
        // Where ours is silent, libfluidsynth's is below −60 dB too.
        for w in 0..<windows where expected[w] == 0 { #expect(measured[w] < scale * 1e-3, "window \(w)") }
    }
}
