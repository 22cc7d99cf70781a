import AllocationCounter
import Dispatch
import Locks
import Foundation
@testable import Pianola
import Synchronization
import TestSupport
import Testing

/// Songs and audio files for the soundtrack tests, written to a fresh folder.
struct SoundtrackFixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let testFont = root.appendingPathComponent("soundfonts/pianola-test.sf2").path
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-soundtrack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Writes `sequence` as `name` and returns its path.
    func write(_ sequence: MusicSequence, as name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(sequence.midiFile().serialized()).write(to: url)
        return url.path
    }

    /// Writes a WAV of `left`/`right` at 48 kHz and returns its path.
    func writeWAV(_ samples: [Float], as name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let writer = try AudioFileWriter(path: path, container: .wav, encoding: .float32, sampleRate: 48_000)
        try samples.withUnsafeBufferPointer { try writer.write(left: $0.baseAddress!, right: $0.baseAddress!, frames: $0.count) }
        try writer.close()
        return path
    }

    /// A song in 3/4 at 480 ticks per quarter: 120 bpm, 90 bpm from bar 3 (tick 2880). The
    /// track "Melody" (channel 1, sine) plays short notes on beats 2 and 3 of every bar, so
    /// nothing starts on a bar line; the track "Bass" (channel 2, square) holds low notes
    /// through every bar (unless `bass` is false). Markers: "verse" at bar 2, `loopStart`/`loopEnd` when asked.
    static func waltz(bars: Int = 8, loop: (start: Int, end: Int)? = nil, bass: Bool = true) -> MusicSequence {
        var tempo = MusicTrack(events: [
            MIDIEvent(tick: 0, .meta(.timeSignature(TimeSignature(3, 4)))),
            MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
            MIDIEvent(tick: 2880, .meta(.tempo(microsecondsPerQuarter: 666_667))),
            MIDIEvent(tick: 1440, .meta(.text(.marker, string: "verse"))),
        ])
        if let loop {
            tempo.insert(MIDIEvent(tick: loop.start * 1440, .meta(.text(.marker, string: "loopStart"))))
            tempo.insert(MIDIEvent(tick: loop.end * 1440, .meta(.text(.marker, string: "loopEnd"))))
        }
        var melody = MusicTrack(name: "Melody", events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))])
        let withBass = bass
        var bass = MusicTrack(name: "Bass", events: [MIDIEvent(tick: 0, .programChange(channel: 1, program: 1))])
        for bar in 0..<bars {
            for beat in 1...2 {
                melody.insert(MIDIEvent(tick: bar * 1440 + beat * 480, .noteOn(channel: 0, note: 72, velocity: 100)))
                melody.insert(MIDIEvent(tick: bar * 1440 + beat * 480 + 120, .noteOff(channel: 0, note: 72, velocity: 0)))
            }
            bass.insert(MIDIEvent(tick: bar * 1440, .noteOn(channel: 1, note: 36, velocity: 100)))
            bass.insert(MIDIEvent(tick: bar * 1440 + 1440, .noteOff(channel: 1, note: 36, velocity: 0)))
        }
        melody.length = bars * 1440
        bass.length = bars * 1440
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: withBass ? [melody, bass] : [melody])
    }

    /// A 4/4 song at 120 bpm whose one note sounds from its first tick (a sine, middle C).
    static func entrance() -> MusicSequence {
        let track = MusicTrack(name: "Lead", events: [
            MIDIEvent(tick: 0, .programChange(channel: 0, program: 0)),
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 100)),
            MIDIEvent(tick: 1920, .noteOff(channel: 0, note: 60, velocity: 0)),
        ], length: 1920)
        return MusicSequence(division: .ticksPerQuarter(480), tracks: [track])
    }
}

/// Pulls a soundtrack in uneven slices, as a game's audio callback would, and keeps both sides.
struct Puller {
    let soundtrack: Soundtrack
    let buffer = AudioBuffer(capacity: 4096)
    var left: [Float] = []
    var right: [Float] = []
    var slices = [512, 300, 1024, 77, 4096]

    init(_ soundtrack: Soundtrack) { self.soundtrack = soundtrack }

    mutating func pull(_ frames: Int) {
        var done = 0
        while done < frames {
            let n = min(slices[left.count % slices.count], frames - done)
            let slice = buffer.slice(frames: n)
            soundtrack.render(into: slice)
            left += UnsafeBufferPointer(start: slice.left, count: n)
            right += UnsafeBufferPointer(start: slice.right, count: n)
            done += n
        }
    }
}

/// Frames of a tick in the waltz (120 bpm to tick 2880, then 90 bpm), at 48 kHz.
func waltzFrame(_ tick: Int) -> Int {
    tick <= 2880 ? tick * 50 : 2880 * 50 + (tick - 2880) * 200 / 3
}

/// A soundtrack for exact measurements: no reverb or chorus, no limiter.
func dryConfiguration() -> Soundtrack.Configuration {
    var c = Soundtrack.Configuration()
    c.limiter = false
    (c.pianolaSynthesizer.reverb, c.pianolaSynthesizer.chorus) = (nil, nil)
    (c.fluidSynthesizer.reverb, c.fluidSynthesizer.chorus) = (false, false)
    return c
}

@Suite("The game API: songs, transitions on the beat, loops, layers, events, pull rendering")
struct SoundtrackTests {
    @Test("a switch at the next bar: the new song's beat 1 and its first note land on the old song's next bar line, from any request time (libfluidsynth's note within 32 frames, Pianola's on the frame)",
          arguments: [10_000, 71_234, 150_001, 200_000], SynthesisEngine.allCases)
    func switchOnNextBar(requestAt: Int, engine: SynthesisEngine) async throws {
        let fixture = try SoundtrackFixture()
        var configuration = dryConfiguration()
        configuration.engine = engine
        let soundtrack = Soundtrack(configuration: configuration)
        let waltz = try await soundtrack.load(.init(midiPath: fixture.write(SoundtrackFixture.waltz(bass: false), as: "waltz.mid"), soundFontPath: SoundtrackFixture.testFont))
        var entranceSong = Soundtrack.SongDescription(midiPath: try fixture.write(SoundtrackFixture.entrance(), as: "entrance.mid"), soundFontPath: SoundtrackFixture.testFont)
        entranceSong.trackLayers = []
        let entrance = try await soundtrack.load(entranceSong)
        var pull = Puller(soundtrack)
        try soundtrack.play(waltz)
        pull.pull(requestAt)
        try soundtrack.play(entrance, at: .nextBar)
        pull.pull(300_000 - requestAt)
        // The bar line: the first at or after the earliest frame the request could reach.
        let earliest = requestAt + 4096
        let barLine = (0..<20).map { waltzFrame($0 * 1440) }.first { $0 >= earliest }!
        let events = soundtrack.pollEvents()
        let entranceBeats = events.filter { if case .beat(let song, let beat) = $0 { song === entrance && beat.bar == 1 && beat.beat == 1 } else { false } }
        #expect(entranceBeats.first?.sampleTime == SampleTime(barLine))
        let waltzBeatsAfter = events.filter { if case .beat(let song, let beat) = $0 { song === waltz && beat.sampleTime >= barLine } else { false } }
        #expect(waltzBeatsAfter.isEmpty, "the old song stops on the bar line")
        let onset = noteOnsets(pull.left).first { $0 >= barLine - 64 }
        // Pianola's voices fade in from 0 over their first block, so the first sound is the frame after.
        let allowed = engine == .pianola ? 1...1 : -32...32
        #expect(onset.map { allowed.contains($0 - barLine) } == true, "synth onset \(onset ?? -1) vs bar line \(barLine)")
    }

    @Test("events read as one line each: what happened, to which song by its name, on which frame")
    func eventDescriptions() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let path = try fixture.write(SoundtrackFixture.waltz(bass: false), as: "waltz.mid")
        let waltz = try await soundtrack.load(.init(midiPath: path, soundFontPath: SoundtrackFixture.testFont))
        var pull = Puller(soundtrack)
        try soundtrack.play(waltz)
        pull.pull(200_000)
        let lines = soundtrack.pollEvents().map(\.description)
        // 3/4 at 120 bpm: bar 2 (the "verse" marker) at 1.5 s; at bar 3 the tempo falls to 90.
        for expected in ["\(path) started at frame 0", "beat 1 of bar 1 (3/4, 120 bpm) of \(path) at frame 0",
                         "marker \"verse\" of \(path) at frame 72000",
                         "beat 1 of bar 2 (3/4, 120 bpm, section \"verse\") of \(path) at frame 72000",
                         "beat 1 of bar 3 (3/4, 90 bpm, section \"verse\") of \(path) at frame 144000"] {
            #expect(lines.contains(expected), "\(expected) among \(lines)")
        }
        #expect(lines.allSatisfy { !$0.contains("Soundtrack.") && !$0.contains("\n") })
    }

    @Test("a stem started on the next beat: its first sample is exactly on the beat's frame")
    func stemOnBeat() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let waltz = try await soundtrack.load(.init(midiPath: fixture.write(SoundtrackFixture.waltz(bars: 2), as: "waltz.mid"), soundFontPath: SoundtrackFixture.testFont))
        var silent = MusicSequence(division: .ticksPerQuarter(480), tracks: [MusicTrack(length: 1920)])
        silent.tracks[0].name = "nothing"
        var clickSong = Soundtrack.SongDescription(midiPath: try fixture.write(silent, as: "silent.mid"), soundFontPath: SoundtrackFixture.testFont)
        clickSong.stems = ["click": .path(try fixture.writeWAV([0.5] + [Float](repeating: 0, count: 4799), as: "click.wav"))]
        let click = try await soundtrack.load(clickSong)
        var pull = Puller(soundtrack)
        try soundtrack.play(waltz)
        pull.pull(30_000)
        try soundtrack.play(click, at: .nextBeat, fadeOut: 0.5)   // the waltz fades out under it
        pull.pull(40_000)
        let beat = (0..<20).map { waltzFrame($0 * 480) }.first { $0 >= 30_000 + 4096 }!
        // The waltz's melody is silent on beat lines; the fading bass is a low square, so the
        // click is the only sample where the difference to the next frame jumps by 0.5.
        let jumps = (1..<pull.left.count).filter { abs(pull.left[$0] - pull.left[$0 - 1]) > 0.45 }
        #expect(jumps.first == beat, "click at \(jumps.first ?? -1), beat at \(beat)")
    }

    @Test("the pull API renders the same samples as the offline renderer for the same song, on either synthesizer", arguments: SynthesisEngine.allCases)
    func pullEqualsOffline(engine: SynthesisEngine) async throws {
        let song = SoundtrackFixture.root.appendingPathComponent("songs/twinkle.mid").path
        let font = SoundtrackFixture.root.appendingPathComponent("soundfonts/pianola-gm.sf2").path
        let sequence = MusicSequence(file: try MIDIFile(contentsOf: song))
        var settings = SongGraph.Settings()
        settings.engine = engine
        let renderer = try SongRenderer(sequence: sequence, soundFontPath: font, settings: settings)
        #expect(renderer.songGraph.engine == engine)
        var offline: [Float] = []
        renderer.render(sliceFrames: 1000) { slice, _ in offline += UnsafeBufferPointer(start: slice.left, count: slice.frames) }
        var configuration = Soundtrack.Configuration()
        configuration.limiter = false
        configuration.engine = engine
        let soundtrack = Soundtrack(configuration: configuration)
        try soundtrack.play(try await soundtrack.load(.init(midiPath: song, soundFontPath: font)))
        var pull = Puller(soundtrack)
        pull.pull(offline.count)
        #expect(offline.count > 48_000)
        let firstDifference = zip(offline, pull.left).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first different frame: \(firstDifference ?? -1) of \(offline.count)")
    }

    @Test("a song loops on its loopStart/loopEnd markers: wraps on the exact frame, no silent gap, the marker reported each pass")
    func markerLoop() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let song = try await soundtrack.load(.init(midiPath: fixture.write(SoundtrackFixture.waltz(loop: (1, 4)), as: "loop.mid"), soundFontPath: SoundtrackFixture.testFont))
        #expect(song.loop == SongLoop(startTick: 1440, endTick: 5760, convention: .markers))
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        let passFrames = waltzFrame(5760) - waltzFrame(1440)
        pull.pull(waltzFrame(5760) + 3 * passFrames + 1000)
        let events = soundtrack.pollEvents()
        let wraps = events.compactMap { if case .loopWrapped(_, let t) = $0 { Int(t) } else { nil } }
        #expect(wraps == (0..<4).map { waltzFrame(5760) + $0 * passFrames })
        let verses = events.filter { if case .marker(_, "verse", _) = $0 { true } else { false } }
        #expect(verses.count == 5)
        // The bass holds every bar, so every 10 ms window from the first note on has sound.
        let quietWindows = stride(from: 0, to: pull.left.count - 480, by: 480).filter { start in
            pull.left[start..<start + 480].reduce(0) { max($0, abs($1)) } < 0.001
        }
        #expect(quietWindows.isEmpty, "quiet 10 ms windows at \(quietWindows.prefix(5))")
    }

    @Test("a track layer fades by name to exact silence while its notes go on; an unknown layer is a one-line error")
    func layers() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(SoundtrackFixture.waltz(), as: "waltz.mid"), soundFontPath: SoundtrackFixture.testFont)
        description.trackLayers = ["bass"]
        let song = try await soundtrack.load(description)
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(20_000)
        try soundtrack.setLayer("Bass", volume: 0, seconds: 0.1)
        pull.pull(100_000)
        // From the fade's end (at most one pull after the request, plus 4,800 frames), only
        // the melody sounds: between its notes, the output is exactly zero.
        let fadeEnd = 20_000 + 4096 + 4800
        let melodyGap = waltzFrame(1440 + 480 + 120) + 2000 ..< waltzFrame(1440 + 960) - 100
        #expect(melodyGap.lowerBound > fadeEnd)
        #expect(pull.left[melodyGap].allSatisfy { $0 == 0 })
        #expect(pull.left[2000..<20_000].contains { $0 != 0 })
        let error = #expect(throws: SoundtrackError.self) { try soundtrack.setLayer("Strings", volume: 1) }
        #expect(error?.description.hasSuffix("waltz.mid has no layer 'Strings' (layers: bass)") == true)
    }

    @Test("with controllersDriveLayers, a layer's CC7 moves the layer's fader on its exact frame")
    func controllersDriveLayers() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        // One held note on the layer "Pad"; CC7 = 0 on beat 3 (tick 960, frame 48,000 at 120 bpm).
        let pad = MusicTrack(name: "Pad", events: [
            MIDIEvent(tick: 0, .programChange(channel: 0, program: 0)),
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 100)),
            MIDIEvent(tick: 960, .controlChange(channel: 0, controller: 7, value: 0)),
            MIDIEvent(tick: 1920, .noteOff(channel: 0, note: 60, velocity: 0)),
        ], length: 1920)
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(MusicSequence(division: .ticksPerQuarter(480), tracks: [pad]), as: "pad.mid"),
                                                     soundFontPath: SoundtrackFixture.testFont)
        description.trackLayers = ["Pad"]
        description.controllersDriveLayers = true
        try soundtrack.play(try await soundtrack.load(description))
        var pull = Puller(soundtrack)
        pull.pull(80_000)
        // The synth's own CC7 would glide over a 64-frame block; the fader cuts on the frame.
        #expect(pull.left[47_900..<48_000].contains { abs($0) > 0.01 })
        #expect(pull.left[48_000...].allSatisfy { $0 == 0 })
    }

    @Test("events reach a DispatchQueue of the caller's, never the audio thread")
    func deliveryOnQueue() async throws {
        let fixture = try SoundtrackFixture()
        let soundtrack = Soundtrack(configuration: dryConfiguration())
        let song = try await soundtrack.load(.init(midiPath: fixture.write(SoundtrackFixture.waltz(bars: 2), as: "w.mid"), soundFontPath: SoundtrackFixture.testFont))
        let queue = DispatchQueue(label: "game")
        let seen = ControlLock<[Soundtrack.Event]>([])
        soundtrack.deliverEvents(on: queue) { event in
            dispatchPrecondition(condition: .onQueue(queue))
            seen.withLock { $0.append(event) }
        }
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.pull(waltzFrame(2880) + 48_000)
        for _ in 0..<200 where !seen.withLock({ $0.contains { if case .songEnded = $0 { true } else { false } } }) {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        soundtrack.deliverEvents(on: nil)
        let events = seen.withLock { $0 }
        #expect(events.filter { if case .beat = $0 { true } else { false } }.count == 6)
        #expect(events.last.map { if case .songEnded(_, let t) = $0 { t == SampleTime(waltzFrame(2880)) } else { false } } == true)
    }

    @Test("rendering a soundtrack (song, layer fades, stem, effects on the beat, transitions through a segment, game parameters gliding a layer, a controller, tempo, transposition, an effect and choosing sections, effects on three buses with a ducker) allocates nothing on the render thread, on either synthesizer", arguments: SynthesisEngine.allCases)
    func noAllocation(engine: SynthesisEngine) async throws {
        let fixture = try SoundtrackFixture()
        var configuration = Soundtrack.Configuration()
        configuration.engine = engine
        let soundtrack = Soundtrack(configuration: configuration)
        var description = Soundtrack.SongDescription(midiPath: try fixture.write(SoundtrackFixture.waltz(loop: (1, 4)), as: "w.mid"), soundFontPath: SoundtrackFixture.testFont)
        description.trackLayers = ["Bass"]
        description.stems = ["pad": .path(try fixture.writeWAV((0..<96_000).map { Float(sin(Double($0) * 0.05)) * 0.1 }, as: "pad.wav"))]
        let song = try await soundtrack.load(description)
        let sting = try await soundtrack.loadSoundEffect(.path(try fixture.writeWAV([Float](repeating: 0.2, count: 2400), as: "sting.wav")))
        try soundtrack.setTransition(.init(name: "via verse", leave: .nextBeat, segment: .init(song, section: "verse"), fadeOut: 0.05, fadeIn: 0.05))
        try soundtrack.defineParameter("intensity")
        try soundtrack.mapParameter("intensity", to: .layerVolume("pad"), curve: .init([(0, 0.2), (0.5, 0.5), (1, 1)]))
        try soundtrack.mapParameter("intensity", to: .controller(74, channels: [1, 2]), curve: .linear(from: 30, to: 120))
        try soundtrack.mapParameter("intensity", to: .tempo, curve: .linear(from: 90, to: 130))
        try soundtrack.mapParameter("intensity", to: .transpose, curve: .linear(from: -2, to: 2))
        try soundtrack.mapParameter("intensity", to: .nextSection(["verse"]), curve: .linear(from: 0, to: 0))
        let lowpass = try soundtrack.addEffect(try EffectSpec("lowpass"), on: .music)
        try soundtrack.mapParameter("intensity", to: .effect(lowpass, parameter: "cutoff"), curve: .init([(0, 500), (1, 20_000)]))
        try soundtrack.addEffect(try EffectSpec("compressor,threshold=-30"), on: .music, keyedBy: .sounds)
        try soundtrack.addEffect(try EffectSpec("delay,time=0.25"), on: .master)
        let shelf = try soundtrack.addEffect(try EffectSpec("highshelf,gain=-6"), on: .sounds)
        try soundtrack.addEffect(try EffectSpec("reverb,dry=0"), on: .aux)
        try soundtrack.setSend(from: .music, level: 0.3)
        try soundtrack.play(song)
        var pull = Puller(soundtrack)
        pull.slices = [512]
        pull.pull(24_000)
        try soundtrack.transition(to: song)   // warm-up: every code path once (the Swift runtime fills its type caches on first use)
        try soundtrack.setParameter("intensity", to: 0.7, seconds: 0.3)
        try soundtrack.setEffectParameter(shelf, "frequency", to: 2_000, seconds: 0.1)
        try soundtrack.setEffectBypassed(shelf, true)
        pull.pull(48_000)
        try soundtrack.setEffectBypassed(shelf, false)
        pull.pull(48_000)
        let buffer = AudioBuffer(capacity: 512)
        var allocations = 0
        for cycle in 0..<1000 {
            if cycle % 100 == 0 {
                try soundtrack.setLayer("bass", volume: cycle % 200 == 0 ? 0.2 : 1, seconds: 0.05)
                try soundtrack.playSoundEffect(sting, at: .nextBeat)
            }
            if cycle % 200 == 150 { try soundtrack.transition(to: song) }   // through a segment (new decks), crossfading
            if cycle % 50 == 25 { try soundtrack.setParameter("intensity", to: Double(cycle % 300) / 300, seconds: 0.3) }
            if cycle % 50 == 10 { try soundtrack.setEffectParameter(shelf, "frequency", to: Double(1_000 + cycle * 10), seconds: 0.1) }
            if cycle % 100 == 60 { try soundtrack.setEffectBypassed(shelf, cycle % 200 == 60) }
            if cycle % 100 == 70 { try soundtrack.setSend(from: .sounds, level: Float(cycle % 300) / 300) }
            pianola_allocations_start()
            soundtrack.render(into: buffer.slice(frames: 512))
            allocations += pianola_allocations_stop()
        }
        print("soundtrack render allocations: Pianola \(allocations) in 1,000 cycles of 512 frames")
        #expect(allocations == 0)
    }
}
