// Benchmarks that print figures (never pass/fail): `swift run -c release pianola-bench [CORPUS_DIR]`.
// SMF read throughput over the shared corpus, per mode, on one core; and the slowest single file.
import Foundation
import MIDI

let directory = CommandLine.arguments.dropFirst().first ?? "../shared/corpus/midi"
guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory).sorted(), !names.isEmpty else {
    FileHandle.standardError.write(Data("pianola-bench: no MIDI files in \(directory)\n".utf8))
    exit(1)
}
let files = names.compactMap { name -> (String, [UInt8])? in
    guard let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(name)) else { return nil }
    return (name, Array(data))
}
let totalBytes = files.reduce(0) { $0 + $1.1.count }
let clock = ContinuousClock()

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }

print("SMF read: \(files.count) files, \(String(format: "%.2f", Double(totalBytes) / 1e6)) MB, \(directory)")
for mode in [MIDIFile.ReadMode.lenient, .strict] {
    var passes = 0, events = 0
    let start = clock.now
    repeat {
        for (_, bytes) in files {
            if let file = try? MIDIFile(bytes: bytes, mode: mode) { events &+= file.tracks.count }
        }
        passes += 1
    } while clock.now - start < .seconds(3)
    let elapsed = seconds(clock.now - start)
    let rate = Double(totalBytes * passes) / elapsed / 1e6
    print("  \(mode == .lenient ? "lenient" : "strict ") \(String(format: "%7.1f", rate)) MB/s  (\(passes) passes in \(String(format: "%.2f", elapsed)) s)")
    precondition(events != 0)
}

var slowest = ("", 0.0)
for (name, bytes) in files {
    let start = clock.now
    _ = try? MIDIFile(bytes: bytes)
    let t = seconds(clock.now - start)
    if t > slowest.1 { slowest = (name, t) }
}
print("  slowest file: \(slowest.0) \(String(format: "%.2f", slowest.1 * 1000)) ms")
