import DSP
import Synthesis
import Engine
import FluidSynth
import MIDI
import Playback
import Sequencing
import RenderHarness
import Testing
import TestSupport


/// Passes everything to the sampler and keeps which keys are down, as gear on a MIDI cable
/// would: the capture of what the player sends out.
final class KeyWatcher: MIDIDestination, @unchecked Sendable {
    let sampler: FluidSynthNode
    var down: [Int: Int] = [:]     // channel × 128 + key → note-ons not yet released
    var noteOns = 0

    init(_ sampler: FluidSynthNode) { self.sampler = sampler }

    func schedule(_ event: ScheduledMIDI) {
        let key = Int(event.status & 0x0F) * 128 + Int(event.data1)
        switch event.status & 0xF0 {
        case 0x90 where event.data2 > 0:
            down[key, default: 0] += 1
            noteOns += 1
        case 0x80, 0x90:
            down[key] = nil
        default: break   // All Notes Off (CC123) does not count: every note-on needs its own note-off
        }
        sampler.schedule(event)
    }
    func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { sampler.scheduleSysex(data, at: time) }
    func flushScheduled(from time: SampleTime) { sampler.flushScheduled(from: time) }
    var schedulingLookahead: Int { sampler.schedulingLookahead }
}

@Suite("No hanging notes, ever")
struct HangingNotesTests {
    /// A random song: 1–3 tracks on random channels (10 among them), notes that overlap on
    /// the same key, note-ons never released, note-offs of keys never struck, velocity-0
    /// note-ons, programs, controllers and pitch bend, and a tempo change or two.
    static func randomSong(_ random: inout SplitMix) -> MusicSequence {
        var tempo = MusicTrack()
        tempo.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: UInt32.random(in: 300_000...900_000, using: &random)))))
        tempo.insert(MIDIEvent(tick: Int.random(in: 0...3_840, using: &random), .meta(.tempo(microsecondsPerQuarter: UInt32.random(in: 300_000...900_000, using: &random)))))
        var tracks: [MusicTrack] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            var track = MusicTrack()
            let channel = UInt8([0, 1, 2, 9].randomElement(using: &random)!)
            track.insert(MIDIEvent(tick: 0, .programChange(channel: channel, program: UInt8.random(in: 0...2, using: &random))))
            for _ in 0..<Int.random(in: 10...60, using: &random) {
                let tick = Int.random(in: 0...7_680, using: &random)
                let key = UInt8.random(in: 55...70, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0: track.insert(MIDIEvent(tick: tick, .noteOn(channel: channel, note: key, velocity: 100)))            // never released
                case 1: track.insert(MIDIEvent(tick: tick, .noteOff(channel: channel, note: key, velocity: 0)))             // never struck
                case 2: track.insert(MIDIEvent(tick: tick, .controlChange(channel: channel, controller: UInt8([1, 7, 10, 64, 11].randomElement(using: &random)!), value: UInt8.random(in: 0...127, using: &random))))
                case 3: track.insert(MIDIEvent(tick: tick, .pitchBend(channel: channel, value: UInt16.random(in: 0...16_383, using: &random))))
                default:
                    let length = Int.random(in: 1...960, using: &random)
                    track.insert(MIDIEvent(tick: tick, .noteOn(channel: channel, note: key, velocity: UInt8.random(in: 1...127, using: &random))))
                    let off: MIDIMessage = Bool.random(using: &random) ? .noteOff(channel: channel, note: key, velocity: 64) : .noteOn(channel: channel, note: key, velocity: 0)
                    track.insert(MIDIEvent(tick: tick + length, off))
                }
            }
            tracks.append(track)
        }
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: tracks)
    }

    @Test("random songs under random play, stop, pause, seek, loop, mute, solo, tempo, transpose and song switches: afterwards every key is up and the synth is silent",
          arguments: 0..<64)
    func noHangingNotes(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var configuration = FluidSynthesizer.Configuration()
        configuration.reverb = false
        configuration.chorus = false
        let synth = try FluidSynthesizer(configuration: configuration)
        _ = try synth.loadSoundFont(path: RenderHarness.testFont)
        let sampler = FluidSynthNode(synthesizer: synth)
        let watcher = KeyWatcher(sampler)
        let mixer = MixerNode()
        let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000), maxFrames: 4096)
        mixer.connect(sampler)
        // Two songs on the same synth: a switch stops one and starts the other.
        let songs = [Self.randomSong(&random), Self.randomSong(&random)]
        let players = songs.map { MusicPlayer(sequence: $0, sampleRate: 48_000, destinations: [watcher]) }
        for player in players { graph.add(player) }
        let buffer = AudioBuffer(capacity: 4096)
        func render(_ frames: Int) {
            var done = 0
            while done < frames {
                let n = min(Int.random(in: 1...4096, using: &random), frames - done)
                graph.render(into: buffer.slice(frames: n))
                done += n
            }
        }
        var current = 0
        players[0].start()
        var actions: [String] = []
        for _ in 0..<30 {
            render(Int.random(in: 0...24_000, using: &random))
            let player = players[current]
            let tracks = songs[current].tracks.count
            switch Int.random(in: 0..<11, using: &random) {
            case 0: player.start(); actions.append("start")
            case 1: player.stop(); actions.append("stop")
            case 2: player.pause(); actions.append("pause")
            case 3: player.seek(toTick: Int.random(in: 0...8_000, using: &random)); actions.append("seek")
            case 4:
                let start = Int.random(in: 0...4_000, using: &random)
                player.setLoop(startTick: start, endTick: start + Int.random(in: 240...3_840, using: &random), count: Int.random(in: 0...3, using: &random))
                actions.append("loop")
            case 5: player.setMuted(Bool.random(using: &random), track: Int.random(in: 0..<tracks, using: &random)); actions.append("mute")
            case 6: player.setSoloed(Bool.random(using: &random), track: Int.random(in: 0..<tracks, using: &random)); actions.append("solo")
            case 7: player.setRate(percent: Int.random(in: 25...400, using: &random)); actions.append("tempo")
            case 8: player.setTranspose(semitones: Int.random(in: -12...12, using: &random)); actions.append("transpose")
            case 9: player.clearLoop(); actions.append("clear loop")
            default:
                player.stop()
                current = 1 - current
                players[current].start()
                actions.append("switch")
            }
        }
        for player in players { player.stop() }
        render(48_000)   // the release time and more
        #expect(watcher.down.isEmpty, "keys left down after \(actions): \(watcher.down.keys.sorted())")
        #expect(synth.activeVoiceCount == 0)
        graph.render(into: buffer.slice(frames: 4096))
        let peak = (0..<4096).map { max(abs(buffer.left[$0]), abs(buffer.right[$0])) }.max()!
        #expect(peak == 0, "the synth still sounds: peak \(peak)")
        #expect(watcher.noteOns > 0)
    }
}
