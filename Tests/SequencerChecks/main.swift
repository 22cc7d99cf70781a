// sequencer-checks: what the ALSA VM checks (Tests/alsa-vm) measure about MIDI that went
// through the kernel sequencer. Each command prints its figures and exits 1 when a promise
// is broken.
//
//   sequencer-checks round-trip SONG.mid LOG --to SECONDS   a recording (record --log) of
//       SONG played to a port: the same events in the same order, each within 2 ms
//   sequencer-checks balanced LOG                           every note-on has its note-off
//   sequencer-checks file-matches-log REC.mid LOG           the file's "Recorded" track holds
//       the log's events at the ticks of their times
import Foundation
import MIDI
import Sequencing

/// One event of a `record --log` file: seconds from the song's start and the cable bytes.
struct Logged {
    var seconds: Double
    var bytes: [UInt8]
}

func readLog(_ path: String) -> [Logged] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { die("\(path): cannot read") }
    return text.split(separator: "\n").map { line in
        let fields = line.split(separator: " ")
        guard let seconds = Double(fields.first ?? ""), fields.count > 1 else { die("\(path): bad line '\(line)'") }
        return Logged(seconds: seconds, bytes: fields.dropFirst().map { UInt8($0, radix: 16) ?? 0 })
    }
}

func die(_ message: String) -> Never {
    print("FAIL: \(message)")
    exit(1)
}

/// What the player sends for `song`, as the player decides it: note-on velocity 0 becomes a
/// note-off, note-offs of keys not held are dropped, and sysex goes out framed.
func expectedEvents(_ song: String) -> [Logged] {
    guard let file = try? MIDIFile(contentsOf: song) else { die("\(song): cannot read") }
    let score = Score(Sequence(file: file), sampleRate: 48_000)
    var held = Set<Int>()
    var out: [Logged] = []
    for e in score.events {
        let seconds = Double(e.frame) / 48_000
        var message = e.message
        if case .noteOn(let c, let n, 0) = message { message = .noteOff(channel: c, note: n, velocity: 0) }
        switch message {
        case .noteOn(let c, let n, _): held.insert(Int(c) * 128 + Int(n))
        case .noteOff(let c, let n, _): guard held.remove(Int(c) * 128 + Int(n)) != nil else { continue }
        case .polyPressure(let c, let n, _): guard held.contains(Int(c) * 128 + Int(n)) else { continue }
        case .sysex, .controlChange, .programChange, .channelPressure, .pitchBend: break
        default: continue
        }
        out.append(Logged(seconds: seconds, bytes: message.wireBytes))
    }
    return out
}

func hex(_ bytes: [UInt8]) -> String { bytes.prefix(12).map { String(format: "%02X", $0) }.joined(separator: " ") + (bytes.count > 12 ? " …" : "") }

func roundTrip(song: String, log: String, to end: Double) {
    let expected = expectedEvents(song).filter { $0.seconds < end - 0.05 }
    let recorded = readLog(log)
    guard recorded.count >= expected.count else { die("recorded \(recorded.count) events, expected at least \(expected.count)") }
    var errors: [Double] = []
    var sysexCount = 0, controllerCount = 0, noteCount = 0
    var i = 0
    while i < expected.count {
        // Events at one instant may arrive in any order among themselves; instants keep theirs.
        var j = i
        while j < expected.count && expected[j].seconds == expected[i].seconds { j += 1 }
        var pool = Array(recorded[i..<j])
        for e in expected[i..<j] {
            guard let k = pool.firstIndex(where: { $0.bytes == e.bytes }) else {
                die(String(format: "event %d at %.4f s: expected %@, got %@", i, e.seconds, hex(e.bytes), pool.map { hex($0.bytes) }.joined(separator: " | ")))
            }
            let got = pool.remove(at: k)
            switch e.bytes[0] & 0xF0 {
            case 0xF0: sysexCount += 1
            case 0xB0: controllerCount += 1
            case 0x80, 0x90: noteCount += 1
            default: break
            }
            // A dump of 128 bytes or more is spaced at MIDI line rate on purpose.
            if e.bytes.count < 128 { errors.append((got.seconds - e.seconds) * 1000) }
        }
        i = j
    }
    let sorted = errors.map(abs).sorted()
    if !sorted.isEmpty {
        print(String(format: "  |error| percentiles: 50%% %.3f ms, 90%% %.3f ms, 99%% %.3f ms", sorted[sorted.count / 2], sorted[sorted.count * 9 / 10], sorted[sorted.count * 99 / 100]))
    }
    let maxError = errors.map(abs).max() ?? 0
    let mean = errors.reduce(0, +) / Double(max(1, errors.count))
    let meanAbs = errors.map(abs).reduce(0, +) / Double(max(1, errors.count))
    print(String(format: "round trip: %d events equal in order and content (%d note on/off, %d controllers, %d sysex); timing error max %.3f ms, mean %+.3f ms, mean |error| %.3f ms",
                 expected.count, noteCount, controllerCount, sysexCount, maxError, mean, meanAbs))
    if maxError > 2 { die(String(format: "an event came %.3f ms from its time (limit 2 ms)", maxError)) }
}

func balanced(log: String) {
    var on = [Int: Int]()
    var notes = 0
    for e in readLog(log) where e.bytes.count == 3 {
        let key = Int(e.bytes[0] & 0x0F) * 128 + Int(e.bytes[1])
        switch e.bytes[0] & 0xF0 {
        case 0x90 where e.bytes[2] > 0:
            on[key, default: 0] += 1
            notes += 1
        case 0x80, 0x90: if let n = on[key], n > 0 { on[key] = n - 1 }
        default: break
        }
    }
    let hanging = on.filter { $0.value > 0 }
    print("balanced: \(notes) note-ons, \(hanging.count) keys left sounding")
    if !hanging.isEmpty {
        die("no note-off for " + hanging.keys.sorted().map { "channel \($0 / 128 + 1) key \($0 % 128)" }.joined(separator: ", "))
    }
}

func fileMatchesLog(file path: String, log: String) {
    guard let file = try? MIDIFile(contentsOf: path, mode: .strict) else { die("\(path): not a valid MIDI file") }
    let sequence = Sequence(file: file)
    guard let track = sequence.tracks.last, track.name == "Recorded" else { die("\(path): no track named Recorded at the end") }
    let events = track.events.filter { !$0.message.wireBytes.isEmpty }
    let logged = readLog(log)
    guard events.count == logged.count else { die("\(path): \(events.count) events, the log has \(logged.count)") }
    var worst = 0
    for (event, entry) in zip(events, logged) {
        guard event.message.wireBytes == entry.bytes else { die("\(path): \(hex(event.message.wireBytes)) where the log has \(hex(entry.bytes))") }
        worst = max(worst, abs(event.tick - sequence.tempoMap.tick(atSeconds: entry.seconds)))
    }
    print("file matches log: \(events.count) events in order, ticks within \(worst) of their logged times")
    if worst > 1 { die("a tick is \(worst) away from its logged time") }
}

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "round-trip" where arguments.count == 6 && arguments[4] == "--to":
    roundTrip(song: arguments[2], log: arguments[3], to: Double(arguments[5]) ?? 0)
case "balanced" where arguments.count == 3:
    balanced(log: arguments[2])
case "file-matches-log" where arguments.count == 4:
    fileMatchesLog(file: arguments[2], log: arguments[3])
default:
    print("usage: sequencer-checks round-trip SONG LOG --to SECONDS | balanced LOG | file-matches-log FILE LOG")
    exit(2)
}
