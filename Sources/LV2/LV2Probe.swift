import DSP

/// What a plugin did when tried in this process: made as an effect or an instrument, run over
/// two seconds of sound (an effect: a second of noise then a second of silence; an
/// instrument: a chord with a kick and a snare, from a frame inside its ninth run, held and
/// released: a kit loaded by the plugin's worker has had eight runs to arrive), its output
/// looked at (an instrument's: how many frames after its notes' frame it first sounds). Meant for a child process,
/// since a plugin may crash or hang its host. Control thread.
package struct LV2Probe: Hashable, Sendable, CustomStringConvertible {
    /// The plugin's verdict. Any thread.
    public enum Verdict: String, Hashable, Sendable {
        /// It ran and gave finite output.
        case ok
        /// Pianola cannot host it (its ports, a feature it needs, or it failed to instantiate).
        case refused
        /// It ran but gave NaN or infinite samples.
        case badOutput = "bad-output"
    }

    /// The verdict. Any thread.
    public let verdict: Verdict
    /// Why, or what was seen (peak level, latency, denormal samples): one line. Any thread.
    public let detail: String

    /// `ok: peak -12.0 dBFS` or `refused: why`. Any thread.
    public var description: String { "\(verdict.rawValue): \(detail)" }

    /// The run an instrument's chord is given in, and its frame there.
    static let noteRun = 8, noteFrame = 100

    /// Tries `plugin` at `sampleRate` in runs of 512 frames. Control thread (it renders in place).
    public static func run(_ plugin: LV2PluginInfo, sampleRate: Int = 48_000) -> LV2Probe {
        let frames = 2 * sampleRate, block = 512
        let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { left.deallocate(); right.deallocate() }
        left.initialize(repeating: 0, count: frames)
        right.initialize(repeating: 0, count: frames)
        var latency = 0, onset: Int?, firstSilenced: Int?
        do throws(LV2Error) {
            if !plugin.isInstrument {
                let unit = try LV2EffectUnit(plugin, sampleRate: sampleRate, maxFrames: block, offline: true)
                var seed: UInt32 = 1
                for i in 0..<sampleRate {   // a second of white noise at -12 dBFS, a different one a side
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    left[i] = (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.5
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    right[i] = (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.5
                }
                let slice = StereoSlice(left: left, right: right, frames: frames)
                for start in stride(from: 0, to: frames, by: block) where firstSilenced == nil {
                    unit.process(slice.dropFirst(start, count: min(block, frames - start)))
                    if unit.silencedRuns > 0 { firstSilenced = start }
                }
                latency = unit.latencyFrames
            } else {
                let instrument = try LV2Instrument(plugin, sampleRate: sampleRate, maxFrames: block, offline: true)
                let on = Self.noteRun * block, release = on + sampleRate / block * block
                for start in stride(from: 0, to: frames, by: block) {
                    if start == on || start == release {   // a C major chord and a kick and snare (for kits), held a second
                        for key: UInt8 in [36, 38, 60, 64, 67] {
                            let message: [UInt8] = [start == on ? 0x90 : 0x80, key, 100]
                            message.withUnsafeBytes { instrument.add($0, atFrame: start == on ? Self.noteFrame : 0) }
                        }
                    }
                    instrument.run(left: left + start, right: right + start, frames: min(block, frames - start))
                    if instrument.silencedRuns > 0 && firstSilenced == nil { firstSilenced = start }
                }
                onset = (0..<frames).first { abs(left[$0]) > 1e-4 || abs(right[$0]) > 1e-4 }
            }
        } catch {
            return LV2Probe(verdict: .refused, detail: error.description)
        }
        if let firstSilenced { return LV2Probe(verdict: .badOutput, detail: "NaN or infinite output in its run from frame \(firstSilenced)") }
        var peak: Float = 0, subnormal = 0
        for i in 0..<frames {
            for sample in [left[i], right[i]] {
                peak = max(peak, abs(sample))
                if sample.isSubnormal { subnormal += 1 }
            }
        }
        let decibels = (200 * log10(Double(peak))).rounded() / 10
        var seen = [peak > 0 ? "peak \(decibels) dBFS" : "silent"]
        if latency != 0 { seen.append("latency \(latency) frames") }
        if let onset { seen.append("sounds \(onset - Self.noteRun * block - Self.noteFrame) frames after its note's frame") }
        if subnormal != 0 { seen.append("\(subnormal) denormal samples") }
        return LV2Probe(verdict: .ok, detail: seen.joined(separator: ", "))
    }
}

#if canImport(Glibc)
import Glibc
#endif
