import Foundation
import Testing
import Pianola

/// The library examples of the README and docs/swift-library.md, copied as written, run from the package folder. Keep them in step.
@Test("the library examples of the README and docs/swift-library.md compile and run")
func readmeExamples() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    // The examples use paths relative to the package folder, as a reader runs them there.
    #expect(FileManager.default.changeCurrentDirectoryPath(root.path))
    defer { try? FileManager.default.removeItem(atPath: "ode.wav") }
    
    // Render a song to a WAV file with the project's General MIDI font, on Pianola's own
    // synthesizer (set `settings.engine = .fluidsynth` for libfluidsynth).
    let song = MusicSequence(file: try MIDIFile(contentsOf: "songs/ode-to-joy.mid"))
    let settings = SongGraph.Settings()
    let renderer = try SongRenderer(sequence: song, soundFontPath: "soundfonts/pianola-gm.sf2", settings: settings)
    let wav = try AudioFileWriter(path: "ode.wav", container: .wav, encoding: .int16, sampleRate: 48_000)
    try renderer.render { slice, _ in try wav.write(left: slice.left, right: slice.right, frames: slice.frames) }
    try wav.close()
    
    
    let file = try MIDIFile(contentsOf: "songs/ode-to-joy.mid")     // lenient; .strict refuses defects
    for warning in file.warnings { print(warning) }                 // "byte 38, track 1: …"
    let sequence = MusicSequence(file: file)                             // or layout: .channelsToTracks
    let tempo = sequence.tempoMap
    print(tempo.seconds(atTick: 1920))                              // exact, per tempo segment
    print(tempo.sampleFrame(atTick: 1920, sampleRate: 48_000))      // the same answer however reached
    print(sequence.meterMap!.position(atTick: 1920))                // 2:1:0 (bar:beat:tick, from 1)
    var melody = sequence.tracks[1]
    melody.insert(MIDIEvent(tick: 0, .controlChange(channel: 0, controller: 7, value: 100)))
    let bytes = sequence.midiFile().serialized()                    // a format 1 Standard MIDI File
    
    // The graph: a sampler (libfluidsynth) into a mixer, pulled block by block; the player
    // schedules the sequence onto the sample clock.
    let synth = try FluidSynthesizer()                                   // 48 kHz, reverb and chorus on
    _ = try synth.loadSoundFont(path: "soundfonts/pianola-gm.sf2")  // before it renders
    let sampler = FluidSynthNode(synthesizer: synth)
    let mixer = MixerNode()
    let graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: 48_000))
    mixer.connect(sampler)
    let player = MusicPlayer(sequence: sequence, sampleRate: 48_000, destinations: [sampler])
    graph.add(player)
    player.setLoop(startTick: 0, endTick: 7680, count: 2)          // bars 1–4 twice
    player.start()
    let buffer = AudioBuffer(capacity: 4096)
    graph.render(into: buffer.slice(frames: 4096))                  // the render thread's call

    // Pianola's own synthesizer is a node like the sampler (here beside it): every event on its exact frame.
    let font = try SoundFont(path: "soundfonts/pianola-gm.sf2")     // mapped, not copied
    let ownSynth = SoundFontSynthNode(synthesizer: SoundFontSynthesizer(font: font, sampleRate: 48_000))
    mixer.connect(ownSynth)
    let second = MusicPlayer(sequence: sequence, sampleRate: 48_000, destinations: [ownSynth])
    graph.add(second)
    second.start()
    graph.render(into: buffer.slice(frames: 4096))
    #expect(FileManager.default.fileExists(atPath: "ode.wav"))
    #expect(tempo.seconds(atTick: 1920) > 0 && bytes.count > 100)
}

/// The game API example of docs/game-api.md, copied as written. Keep the two in step.
@Test("the game API example of docs/game-api.md runs")
func readmeGameExample() async throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    #expect(FileManager.default.changeCurrentDirectoryPath(root.path))

    let soundtrack = Soundtrack()                                    // 48 kHz, master limiter on
    var town = Soundtrack.SongDescription(midiPath: "songs/town.mid", soundFontPath: "soundfonts/pianola-gm.sf2")
    town.trackLayers = ["Strings"]                                   // a track faded on its own, by name
    let song = try await soundtrack.load(town)                       // read and font loaded off this thread
    try soundtrack.play(song)                                        // loops on its loopStart/loopEnd markers
    try soundtrack.setLayer("Strings", volume: 0.3, seconds: 2)      // a 2 s fade, sample-exact
    let battle = soundtrack.startLoading(.init(midi: .path("songs/battle.mid"),   // or .bytes(asset, name: "battle")
                                               soundFont: .path("soundfonts/pianola-gm.sf2")))
    try battle.wait()                                                // or poll battle.state, or wait for its event
    try soundtrack.play(battle, at: .marker("verse"), fadeOut: 0.5)  // on the town's "verse" marker
    var block = [Float](repeating: 0, count: 2 * 512)
    soundtrack.render(interleaved: &block, frameCount: 512)          // the game's audio callback (or startOutput())
    for event in soundtrack.pollEvents() { print(event) }            // beats, bars, markers, loops, ends, loads

    #expect(soundtrack.meters.peak.isFinite)
}
