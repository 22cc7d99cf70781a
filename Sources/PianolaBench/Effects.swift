import Foundation
import MIDI
import Pianola

/// Each built-in effect's CPU on a minute of stereo noise (512-frame slices), as times real
/// time on one core; then the reverb and chorus of the two synthesizers side by side: the CPU
/// a song's render gains when each is turned on, Pianola's own against `fluidsynth -F`'s.
func effectsBenchmark(song: String, font: String) throws -> [Figure] {
    let frames = 48_000 * 60, slice = 512
    let noise = AudioBuffer(capacity: frames)
    var seed: UInt64 = 1
    for i in 0..<frames {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        noise.left[i] = Float(Int64(bitPattern: seed) >> 40) / Float(1 << 23) * 0.25
        noise.right[i] = -noise.left[i]
    }
    let work = AudioBuffer(capacity: frames)
    var figures: [Figure] = []
    fflush(nil)
    print("Effects: one minute of stereo noise at 48 kHz in \(slice)-frame slices, one core")
    /// CPU seconds `body` takes over the minute, slice by slice on a fresh copy of the noise.
    func measure(_ body: (StereoSlice) -> Void) -> Double {
        work.left.update(from: noise.left, count: frames)
        work.right.update(from: noise.right, count: frames)
        let before = cpuSeconds()
        for start in stride(from: 0, to: frames, by: slice) { body(work.slice(frames: start + slice).dropFirst(start, count: slice)) }
        return cpuSeconds() - before
    }
    var units: [(String, any EffectUnit, Bool)] = BuiltInEffect.all.map { ($0.name, $0.makeUnit(), false) }
    units.append(("lowpass, cutoff gliding all along", BuiltInEffect.named("lowpass")!.makeUnit(), true))
    for (name, unit, glides) in units {
        unit.prepare(sampleRate: 48_000, maxFrames: slice)
        if glides { unit.setParameter(0, to: 200, rampFrames: frames) }
        let cpu = measure { unit.process($0) }
        print("  " + name.padding(toLength: 34, withPad: " ", startingAt: 0) + String(format: " %7.3f s CPU  %6.0f× real time  %5.1f ns a frame", cpu, 60 / cpu, cpu / Double(frames) * 1e9))
        figures.append(Figure(measure: "effect \(name): speed on one core", value: String(format: "%.0f× real time", 60 / cpu)))
    }
    let reverb = Reverb(sampleRate: 48_000), chorus = Chorus(sampleRate: 48_000)
    let reverbCPU = measure { reverb.process($0.left, addingTo: $0.left, $0.right, frames: $0.frames) }
    let chorusCPU = measure { chorus.process($0.left, addingTo: $0.left, $0.right, frames: $0.frames) }
    for (name, cpu) in [("reverb (the synthesizer's send)", reverbCPU), ("chorus (the synthesizer's send)", chorusCPU)] {
        print("  " + name.padding(toLength: 34, withPad: " ", startingAt: 0) + String(format: " %7.3f s CPU  %6.0f× real time  %5.1f ns a frame", cpu, 60 / cpu, cpu / Double(frames) * 1e9))
        figures.append(Figure(measure: "\(name): speed on one core", value: String(format: "%.0f× real time", 60 / cpu)))
    }

    // What turning each on adds to a song's render, on each synthesizer (median of 3 rounds).
    let sequence = MusicSequence(file: try MIDIFile(contentsOf: song))
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-bench-\(getpid()).wav").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    print("Reverb and chorus in a render: \(song) (\(String(format: "%.1f", sequence.durationSeconds)) s), \(font); CPU added by each")
    for (label, reverbOn, chorusOn) in [("reverb", true, false), ("chorus", false, true)] {
        var ours: [Double] = [], theirs: [Double] = []
        for _ in 1...3 {
            let off = try renderWithPianola(sequence: sequence, font: font, to: path, engine: .pianola, effects: false).0
            let on = try renderWithPianola(sequence: sequence, font: font, to: path, engine: .pianola, reverb: reverbOn, chorus: chorusOn).0
            let fluidOff = try renderWithFluidSynth(song: song, font: font, to: path, effects: false, bufferFrames: 4096).0
            let fluidOn = try renderWithFluidSynth(song: song, font: font, to: path, reverb: reverbOn, chorus: chorusOn, bufferFrames: 4096).0
            ours.append(on - off)
            theirs.append(fluidOn - fluidOff)
        }
        let (a, b) = (ours.sorted()[1], theirs.sorted()[1])
        print(String(format: "  %@: Pianola's %.2f s, libfluidsynth's %.2f s (rounds: Pianola %@; fluidsynth %@)", label, a, b,
                     ours.map { String(format: "%.2f", $0) }.joined(separator: ", "), theirs.map { String(format: "%.2f", $0) }.joined(separator: ", ")))
        figures.append(Figure(measure: "\(label) CPU in a render: Pianola's ÷ libfluidsynth's (median of 3)", value: String(format: "%.2f s ÷ %.2f s", a, b)))
    }
    return figures
}
