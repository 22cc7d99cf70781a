import Engine
import MIDI
import Pianola
import Testing

/// A destination that keeps what it is sent, as `(time, bytes)`.
final class Capture: MIDIDestination, @unchecked Sendable {
    var events: [(time: SampleTime, bytes: [UInt8])] = []
    var flushes: [SampleTime] = []

    func schedule(_ event: ScheduledMIDI) {
        events.append((event.time, Array([event.status, event.data1, event.data2].prefix(1 + MIDIMessage.channelDataLength(event.status)))))
    }
    func scheduleSysex(_ data: UnsafeBufferPointer<UInt8>, at time: SampleTime) { events.append((time, [0xF0] + Array(data))) }
    func flushScheduled(from time: SampleTime) { flushes.append(time) }
    var schedulingLookahead: Int { 0 }

    /// Channels (1-based) of the note-ons received.
    var noteOnChannels: Set<Int> { Set(events.filter { $0.bytes[0] & 0xF0 == 0x90 }.map { Int($0.bytes[0] & 0x0F) + 1 }) }
}

@Suite("Routing tracks and channels to the synth and to ports")
struct RoutingTests {
    /// Two tracks: track 1 plays channels 1 and 10, track 2 plays channel 2; a sysex first.
    static func song() -> MusicSequence {
        var one = MusicTrack(events: [MIDIEvent(tick: 0, .sysex([0x7E, 0x7F, 0x09, 0x01, 0xF7]))])
        var two = MusicTrack()
        for beat in 0..<4 {
            one.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 0, note: 60, velocity: 100)))
            one.insert(MIDIEvent(tick: beat * 480 + 240, .noteOff(channel: 0, note: 60, velocity: 0)))
            one.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 9, note: 36, velocity: 100)))
            one.insert(MIDIEvent(tick: beat * 480 + 100, .noteOff(channel: 9, note: 36, velocity: 0)))
            two.insert(MIDIEvent(tick: beat * 480, .noteOn(channel: 1, note: 48, velocity: 90)))
            two.insert(MIDIEvent(tick: beat * 480 + 400, .noteOff(channel: 1, note: 48, velocity: 0)))
        }
        return MusicSequence(division: .ticksPerQuarter(480), tracks: [one, two])
    }

    /// Plays `song` with `routing` to a synth stand-in and two port stand-ins for `frames`.
    static func play(_ routing: Routing, frames: Int = 96_000, stopAt: Int? = nil) -> (synth: Capture, ports: [Capture]) {
        let synth = Capture(), ports = [Capture(), Capture()]
        let sequence = song()
        let routes = routing.destinations(trackCount: sequence.tracks.count, synth: synth, external: ports)
        let player = MusicPlayer(sequence: sequence, sampleRate: 48_000, destinations: routes.destinations, trackDestinations: routes.trackDestinations)
        player.start()
        var time: SampleTime = 0
        while time < frames {
            if let stopAt, time == stopAt { player.stop() }
            player.willRender(from: time, frames: 1_000)
            time += 1_000
        }
        return (synth, ports)
    }

    @Test("first matching rule wins; what no rule names goes to the fallback")
    func firstMatch() {
        let routing = Routing(rules: [
            Routing.Rule(tracks: 1...1, channels: 9...9, target: .external(1)),
            Routing.Rule(channels: 9...9, target: .synth),
            Routing.Rule(channels: 0...8, target: .external(0)),
        ], fallback: .external(1))
        #expect(routing.target(track: 1, channel: 9) == .external(1))
        #expect(routing.target(track: 0, channel: 9) == .synth)
        #expect(routing.target(track: 5, channel: 3) == .external(0))
        #expect(routing.target(track: 0, channel: 12) == .external(1))
        #expect(routing.usesSynth)
        #expect(!Routing(rules: [], fallback: .external(0)).usesSynth)
    }

    @Test("channel 10 to the synth, the rest to a port: every event reaches exactly its target")
    func channelSplit() {
        let (synth, ports) = Self.play(Routing(rules: [Routing.Rule(channels: 9...9, target: .synth)], fallback: .external(0)))
        #expect(synth.noteOnChannels == [10])
        #expect(ports[0].noteOnChannels == [1, 2])
        #expect(ports[1].events.isEmpty)
        #expect(synth.events.filter { $0.bytes[0] == 0x99 }.count == 4)
        #expect(ports[0].events.filter { $0.bytes[0] & 0xF0 == 0x90 }.count == 8)
        // The sysex of a split track goes to each of its targets once.
        #expect(synth.events.filter { $0.bytes[0] == 0xF0 }.count == 1)
        #expect(ports[0].events.filter { $0.bytes[0] == 0xF0 }.count == 1)
        // Each note-on has its note-off at the same target: 4 beats × (60 for 120 ms, 48 for 200 ms).
        let offs = ports[0].events.filter { $0.bytes[0] & 0xF0 == 0x80 }
        #expect(offs.count == 8)
        #expect(offs.map(\.time).sorted().first == 12_000)
    }

    @Test("a track routed whole to a port uses it directly; tracks with the same routes share a destination")
    func wholeTracks() {
        let sequence = Self.song()
        let synth = Capture(), port = Capture()
        let byTrack = Routing(rules: [Routing.Rule(tracks: 1...1, target: .external(0))], fallback: .synth)
        let routes = byTrack.destinations(trackCount: 2, synth: synth, external: [port])
        #expect(routes.destinations.count == 2)
        #expect(routes.destinations[routes.trackDestinations[0]] === synth)
        #expect(routes.destinations[routes.trackDestinations[1]] === port)
        let same = Routing(rules: [Routing.Rule(channels: 9...9, target: .external(0))]).destinations(trackCount: sequence.tracks.count, synth: synth, external: [port])
        #expect(same.destinations.count == 1)
        #expect(same.trackDestinations == [0, 0])
        #expect(same.destinations[0] is ChannelSplitter)
    }

    @Test("stop in the middle of held notes: each target gets a jump and a note-off for each of its notes")
    func stopReleasesPerTarget() {
        // At frame 6,000 (beat 1 + 125 ms) notes 60 (ch 1) and 48 (ch 2) sound, 36 (ch 10) has ended.
        let (synth, ports) = Self.play(Routing(rules: [Routing.Rule(channels: 9...9, target: .synth)], fallback: .external(0)), frames: 10_000, stopAt: 6_000)
        #expect(ports[0].flushes == [6_000])
        #expect(synth.flushes == [6_000])
        let portOffsAtStop = ports[0].events.filter { $0.time == 6_000 && $0.bytes[0] & 0xF0 == 0x80 }.map(\.bytes)
        #expect(Set(portOffsAtStop) == [[0x80, 60, 0], [0x81, 48, 0]])
        #expect(!synth.events.contains { $0.time == 6_000 && $0.bytes[0] & 0xF0 == 0x80 }, "nothing held on channel 10 at the stop")
        #expect(ports[0].events.allSatisfy { $0.time <= 6_000 }, "nothing scheduled after the stop")
    }
}
