import Foundation
import AudioFile
import MIDI
import Pianola
import SongBook

// The benchmarks that run for minutes: a long file streamed, a looped song soaked.

/// Sleeps the calling thread.
func sleepFor(_ duration: Duration) {
    var request = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
    nanosleep(&request, nil)
}

/// Writes a `minutes`-long 48 kHz stereo FLAC (a slow sweep with a little noise, so it does
/// not compress to nothing), then streams it through the file player into a 44.1 kHz graph
/// (so libsoxr converts every frame) in 512-frame cycles, faster than real time, printing the
/// resident memory every 5 minutes of audio: a streamed file's memory is its ring, not its length.
func streamBenchmark(minutes: Int) throws {
    let path = NSTemporaryDirectory() + "pianola-bench-stream-\(getpid()).flac"
    defer { unlink(path) }
    let rate = 48_000, block = 48_000
    let writeStart = clock.now
    let writer = try AudioFileWriter(path: path, container: .flac, encoding: .int16, sampleRate: rate)
    var left = [Float](repeating: 0, count: block), right = left
    var phase = 0.0, noise: UInt32 = 1
    for second in 0..<(minutes * 60) {
        let frequency = 200 + Double(second % 600) * 3
        for i in 0..<block {
            phase += 2 * Double.pi * frequency / Double(rate)
            noise = noise &* 1_664_525 &+ 1_013_904_223
            left[i] = Float(0.4 * sin(phase)) + Float(Int32(bitPattern: noise)) / 2e12
            right[i] = left[i]
        }
        try writer.write(left: left, right: right, frames: block)
    }
    try writer.close()
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    print("stream: wrote \(minutes) min of 48 kHz stereo FLAC (\(size / 1_048_576) MB) in \(String(format: "%.1f", seconds(clock.now - writeStart))) s")

    let graphRate = 44_100, cycle = 512
    let mixer = MixerNode()
    let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: graphRate), maxFrames: cycle)
    let node = try FilePlayerNode(path: path, sampleRate: graphRate)
    mixer.connect(node)
    let buffer = AudioBuffer(capacity: cycle)
    let perMinute = 60 * Int64(graphRate)
    let total = Int64(minutes) * perMinute
    var rendered: Int64 = 0, waits = 0
    let playStart = clock.now
    print("  audio   RSS")
    while !node.isFinished {
        // Offline, faster than the reader: let it refill (a device would not wait). At the
        // file's end fewer than a cycle's frames remain, and no more come.
        var tries = 0
        while node.bufferedFrames < cycle && !node.isFinished && tries < 200 {
            waits += 1
            tries += 1
            usleep(500)
        }
        graph.render(into: buffer.slice(frames: cycle))
        rendered += Int64(cycle)
        // The cycle that crosses a minute mark reports minute 1 (after warm-up) and every fifth.
        let minute = rendered / perMinute
        if rendered % perMinute < Int64(cycle) && (minute == 1 || minute % 5 == 0) {
            print(String(format: "  %2d min  %6.1f MB", Int(minute), residentMB()))
            fflush(nil)   // each figure as it is measured, also into a pipe
        }
    }
    let took = seconds(clock.now - playStart)
    print(String(format: "  streamed %.1f min (%.0f%% of the file's frames) in %.1f s (%.0f× real time); %d waits for the reader, %d underruns%@",
                 Double(rendered) / Double(graphRate) / 60, 100 * Double(rendered) / Double(total), took,
                 Double(rendered) / Double(graphRate) / took, waits, node.underruns, node.failure.map { "; failed: \($0)" } ?? ""))
}

/// "Ode to Joy" with a tempo change on every bar to awkward tempos (frames per tick never
/// whole), looped from bar 2 to bar 10 for `minutes` of audio, rendered offline through the
/// graph of `pianola render`. Checks every loop wrap against the tempo map, exactly: wrap k
/// must fall on frame k × (frame(bar 10) − frame(bar 2)). Prints the resident memory and the
/// voices sounding at each wrap, by the minute of audio.
func soakBenchmark(minutes: Int, font: String) throws {
    let song = "ode-to-joy.mid with a tempo change on every bar"
    let sequence = MusicSequence(file: SongBook.odeToJoyWithTempoChanges())
    let meter = sequence.meterMap!   // 4/4, metrical
    let from = meter.tick(at: BarBeatTick(bar: 2, beat: 1)), to = meter.tick(at: BarBeatTick(bar: 10, beat: 1))
    var settings = SongGraph.Settings()
    settings.fromTick = from
    settings.toTick = to
    settings.plays = 1000
    let map = sequence.tempoMap
    let loopFrames = map.sampleFrame(atTick: to, sampleRate: settings.sampleRate) - map.sampleFrame(atTick: from, sampleRate: settings.sampleRate)
    let total = Int64(minutes) * 60 * Int64(settings.sampleRate)
    print("Soak: \(song), looped from bar 2 to bar 10 (\(loopFrames) frames, \(String(format: "%.3f", Double(loopFrames) / 48_000)) s), \(font), \(minutes) min of audio offline")
    fflush(nil)
    let renderer = try SongRenderer(sequence: sequence, soundFontPath: font, settings: settings)
    var rendered: Int64 = 0, wraps = 0, misses = 0, nextMinute: Int64 = 0
    var voicesThisMinute: [Int] = []
    var residentByMinute: [Double] = []
    let start = clock.now
    renderer.render(frames: total) { slice, _ in
        rendered += Int64(slice.frames)
        for event in renderer.songGraph.player.pollEvents() {
            guard case .loopWrapped(let time) = event else { continue }
            wraps += 1
            if time != Int64(wraps) * loopFrames {
                misses += 1
                if misses <= 5 { print("  wrap \(wraps) at frame \(time), the tempo map says \(Int64(wraps) * loopFrames)") }
            }
            voicesThisMinute.append(renderer.songGraph.activeVoiceCount)
        }
        if rendered >= nextMinute {
            let minute = Int(nextMinute / (60 * 48_000))
            residentByMinute.append(residentMB())
            if minute == 1 || minute % 10 == 0 {
                print(String(format: "  minute %2d: RSS %6.1f MB, voices at this minute's wraps %@", minute, residentByMinute.last!,
                             voicesThisMinute.isEmpty ? "-" : "\(voicesThisMinute.min()!)…\(voicesThisMinute.max()!)"))
            }
            voicesThisMinute = []
            nextMinute += 60 * 48_000
        }
    }
    let took = seconds(clock.now - start)
    let warm = residentByMinute.dropFirst(2)
    print(String(format: "  %d wraps, %d off the tempo map's frame; RSS after warm-up (minute 2 on) %.1f…%.1f MB; %.0f× real time",
                 wraps, misses, warm.min() ?? 0, warm.max() ?? 0, Double(rendered) / 48_000 / took))
}
