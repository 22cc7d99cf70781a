import AudioFile
import Foundation
import Pianola
import SoundFontModel

/// Every preset of a font played by both synthesizers, note by note, for the preset
/// conformance table (Tools/preset-conformance.sh measures the renders): three keys at two
/// velocities each, held for `held` seconds then released, `gap` seconds apart, reverb and
/// chorus off, libfluidsynth with the whole font loaded. Writes `DIR/B-P.pianola.wav` and
/// `DIR/B-P.fluidsynth.wav` (float stereo) a preset, and `DIR/presets.tsv`: bank, program,
/// name, the keys and velocities, the seconds a note takes. An SF3 is decoded first, as
/// `pianola render` plays one.
func presetRenders(font path: String, into folder: String, only: Set<String>) throws {
    let decoded = try SoundFont(path: path).version.major >= 3 ? DecodedSoundFonts.copy(of: path, in: DecodedSoundFonts.folder) : path
    guard let decoded else { throw BenchError("\(path): an SF3 whose samples could not be decoded") }
    let font = try SoundFont(path: decoded)
    let rate = 48_000, held = 1.0, gap = 1.6
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var table = "bank\tprogram\tname\tnotes\tseconds\n"
    var seen = Set<Int>()
    let presets = font.presets.filter { seen.insert(Int($0.bank) << 8 | Int($0.program)).inserted }
        .filter { only.isEmpty || only.contains("\($0.bank)-\($0.program)") }
        .sorted { ($0.bank, $0.program) < ($1.bank, $1.program) }
    var configuration = FluidSynthesizer.Configuration()
    configuration.sampleRate = Double(rate)
    configuration.reverb = false
    configuration.chorus = false
    configuration.lazySampleLoading = false
    let theirs = try FluidSynthesizer(configuration: configuration)
    _ = try theirs.loadSoundFont(path: decoded)
    let ours = SoundFontSynthesizer(font: font, sampleRate: Double(rate))
    for preset in presets {
        let drums = preset.bank == 128
        let keys = drums ? [36, 38, 42] : [48, 60, 72]
        let notes = keys.flatMap { key in [(key, 64), (key, 127)] }
        let channel = drums ? 9 : 0
        let frames = Int(gap * Double(rate)) * notes.count
        for (name, synthesizer) in [("pianola", ours as any SoundFontPlayer), ("fluidsynth", theirs)] {
            // What the last preset left sounding (a release, a long decay) is cut and let go.
            synthesizer.systemReset()
            for channel in 0..<16 { synthesizer.controlChange(channel: channel, controller: 120, value: 0) }
            var scratch = [Float](repeating: 0, count: rate / 2)
            scratch.withUnsafeMutableBufferPointer { synthesizer.render(left: $0.baseAddress!, right: $0.baseAddress!, frames: rate / 2) }
            if !drums { synthesizer.controlChange(channel: channel, controller: 0, value: Int(preset.bank)) }
            synthesizer.programChange(channel: channel, program: Int(preset.program))
            let writer = try AudioFileWriter(path: "\(folder)/\(preset.bank)-\(preset.program).\(name).wav", container: .wav, encoding: .float32,
                                             sampleRate: rate, overwrite: true)
            var left = [Float](repeating: 0, count: frames), right = left
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    var done = 0
                    func render(to frame: Int) {
                        synthesizer.render(left: l.baseAddress! + done, right: r.baseAddress! + done, frames: frame - done)
                        done = frame
                    }
                    for (i, (key, velocity)) in notes.enumerated() {
                        render(to: i * Int(gap * Double(rate)))
                        synthesizer.noteOn(channel: channel, key: key, velocity: velocity)
                        render(to: i * Int(gap * Double(rate)) + Int(held * Double(rate)))
                        synthesizer.noteOff(channel: channel, key: key)
                    }
                    render(to: frames)
                }
            }
            try writer.write(left: left, right: right, frames: frames)
            try writer.close()
        }
        let name = preset.name.replacingOccurrences(of: "\t", with: " ")
        table += "\(preset.bank)\t\(preset.program)\t\(name)\t\(notes.map { "\($0.0)/\($0.1)" }.joined(separator: " "))\t\(gap)\n"
    }
    try table.write(toFile: "\(folder)/presets.tsv", atomically: true, encoding: .utf8)
    print("preset renders: \(presets.count) presets of \(path), \(folder)")
}
