import ALSA
import ArgumentParser
import FoundationEssentials
import Glibc
import MIDI
import Pianola

/// `pianola record`: what a MIDI port sends, into a Standard MIDI File — alone (like
/// arecordmidi) or overdubbed while a song plays.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a MIDI port into a MIDI file, alone or while a song plays.",
        discussion: """
            Times are the kernel's arrival stamps turned into ticks at the file's resolution, \
            unquantized. With --play the new track is added to the song's own tracks and \
            recording ends with the song; otherwise it ends after --duration or at Ctrl-C. \
            Ctrl-C always writes a valid file with everything received until then.
            """)

    @Argument(help: "The MIDI file to write.")
    var output: String

    @Option(help: "The MIDI port to record from (24:0, \"Midi Through\"; see 'pianola ports').")
    var port: String

    @Option(help: "A song to play while recording; the new track is added to it.")
    var play: String?

    @Option(help: "Where the song plays: synth or a MIDI port.")
    var playTo = "synth"

    @Option(help: ArgumentHelp("With --play: send the song's chosen tracks or channels to the synth or a MIDI port, as play --route does (SELECTORS=TARGET, repeatable).", valueName: "selectors=target"))
    var route: [String] = []


    @Option(help: ArgumentHelp("Also pass what arrives, as it arrives, to the synth (heard through the audio device) or to a MIDI port (routed by the kernel, no delay).", valueName: "synth|port"))
    var thru: String?

    @Option(help: "Tempo of the file in beats per minute, without --play.")
    var tempo = 120.0

    @Option(help: "Ticks per quarter note of the file, without --play.")
    var ppq = 480

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Option(help: "Also write each event as a text line: seconds from the start, then its bytes in hex.")
    var log: String?

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "No messages but errors.")
    var quiet = false

    @Option(help: "SoundFont for the song (default: \(SoundFontChoice.rule)).")
    var soundfont: String?

    @Option(help: ArgumentHelp("Synthesizer for the song and what --thru sends to the synth: pianola (Pianola's own, every note on its exact frame) or fluidsynth.", valueName: "engine"))
    var synth: SynthesisEngine = .pianola

    @OptionGroup(title: "Keeping devices in step (with --play)") var sync: SyncOptions

    @OptionGroup(title: "Audio device (with --play)") var audio: AudioDeviceOptions

    func run() throws {
        try checkNumbers()
        try OutputFile.check(output, force: force)
        let interruption = Interruption()

        var sequence = MusicSequence(division: .ticksPerQuarter(ppq))
        sequence.tempoTrack.insert(MIDIEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: UInt32((60_000_000 / tempo).rounded())))))
        if let play {
            let file: MIDIFile
            do { file = try MIDIFile(contentsOf: play) } catch { throw fail(error.description) }
            for warning in file.warnings { printError("\(play): warning: \(warning)") }
            sequence = MusicSequence(file: file)
        }
        let routes = try MIDIOptions.parse(routes: route, trackCount: sequence.tracks.count)   // before any port opens
        let plan = try sync.parsed()
        let say: (String) -> Void = { line in if !quiet { print(line); fflush(nil) } }

        let client: SequencerClient
        let input: SequencerInput
        var midi: MIDIOptions.Opened?
        do {
            client = try SequencerClient()
            let source = try client.port(named: port, sending: false)
            if let thru, thru.lowercased() != "synth" {
                let target = try client.port(named: thru, sending: true)
                try client.connect(source, to: target)
            }
            if play != nil {
                // The song's events and the recording share one queue, so they share one clock.
                midi = try MIDIOptions.open(client: client, sampleRate: SongGraph.Settings().sampleRate,
                                             port: playTo.lowercased() == "synth" ? nil : playTo, routes: routes, sync: plan)
            }
            input = try SequencerInput(client: client, queue: midi?.output.queueID)
            try input.listen(to: source)
            say("recording from \(source.address) (\(source.clientName): \(source.name)) into \(output)")
        } catch let error as SequencerError {
            throw fail(error.description)
        }

        var playback: (any PlaybackSession)?
        if let play, let opened = midi {
            let font = opened.routing.usesSynth ? SoundFontChoice.choose(explicit: soundfont) : nil
            var settings = SongGraph.Settings()
            settings.engine = synth
            settings.loadWholeFont = thru?.lowercased() == "synth"   // what arrives may play any preset and key
            playback = try Play.start(sequence: sequence, title: play, font: font, settings: &settings, midi: opened,
                                      audio: audio, quiet: true, interruption: interruption, volume: 1).0
            say("playing \(play) to \(playTo)")
        }
        // Thru to the synth: the song's own synth when it plays through one, else a synth of its own.
        var thruSynth: LiveMIDI?
        var thruPlayback: (any PlaybackSession)?
        if thru?.lowercased() == "synth" {
            if let song = playback as? AudioPlayback {
                thruSynth = song.graph.live
            } else {
                var settings = SongGraph.Settings()
                settings.engine = synth
                settings.loadWholeFont = true   // what arrives may play any preset and key
                let (started, _) = try Play.start(sequence: MusicSequence(), title: "MIDI thru", font: SoundFontChoice.choose(explicit: soundfont), settings: &settings,
                                                  midi: nil, audio: audio, quiet: true, interruption: interruption, volume: 1)
                thruPlayback = started
                thruSynth = (started as? AudioPlayback)?.graph.live
            }
            say("passing what arrives on to the synth")
        }
        input.start(startQueue: midi == nil, thru: thruSynth.map { live in { live.send($0) } })

        let started = Date()
        var outputFailure: String?   // the audio output died: keep what was recorded, then say so
        while true {
            usleep(20_000)
            for line in midi?.news.take() ?? [] { say(line) }
            if interruption.signal != nil { break }
            if let failure = playback?.fatalError ?? thruPlayback?.fatalError {
                outputFailure = failure
                break
            }
            if let duration, Date().timeIntervalSince(started) >= duration { break }
            if let playback, duration == nil, playback.hasFinished { break }
        }
        playback?.stopNow()
        thruPlayback?.stopNow()
        if let playback, let play { for warning in playback.warnings(song: play) { printError(warning) } }
        let arrivals = input.stop()

        // Arrival times to ticks of the file's tempo map, from the song's (or recording's) start.
        let map = sequence.tempoMap
        var track = MusicTrack(name: "Recorded")
        func seconds(_ arrival: SequencerInput.Arrival) -> Double {
            midi.map { $0.output.playerSeconds(atQueueTime: arrival.nanoseconds) } ?? Double(arrival.nanoseconds) / 1e9
        }
        // Clock, transport and timecode have no place in a Standard MIDI File; the log keeps them.
        let kept = arrivals.filter { !$0.message.isSystem }
        for arrival in kept {
            let seconds = seconds(arrival)
            track.insert(MIDIEvent(tick: map.tick(atSeconds: max(0, seconds)), arrival.message))
        }
        sequence.addTrack(track)
        try OutputFile.write(sequence.midiFile().serialized(), to: output, force: force, while: "recording")
        if let log {
            let lines = arrivals.map { seconds($0).fixed(6) + " " + $0.message.wireBytes.map(\.hex).joined(separator: " ") }
            guard FileManager.default.createFile(atPath: log, contents: Data((lines.joined(separator: "\n") + "\n").utf8)) else {
                throw fail("\(log): cannot write the log: \(String(cString: strerror(errno)))")
            }
        }
        say("wrote \(output): \(kept.count) event\(kept.count == 1 ? "" : "s")")
        if let outputFailure { throw fail(outputFailure) }
        if let signal = interruption.signal { throw ExitCode(128 + signal) }
    }

    /// One line on a `--duration` that is not more than 0 and at most a day (record and receive).
    static func check(duration: Double?) throws {
        if let duration, !(duration > 0 && duration <= 86_400) { throw fail("--duration \(duration): use more than 0 and at most 86400 seconds") }
    }

    /// One line on a number out of its range or an option that needs `--play`.
    func checkNumbers() throws {
        guard tempo >= 10 && tempo <= 1000 else { throw fail("--tempo \(tempo): use 10 to 1000 beats per minute") }
        guard (24...32_767).contains(ppq) else { throw fail("--ppq \(ppq): use 24 to 32767") }
        try Record.check(duration: duration)
        try audio.check()
        if play == nil && (!route.isEmpty || sync.sendsSync || !sync.portLatency.isEmpty || playTo.lowercased() != "synth") {
            throw fail("--route, --clock, --mtc, --port-latency and --play-to need --play SONG")
        }
    }
}
