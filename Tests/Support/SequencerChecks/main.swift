// sequencer-checks: what the ALSA VM checks (Tests/alsa-vm) measure about MIDI that went
// through the kernel sequencer. Each command prints its figures and exits 1 when a promise
// is broken.
//
//   sequencer-checks round-trip SONG.mid LOG --to SECONDS [--align] [--content-only]
//       a recording (record --log) of SONG played to a port: the same events in the same
//       order, the median error within 1 ms (timing only reported with --content-only;
//       --align for a recorder with a clock of its own)
//   sequencer-checks balanced LOG                           every note-on has its note-off
//   sequencer-checks file-matches-log REC.mid LOG           the file's "Recorded" track holds
//       the log's events at the ticks of their times
//   sequencer-checks aseqdump-matches-log DUMP LOG          aseqdump saw the same events
//   sequencer-checks make-sync-song OUT.mid                 a song for audio-sync: the same
//       notes on channel 1 (for the synth), 2 and 3 (for ports), with tempo changes
//   sequencer-checks make-beat-song OUT.mid                 a note on each of 32 beats (key 30 +
//       beat), 120 bpm then 97 from beat 16: for a follower's bar lines against its leader's
//   sequencer-checks follow LOG                             the leader's clock (its beats, as a
//       receiver counts them) against the follower's note-ons, each within one clock
//   sequencer-checks make-legato-song OUT.mid               ten notes of a second each, back to
//       back: whenever a port goes away for over a second, a note's off is lost with it
//   sequencer-checks raw-balanced RAW                       raw MIDI bytes (running status
//       allowed) leave no note held: each note-on ends in its note-off or an All Notes Off
//       on its channel, which released at least one; and notes were played after it
//   sequencer-checks port-latency LOG MS                    channel 3's note-ons arrived MS
//       before channel 2's (a port's latency made up for)
//   sequencer-checks onsets CAPTURE.raw N                   the capture holds N onsets
//   sequencer-checks audio-sync CAPTURE.raw LOG             onsets in captured audio (float
//       stereo, 48 kHz) against the logged note-ons of channel 2
//   sequencer-checks clock-out SONG.mid LOG                 MIDI clock recorded on the player's
//       own queue: Start, each clock at its exact time from the tempo map, 96 a 4/4 bar,
//       Stop at the end
//   sequencer-checks clock-stream SONG.mid LOG TEMPO% EXPECT  MIDI clock recorded by another
//       process: the transport messages as EXPECT lists them (start,stop,spp=N,continue…;
//       spp alone for any position), every run of clocks timed as the tempo map says
//   sequencer-checks mtc LOG RATE POSITION FULLFRAMES        MIDI timecode: FULLFRAMES full
//       frames, each of the song's POSITION (seconds); each time the quarter frames give
//       within one frame of POSITION plus the time since the last full frame
import Foundation
import MIDI
import Playback
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
    let score = MusicPlayer.Score(MusicSequence(file: file), sampleRate: 48_000)
    var held = Set<Int>()
    var out: [Logged] = []
    for e in score.events {
        let seconds = Double(e.frame.frames) / 48_000
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

func roundTrip(song: String, log: String, to end: Double, align: Bool, timing: Bool) {
    // Events due near the recording's end may be taken back by the stop when delivery runs
    // late: an emulated guest (TCG) has been seen 300 ms late through the VirMIDI bridge, so a
    // check of content alone leaves out the last second.
    let margin = timing ? 0.05 : 1.0
    let expected = expectedEvents(song).filter { $0.seconds < end - margin }
    var recorded = readLog(log)
    if align, let first = recorded.first, let start = expected.first {
        // A recorder in another process has its own clock: line its first event up with the song's.
        recorded = recorded.map { Logged(seconds: $0.seconds - first.seconds + start.seconds, bytes: $0.bytes) }
    }
    guard recorded.count >= expected.count else { die("recorded \(recorded.count) events, expected at least \(expected.count)") }
    var errors: [Double] = []
    var worst: [(error: Double, at: Double, bytes: [UInt8], together: Int)] = []
    var firstErrors: [Double] = []   // per instant: the first event to arrive
    var sysexCount = 0, controllerCount = 0, noteCount = 0
    var i = 0
    while i < expected.count {
        // Events at one instant may arrive in any order among themselves; instants keep theirs.
        var j = i
        while j < expected.count && expected[j].seconds == expected[i].seconds { j += 1 }
        var pool = Array(recorded[i..<j])
        let firstArrival = pool.map(\.seconds).min()!
        if expected[i].bytes.count < 128 { firstErrors.append(abs(firstArrival - expected[i].seconds) * 1000) }
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
            if e.bytes.count < 128 {
                errors.append((got.seconds - e.seconds) * 1000)
                worst.append((errors.last!, e.seconds, e.bytes, j - i))
            }
        }
        i = j
    }
    let sorted = errors.map(abs).sorted()
    if !sorted.isEmpty {
        print(String(format: "  |error| percentiles: 50%% %.3f ms, 90%% %.3f ms, 99%% %.3f ms", sorted[sorted.count / 2], sorted[sorted.count * 9 / 10], sorted[sorted.count * 99 / 100]))
    }
    for w in worst.sorted(by: { abs($0.error) > abs($1.error) }).prefix(3) where abs(w.error) > 1 {
        print(String(format: "  %+.3f ms: %@ due at %.4f s with %d events at that instant", w.error, hex(w.bytes), w.at, w.together))
    }
    let maxError = errors.map(abs).max() ?? 0
    let mean = errors.reduce(0, +) / Double(max(1, errors.count))
    let meanAbs = errors.map(abs).reduce(0, +) / Double(max(1, errors.count))
    let firstMax = firstErrors.max() ?? 0
    print(String(format: "round trip: %d events equal in order and content (%d note on/off, %d controllers, %d sysex); timing error max %.3f ms, mean %+.3f ms, mean |error| %.3f ms; first event of each of the %d instants: max %.3f ms",
                 expected.count, noteCount, controllerCount, sysexCount, maxError, mean, meanAbs, firstErrors.count, firstMax))
    guard timing else { return }
    // The kernel's timing. Measured in an emulated guest on a shared machine, whose whole VM
    // stalls now and then for milliseconds (the sender reports when that made it late), so
    // the promise is checked on the median: half the events within 1 ms of their time.
    let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    print(String(format: "  median |error| %.3f ms (limit 1 ms)", median))
    if median > 1 { die(String(format: "median error %.3f ms (limit 1 ms)", median)) }
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
    let sequence = MusicSequence(file: file)
    guard let track = sequence.tracks.last, track.name == "Recorded" else { die("\(path): no track named Recorded at the end") }
    let events = track.events.filter { !$0.message.wireBytes.isEmpty }
    let logged = readLog(log)
    guard events.count == logged.count else { die("\(path): \(events.count) events, the log has \(logged.count)") }
    // The file holds each tick's events in its own order: compare tick by tick.
    var worst = 0
    var byTick: [Int: [[UInt8]]] = [:]
    for event in events { byTick[event.tick, default: []].append(event.message.wireBytes) }
    for entry in logged {
        let tick = sequence.tempoMap.tick(atSeconds: entry.seconds)
        // Its own tick, or one either side (the log keeps microseconds only).
        guard let at = [tick, tick - 1, tick + 1].first(where: { byTick[$0]?.contains(entry.bytes) == true }) else {
            die("\(path): \(hex(entry.bytes)) at \(String(format: "%.6f", entry.seconds)) s is not at tick \(tick)")
        }
        byTick[at]!.remove(at: byTick[at]!.firstIndex(of: entry.bytes)!)
        worst = max(worst, abs(at - tick))
    }
    print("file matches log: \(events.count) events, ticks within \(worst) of their logged times")
    if worst > 1 { die("a tick is \(worst) away from its logged time") }
}

/// The messages aseqdump printed, as cable bytes.
func readAseqdump(_ path: String) -> [[UInt8]] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { die("\(path): cannot read") }
    var out: [[UInt8]] = []
    for line in text.split(separator: "\n") {
        // " 14:0   Note on                 0, note 60, velocity 100"
        if line.contains("System exclusive") {
            out.append(line.split(separator: " ").compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil })
            continue
        }
        let numbers = line.split(whereSeparator: { !$0.isNumber && $0 != "-" }).compactMap { Int($0) }
        guard numbers.count >= 3 else { continue }
        let c = UInt8(numbers[2] & 0x0F)
        let v = numbers.dropFirst(3).map { UInt8(truncatingIfNeeded: $0) }
        func at(_ i: Int) -> UInt8 { i < v.count ? v[i] & 0x7F : 0 }
        if line.contains("Note on") { out.append([0x90 | c, at(0), at(1)]) }
        else if line.contains("Note off") { out.append([0x80 | c, at(0), at(1)]) }
        else if line.contains("Polyphonic aftertouch") { out.append([0xA0 | c, at(0), at(1)]) }
        else if line.contains("Control change") { out.append([0xB0 | c, at(0), at(1)]) }
        else if line.contains("Program change") { out.append([0xC0 | c, at(0)]) }
        else if line.contains("Channel aftertouch") { out.append([0xD0 | c, at(0)]) }
        else if line.contains("Pitch bend"), let value = numbers.dropFirst(3).first {
            let raw = value + 8192
            out.append([0xE0 | c, UInt8(raw & 0x7F), UInt8((raw >> 7) & 0x7F)])
        }
    }
    return out
}

func aseqdumpMatchesLog(dump: String, log: String) {
    let seen = readAseqdump(dump)
    let logged = readLog(log).map(\.bytes)
    guard seen == logged else {
        let first = Array(zip(seen, logged)).firstIndex { $0.0 != $0.1 } ?? min(seen.count, logged.count)
        die("aseqdump saw \(seen.count) events, the recording \(logged.count); first difference at event \(first)")
    }
    print("aseqdump matches the recording: \(seen.count) events in the same order")
}

/// What aseqdump saw is the song before `end` seconds as the player sends it, in order:
/// events at one instant in any order among themselves, instants in theirs (more after are
/// allowed: the releases where the song was cut).
func aseqdumpMatchesSong(dump: String, song: String, before end: Double) {
    let seen = readAseqdump(dump)
    let expected = expectedEvents(song).filter { $0.seconds < end }
    guard seen.count >= expected.count else { die("aseqdump saw \(seen.count) events, the song has \(expected.count)") }
    var i = 0
    while i < expected.count {
        var j = i
        while j < expected.count && expected[j].seconds == expected[i].seconds { j += 1 }
        var pool = Array(seen[i..<j])
        for e in expected[i..<j] {
            guard let k = pool.firstIndex(of: e.bytes) else {
                die(String(format: "event %d at %.4f s: expected %@, aseqdump saw %@", i, e.seconds, hex(e.bytes), pool.map(hex).joined(separator: " | ")))
            }
            pool.remove(at: k)
        }
        i = j
    }
    print("aseqdump saw the song's \(expected.count) events in order")
}

/// Writes `sequence` as a Standard MIDI File at `path`.
func write(_ sequence: MusicSequence, to path: String) {
    guard FileManager.default.createFile(atPath: path, contents: Data(sequence.midiFile().serialized())) else { die("\(path): cannot write") }
}

func makeLegatoSong(_ path: String) {
    var sequence = MusicSequence(division: .ticksPerQuarter(480))
    var track = MusicTrack(name: "legato")
    for i in 0..<10 {
        track.insert(MIDIEvent(tick: i * 960, .noteOn(channel: 0, note: UInt8(60 + i), velocity: 100)))
        track.insert(MIDIEvent(tick: i * 960 + 960, .noteOff(channel: 0, note: UInt8(60 + i), velocity: 0)))
    }
    sequence.addTrack(track)
    write(sequence, to: path)
}

func rawBalanced(_ path: String) {
    guard let data = FileManager.default.contents(atPath: path) else { die("\(path): cannot read") }
    var held = [Set<UInt8>](repeating: [], count: 16)
    var status: UInt8 = 0
    var data1: UInt8?
    var notes = 0, allNotesOff = 0, notesAfterReset = 0, hanging = 0, released = 0
    for byte in data {
        if byte >= 0xF8 { continue }
        if byte >= 0x80 { status = byte < 0xF0 ? byte : 0; data1 = nil; continue }
        guard status != 0 else { continue }
        let length = MIDIMessage.channelDataLength(status)
        if length == 2 && data1 == nil { data1 = byte; continue }
        let (first, second) = length == 2 ? (data1!, byte) : (byte, UInt8(0))
        data1 = nil
        let channel = Int(status & 0x0F)
        switch status & 0xF0 {
        case 0x90 where second > 0:
            held[channel].insert(first)
            notes += 1
            notesAfterReset += 1
        case 0x80, 0x90: held[channel].remove(first)
        case 0xB0 where first == 123:
            // All Notes Off on a channel at a reset: what was held there is released.
            released += held[channel].count
            held[channel] = []
            if channel == 0 { allNotesOff += 1; notesAfterReset = 0 }
        default: break
        }
    }
    hanging = held.map(\.count).reduce(0, +)
    print("raw: \(data.count) bytes, \(notes) note-ons, All Notes Off on channel 1 \(allNotesOff) times releasing \(released) held notes, \(notesAfterReset) note-ons after the last, \(hanging) notes left held")
    if hanging > 0 { die("\(hanging) notes left hanging") }
    if allNotesOff == 0 || released == 0 || notesAfterReset == 0 { die("no All Notes Off, none released by it, or nothing played after it") }
}

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "round-trip" where arguments.count >= 6 && arguments[4] == "--to":
    let flags = Set(arguments.dropFirst(6))
    roundTrip(song: arguments[2], log: arguments[3], to: Double(arguments[5]) ?? 0, align: flags.contains("--align"), timing: !flags.contains("--content-only"))
case "aseqdump-matches-song" where arguments.count == 5:
    aseqdumpMatchesSong(dump: arguments[2], song: arguments[3], before: Double(arguments[4]) ?? 0)
case "aseqdump-matches-log" where arguments.count == 4:
    aseqdumpMatchesLog(dump: arguments[2], log: arguments[3])
case "onsets" where arguments.count == 4:
    let found = onsets(arguments[2]).count
    print("onsets: \(found) in \(arguments[2]), expected \(arguments[3])")
    if found != Int(arguments[3]) { die("\(found) onsets, expected \(arguments[3])") }
case "make-sync-song" where arguments.count == 3:
    makeSyncSong(arguments[2])
case "audio-sync" where arguments.count == 4:
    audioSync(capture: arguments[2], log: arguments[3])
case "balanced" where arguments.count == 3:
    balanced(log: arguments[2])
case "file-matches-log" where arguments.count == 4:
    fileMatchesLog(file: arguments[2], log: arguments[3])
case "clock-out" where arguments.count == 4:
    clockOut(song: arguments[2], log: arguments[3])
case "make-beat-song" where arguments.count == 3:
    makeBeatSong(arguments[2])
case "follow" where arguments.count == 3:
    follow(log: arguments[2])
case "make-legato-song" where arguments.count == 3:
    makeLegatoSong(arguments[2])
case "raw-balanced" where arguments.count == 3:
    rawBalanced(arguments[2])
case "port-latency" where arguments.count == 4:
    portLatency(log: arguments[2], milliseconds: Double(arguments[3]) ?? 0)
case "mtc" where arguments.count == 6:
    timecode(log: arguments[2], rateName: arguments[3], position: Double(arguments[4]) ?? 0, fullFrames: Int(arguments[5]) ?? 0)
case "clock-stream" where arguments.count == 6:
    clockStream(song: arguments[2], log: arguments[3], tempo: Double(arguments[4]) ?? 100, expect: arguments[5].split(separator: ",").map(String.init))
default:
    print("usage: sequencer-checks round-trip SONG LOG --to SECONDS [--align] [--content-only] | balanced LOG | file-matches-log FILE LOG | aseqdump-matches-log DUMP LOG | make-sync-song OUT | onsets CAPTURE N | audio-sync CAPTURE LOG | clock-out SONG LOG | clock-stream SONG LOG TEMPO EXPECT | mtc LOG RATE POSITION FULLFRAMES | port-latency LOG MS | make-beat-song OUT | follow LOG | make-legato-song OUT | raw-balanced RAW")
    exit(2)
}
