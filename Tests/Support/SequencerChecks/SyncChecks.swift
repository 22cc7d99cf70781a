// The checks of what keeps other devices in step: audio against ports, MIDI clock sent and
// followed, a port's latency made up for, MIDI timecode.
import Foundation
import MIDI
import Playback
import Sequencing

func makeSyncSong(_ path: String) {
    var sequence = MusicSequence(division: .ticksPerQuarter(480))
    // 120 bpm, then 97 bpm after 8 beats: onsets fall at every phase of libfluidsynth's 64-frame blocks.
    sequence.tempoTrack.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))))
    sequence.tempoTrack.insert(MIDIEvent(tick: 8 * 480, .meta(.tempo(microsecondsPerQuarter: 618_557))))
    var track = MusicTrack(name: "sync")
    for channel: UInt8 in [0, 1, 2] { track.insert(MIDIEvent(tick: 0, .programChange(channel: channel, program: 0))) }
    for i in 0..<24 {
        let tick = 240 + i * 317
        for channel: UInt8 in [0, 1, 2] {
            track.insert(MIDIEvent(tick: tick, .noteOn(channel: channel, note: 69, velocity: 100)))
            track.insert(MIDIEvent(tick: tick + 120, .noteOff(channel: channel, note: 69, velocity: 0)))
        }
    }
    sequence.addTrack(track)
    write(sequence, to: path)
}

/// Onsets in captured audio (float stereo, 48 kHz), in seconds: the first frame above −40 dBFS
/// after at least 50 ms below it.
func onsets(_ capture: String) -> [Double] {
    guard let data = FileManager.default.contents(atPath: capture) else { die("\(capture): cannot read") }
    let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    var onsets: [Double] = []
    var quiet = 48_000
    for frame in 0..<samples.count / 2 {
        let level = max(abs(samples[2 * frame]), abs(samples[2 * frame + 1]))
        if level > 0.01 {
            if quiet >= 2_400 { onsets.append(Double(frame) / 48_000) }
            quiet = 0
        } else {
            quiet += 1
        }
    }
    return onsets
}

func audioSync(capture: String, log: String) {
    let onsets = onsets(capture)
    let notes = readLog(log).filter { $0.bytes.count == 3 && $0.bytes[0] == 0x91 && $0.bytes[2] > 0 }.map(\.seconds)
    guard notes.count >= 10, let firstOnset = onsets.first else { die("\(onsets.count) onsets in the audio, \(notes.count) MIDI note-ons") }
    // The capture started at some unknown moment: one constant offset, from the first note;
    // each note is paired with the onset nearest its time. An underrun in the emulated guest
    // can split a note in two: extra onsets are counted, not paired.
    let start = firstOnset - notes[0]
    let nearest = notes.map { note in onsets.min { abs($0 - note - start) < abs($1 - note - start) }! - note }
    let offset = nearest.sorted()[nearest.count / 2]
    let residuals = nearest.map { ($0 - offset) * 1000 }
    let worst = residuals.map(abs).max() ?? 0
    let mean = residuals.map(abs).reduce(0, +) / Double(residuals.count)
    let within = residuals.filter { abs($0) <= 2 }.count
    print(String(format: "audio sync: %d notes, %d onsets; MIDI against audio onset after one constant offset: max %.3f ms, mean |error| %.3f ms; %d within 2 ms", notes.count, onsets.count, worst, mean, within))
    // The emulated guest stalls now and then (see round-trip): 90 % of the notes within 2 ms.
    if within * 10 < residuals.count * 9 { die("only \(within) of \(residuals.count) MIDI notes within 2 ms of their audio onsets") }
}

/// The clock and transport messages of a log, as a receiving device reads them (the MIDI
/// spec: Start sets the position to 0, Song Position Pointer to its 16th, each clock while
/// running plays the position it stands at and moves it on): each clock with its position
/// in 24ths of a quarter note and its run (the clocks since the last Start or Continue), and
/// the transport messages in order.
func clockStream(_ log: String) -> (clocks: [(seconds: Double, pulse: Int, run: Int)], transport: [(seconds: Double, name: String)]) {
    var running = false, position = 0, run = -1
    var clocks: [(Double, Int, Int)] = []
    var transport: [(Double, String)] = []
    for e in readLog(log) {
        switch e.bytes.first {
        case 0xF8: if running { clocks.append((e.seconds, position, run)); position += 1 }
        case 0xFA: running = true; position = 0; run += 1; transport.append((e.seconds, "start"))
        case 0xFB: running = true; run += 1; transport.append((e.seconds, "continue"))
        case 0xFC: running = false; transport.append((e.seconds, "stop"))
        case 0xF2 where e.bytes.count == 3:
            position = (Int(e.bytes[1]) | Int(e.bytes[2]) << 7) * 6
            transport.append((e.seconds, "spp=\(position / 6)"))
        default: break
        }
    }
    return (clocks, transport)
}

/// Seconds from the song's start to MIDI clock pulse `pulse` (24 a quarter) at the written tempo.
func pulseSeconds(_ pulse: Int, _ map: TempoMap) -> Double {
    let tpq = map.ticksPerQuarter!
    precondition(tpq % 24 == 0, "a song whose clocks fall on ticks")
    return map.seconds(atTick: pulse * tpq / 24)
}

/// Prints the percentiles of `errors` (ms) and fails unless the median is within 1 ms and 95 %
/// are: the emulated guest stalls now and then (see round-trip).
func judgeTiming(_ errors: [Double], what: String) {
    let sorted = errors.map(abs).sorted()
    guard !sorted.isEmpty else { die("no \(what)") }
    let within = sorted.filter { $0 <= 1 }.count
    print(String(format: "  %@: %d; |error| 50%% %.3f ms, 90%% %.3f ms, max %.3f ms; %d within 1 ms (%.1f %%)", what, sorted.count,
                 sorted[sorted.count / 2], sorted[sorted.count * 9 / 10], sorted.last!, within, 100 * Double(within) / Double(sorted.count)))
    if sorted[sorted.count / 2] > 1 || within * 100 < sorted.count * 95 { die("\(what): fewer than 95 % within 1 ms of their exact times") }
}

func clockOut(song: String, log: String) {
    guard let file = try? MIDIFile(contentsOf: song) else { die("\(song): cannot read") }
    let sequence = MusicSequence(file: file)
    let map = sequence.tempoMap
    let (clocks, transport) = clockStream(log)
    let end = map.seconds(atTick: MusicPlayer.Score(sequence, sampleRate: 48_000).endTick)
    let pulses = Int((Double(MusicPlayer.Score(sequence, sampleRate: 48_000).endTick) * 24 / Double(map.ticksPerQuarter!)).rounded(.up))
    print(String(format: "clock out: %d clocks, transport %@", clocks.count, transport.map { String(format: "%@ %.4f s", $0.name, $0.seconds) }.joined(separator: ", ")))
    guard transport.map(\.name) == ["start", "stop"] else { die("transport \(transport.map(\.name)), expected start, stop") }
    guard clocks.map(\.pulse) == Array(0..<pulses) else { die("clocks \(clocks.count) with positions not 0..<\(pulses)") }
    print(String(format: "  Start %+.3f ms from the song's start, Stop %+.3f ms from its end", transport[0].seconds * 1000, (transport[1].seconds - end) * 1000))
    judgeTiming([transport[0].seconds * 1000, (transport[1].seconds - end) * 1000] + clocks.map { ($0.seconds - pulseSeconds($0.pulse, map)) * 1000 },
                what: "Start, Stop and clocks against their exact times")
    // Per tempo: the mean interval against 60 / (bpm × 24), and the clocks per 4/4 bar. The
    // interval is taken between the first and last clocks of the tempo that came on time: a
    // player following audio hands its first events over only once the device has started,
    // which an emulated guest does late.
    let onTime = clocks.map { abs($0.seconds - pulseSeconds($0.pulse, map)) <= 0.001 }
    for (i, segment) in map.segments.enumerated() {
        let start = segment.tick * 24 / map.ticksPerQuarter!
        let stop = min(pulses - 1, i + 1 < map.segments.count ? map.segments[i + 1].tick * 24 / map.ticksPerQuarter! : pulses - 1)
        guard let first = (start...stop).first(where: { onTime[$0] }), let last = (start...stop).last(where: { onTime[$0] }), last - first >= 24 else { continue }
        let mean = (clocks[last].seconds - clocks[first].seconds) / Double(last - first)
        let exact = 60 / (segment.beatsPerMinute * 24)
        let off = (mean / exact - 1) * 100
        print(String(format: "  at %.2f bpm: mean interval %.4f ms against %.4f ms (%+.4f %%)", segment.beatsPerMinute, mean * 1000, exact * 1000, off))
        if abs(off) > 0.1 { die("mean clock interval off by more than 0.1 %") }
    }
    for bar in 0..<pulses / 96 {
        let count = clocks.filter { $0.seconds >= clocks[bar * 96].seconds && $0.seconds < pulseSeconds((bar + 1) * 96, map) - 0.0005 }.count
        if count != 96 { die("bar \(bar + 1): \(count) clocks") }
    }
    print("  96 clocks in each of the \(pulses / 96) whole bars")
}

func clockStream(song: String, log: String, tempo: Double, expect: [String]) {
    guard let file = try? MIDIFile(contentsOf: song) else { die("\(song): cannot read") }
    let map = MusicSequence(file: file).tempoMap
    let (clocks, transport) = clockStream(log)
    print(String(format: "clock stream: %d clocks in %d runs, transport %@", clocks.count, (clocks.last?.run ?? -1) + 1,
                 transport.map { String(format: "%@ %.3f s", $0.name, $0.seconds) }.joined(separator: ", ")))
    let names = transport.map(\.name)
    guard names.count == expect.count, zip(names, expect).allSatisfy({ $0 == $1 || ($1 == "spp" && $0.hasPrefix("spp=")) }) else {
        die("transport \(names), expected \(expect)")
    }
    // Within a run, the clocks keep the tempo map's time: each one's time less its exact time
    // (at the tempo played) is the same, the run's median, within the error.
    var errors: [Double] = []
    for run in Set(clocks.map(\.run)) {
        let offsets = clocks.filter { $0.run == run }.map { $0.seconds - pulseSeconds($0.pulse, map) * 100 / tempo }
        let median = offsets.sorted()[offsets.count / 2]
        errors += offsets.map { ($0 - median) * 1000 }
    }
    judgeTiming(errors, what: "clocks in step with the tempo map within their runs")
}

func makeBeatSong(_ path: String) {
    var sequence = MusicSequence(division: .ticksPerQuarter(480))
    sequence.tempoTrack.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))))
    sequence.tempoTrack.insert(MIDIEvent(tick: 16 * 480, .meta(.tempo(microsecondsPerQuarter: 618_557))))
    var track = MusicTrack(name: "beats")
    for beat in 0..<32 {
        track.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: UInt8(30 + beat), velocity: 100)))
        track.insert(MIDIEvent(tick: beat * 480 + 120, .noteOff(channel: 0, note: UInt8(30 + beat), velocity: 0)))
    }
    sequence.addTrack(track)
    write(sequence, to: path)
}

func follow(log: String) {
    let (clocks, transport) = clockStream(log)
    // The leader's beats: a clock whose position is on a quarter note, by beat.
    var leader: [Int: [Double]] = [:]
    for c in clocks where c.pulse % 24 == 0 { leader[c.pulse / 24, default: []].append(c.seconds) }
    let notes = readLog(log).filter { $0.bytes.count == 3 && $0.bytes[0] == 0x90 && $0.bytes[2] > 0 }
    var errors: [(beat: Int, ms: Double, clock: Double)] = []
    for note in notes {
        let beat = Int(note.bytes[1]) - 30
        guard let times = leader[beat], let nearest = times.min(by: { abs($0 - note.seconds) < abs($1 - note.seconds) }) else { continue }
        let clock = beat < 16 ? 60.0 / (120 * 24) : 60.0 / (97 * 24)
        errors.append((beat, (note.seconds - nearest) * 1000, clock * 1000))
    }
    print("follow: leader transport \(transport.map(\.name).joined(separator: ",")); \(notes.count) follower beats, \(errors.count) matched to the leader's")
    print("  ms off the leader's beat: " + errors.map { String(format: "%d: %+.2f", $0.beat, $0.ms) }.joined(separator: ", "))
    guard errors.count >= 20 else { die("only \(errors.count) of the follower's beats matched the leader's") }
    let outside = errors.filter { abs($0.ms) > $0.clock }
    if !outside.isEmpty { die("\(outside.count) beats more than one clock from the leader's") }
}

func portLatency(log: String, milliseconds: Double) {
    let logged = readLog(log)
    func noteOns(_ status: UInt8) -> [Double] { logged.filter { $0.bytes.count == 3 && $0.bytes[0] == status && $0.bytes[2] > 0 }.map(\.seconds) }
    let (two, three) = (noteOns(0x91), noteOns(0x92))
    guard two.count == three.count, two.count >= 10 else { die("\(two.count) note-ons on channel 2, \(three.count) on channel 3") }
    let leads = zip(two, three).map { ($0 - $1) * 1000 }
    let errors = leads.map { abs($0 - milliseconds) }.sorted()
    print(String(format: "port latency %+.1f ms: channel 3 arrived %+.3f ms (median) before channel 2; |error| max %.3f ms", milliseconds,
                 leads.sorted()[leads.count / 2], errors.last!))
    if errors.filter({ $0 <= 1 }).count * 10 < errors.count * 9 { die("fewer than 90 % of the notes within 1 ms of \(milliseconds) ms early") }
}

func timecode(log: String, rateName: String, position: Double, fullFrames expectedFull: Int) {
    guard let rate = ["24": SMPTERate.fps24, "25": .fps25, "29.97df": .fps29_97Drop, "30": .fps30][rateName] else { die("rate \(rateName)") }
    let code = [SMPTERate.fps24, .fps25, .fps29_97Drop, .fps30].firstIndex(of: rate)!
    let (num, den) = rate.framesPerSecond
    let frame = Double(den) / Double(num)
    var pieces = [Int](repeating: -1, count: 8)
    var since: Double?
    var full: [String] = []
    var errors: [Double] = []
    for e in readLog(log) {
        if e.bytes.count == 10 && Array(e.bytes.prefix(5)) == [0xF0, 0x7F, 0x7F, 0x01, 0x01] {
            guard Int(e.bytes[5] >> 5) == code else { die("a full frame with rate code \(e.bytes[5] >> 5), expected \(code)") }
            full.append(SMPTETime(hours: Int(e.bytes[5] & 0x1F), minutes: Int(e.bytes[6]), seconds: Int(e.bytes[7]), frames: Int(e.bytes[8]), rate: rate).description)
            since = e.seconds
            pieces = [Int](repeating: -1, count: 8)
        } else if e.bytes.count == 2 && e.bytes[0] == 0xF1, let start = since {
            let piece = Int(e.bytes[1] >> 4)
            if piece == 0 { pieces = [Int](repeating: -1, count: 8) }
            pieces[piece] = Int(e.bytes[1] & 0xF)
            guard piece == 7, !pieces.contains(-1) else { continue }
            guard pieces[7] >> 1 == code else { die("quarter frames with rate code \(pieces[7] >> 1), expected \(code)") }
            let label = SMPTETime(hours: pieces[6] | (pieces[7] & 1) << 4, minutes: pieces[4] | pieces[5] << 4,
                                  seconds: pieces[2] | pieces[3] << 4, frames: pieces[0] | pieces[1] << 4, rate: rate)
            let shown = Double(label.subframeCount / 100 + 2) * frame
            errors.append((shown - (position + e.seconds - start)) / frame)
        }
    }
    var expectedFrame = SMPTETime(seconds: position, rate: rate)
    expectedFrame.subframes = 0   // a full frame names a frame
    let expectedLabel = expectedFrame.description
    let sorted = errors.map(abs).sorted()
    print(String(format: "timecode at %@ fps: full frames %@; %d times decoded, |error| 50%% %.3f, max %.3f frames", rateName,
                 full.joined(separator: ", "), errors.count, sorted.isEmpty ? 0 : sorted[sorted.count / 2], sorted.last ?? 0))
    guard full == Array(repeating: expectedLabel, count: expectedFull) else { die("full frames \(full), expected \(expectedFull) × \(expectedLabel)") }
    guard errors.count >= 10 else { die("only \(errors.count) times decoded") }
    let within = sorted.filter { $0 <= 1 }.count
    // As for the clock: the emulated guest stalls now and then, so 95 % must be within one frame.
    if within * 100 < sorted.count * 95 { die("only \(within) of \(sorted.count) decoded times within one frame of the song's") }
}
