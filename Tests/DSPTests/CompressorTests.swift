import DSP
import Foundation
import Testing

@Suite("The built-in compressor")
struct CompressorTests {
    /// `unit` with `values` set at once (by parameter index), prepared at 48 kHz.
    static func compressor(_ values: [Int: Double], sideChain: SideChain? = nil) -> CompressorEffect {
        let unit = CompressorEffect(sideChain: sideChain)
        unit.prepare(sampleRate: 48_000, maxFrames: 480)
        for (index, value) in values { unit.setParameter(index, to: value, rampFrames: 0) }
        return unit
    }

    /// Runs `frames` of a constant `level` through `unit` in slices of 480; the output's last frame.
    static func settle(_ unit: CompressorEffect, level: Float, frames: Int) -> Float {
        let buffer = AudioBuffer(capacity: 480)
        for _ in 0..<(frames / 480) {
            buffer.left.update(repeating: level, count: 480)
            buffer.right.update(repeating: -level, count: 480)
            unit.process(buffer.slice(frames: 480))
        }
        return buffer.left[479]
    }

    @Test("The static curve: levels from -60 to 0 dBFS come out as threshold, ratio and knee say (within 0.05 dB)")
    func staticCurve() {
        for (threshold, ratio, knee, makeup) in [(-20.0, 4.0, 0.0, 0.0), (-30, 2, 12, 6), (-10, 50, 6, 0)] {
            let unit = Self.compressor([0: threshold, 1: ratio, 2: knee, 5: makeup])
            for levelDB in stride(from: -60.0, through: 0, by: 3) {
                let level = Float(pow(10, levelDB / 20))
                let out = Self.settle(unit, level: level, frames: 48_000)
                let got = 20 * log10(Double(out)) - levelDB
                let over = levelDB - threshold
                // The curve as the paper writes it: below, in the knee, above.
                let expected = (2 * over < -knee ? 0 : 2 * abs(over) <= knee ? (1 / ratio - 1) * pow(over + knee / 2, 2) / (2 * knee) : (1 / ratio - 1) * over) + makeup
                #expect(abs(got - expected) < 0.05, "threshold \(threshold) ratio \(ratio) knee \(knee): \(levelDB) dBFS in, gain \(got) dB, curve \(expected) dB")
            }
        }
    }

    /// Frames after a step in the key until the gain has covered 90 % of its change in dB.
    static func framesTo90(attack: Double, release: Double, from: Float, to: Float) -> Int {
        let unit = Self.compressor([0: -30, 1: 10, 3: attack, 4: release])
        _ = Self.settle(unit, level: from, frames: 96_000)
        let before = 20 * log10(Double(Self.settle(unit, level: from, frames: 480)) / Double(from))
        let buffer = AudioBuffer(capacity: 1)
        var gains: [Double] = []
        for _ in 0..<Int(6 * max(attack, release) * 48_000) {
            buffer.left[0] = to
            buffer.right[0] = to
            unit.process(buffer.slice(frames: 1))
            gains.append(20 * log10(Double(buffer.left[0]) / Double(to)))
        }
        let after = gains.last!
        return gains.firstIndex { abs($0 - before) >= 0.9 * abs(after - before) }! + 1
    }

    @Test("Attack and release: 90 % of the gain change in the times set, the release after the 10 ms hold", arguments: [(0.005, 0.1), (0.05, 0.8)])
    func times(attack: Double, release: Double) {
        let down = Self.framesTo90(attack: attack, release: release, from: 0.01, to: 1)
        let up = Self.framesTo90(attack: attack, release: release, from: 1, to: 0.01)
        print("compressor attack \(attack) s: 90 % in \(down) frames; release \(release) s: 90 % in \(up) frames")
        #expect(abs(Double(down) - attack * 48_000) <= 1, "attack: \(down) frames")
        // The loud frames leave the hold 480 frames later, give or take the block being filled.
        #expect(abs(Double(up) - release * 48_000 - 480) <= Double(CompressorEffect.holdBlock), "release: \(up) frames")
    }

    @Test("Keyed by a side-chain, it turns its own input down by the key's level, not its own")
    func sideChain() {
        let key = SideChain(maxFrames: 480)
        let unit = Self.compressor([0: -30, 1: 4, 3: 0.001, 4: 0.001], sideChain: key)
        let loud = AudioBuffer(capacity: 480), music = AudioBuffer(capacity: 480)
        loud.left.update(repeating: 0.5, count: 480)   // -6 dBFS: 24 dB over, 18 dB of reduction
        loud.right.update(repeating: 0.5, count: 480)
        for _ in 0..<100 {
            key.write(loud.slice(frames: 480))
            music.left.update(repeating: 0.01, count: 480)
            music.right.update(repeating: 0.01, count: 480)
            // Taken in two parts, as a chain splitting at a change would.
            unit.process(music.slice(frames: 200))
            unit.process(music.slice(frames: 480).dropFirst(200, count: 280))
        }
        let gain = 20 * log10(Double(music.left[479]) / 0.01)
        #expect(abs(gain + 18) < 0.05, "ducked by \(gain) dB")
        for _ in 0..<100 {     // no key written: silence
            music.left.update(repeating: 0.01, count: 480)
            music.right.update(repeating: 0.01, count: 480)
            unit.process(music.slice(frames: 480))
        }
        #expect(abs(music.left[479] - 0.01) < 1e-5, "back up without the key")
    }
}
