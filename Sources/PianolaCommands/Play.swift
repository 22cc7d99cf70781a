import ALSA
import ArgumentParser
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc
import MIDI
import Pianola

/// `pianola play`: songs through an audio output in real time, through the same graph and
/// player as `render`.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play MIDI files through ALSA, PipeWire or JACK.",
        discussion: "Ctrl-C stops cleanly: every note is released and the device is stopped.")

    @Argument(help: "The MIDI files, or folders of them, played in turn.")
    var songs: [String]

    @Flag(help: "Play the songs in a random order.")
    var shuffle = false

    @OptionGroup var options: SongOptions

    @OptionGroup(title: "MIDI ports") var midiOptions: MIDIOptions

    @OptionGroup(title: "Audio device") var audio: AudioDeviceOptions

    @Flag(name: .customLong("jack-transport"), help: "Follow JACK's transport (with --driver jack): play while it rolls, from where it stands (the song's time at its written tempo), pause when it stops, move when it is located.")
    var jackTransport = false

    @Flag(help: "No status line.")
    var quiet = false

    func validate() throws {
        guard !songs.isEmpty else { throw fail("give at least one MIDI file to play") }
        if jackTransport {
            // The transport's frame is the song's time: what would move the song elsewhere is refused.
            let master = "with --jack-transport: the transport says where the song is"
            if midiOptions.sync.follow != nil { throw fail("--sync and --jack-transport: follow one master, a MIDI clock or JACK's transport") }
            if options.tempo != 100 { throw fail("--tempo \(options.tempo) \(master), at its written tempo") }
            if options.loop != "1" { throw fail("--loop \(options.loop) \(master); loop it in the program that moves the transport") }
            if let from = options.from { throw fail("--from \(from) \(master); locate the transport there (jack_transport's locate, or the DAW)") }
            if let file = options.audioFiles.first { throw fail("--with \(file) \(master), and an audio file plays on Pianola's own clock") }
        }
    }

    /// How one song's playing ended.
    enum Outcome {
        case finished, next, previous, quit
        /// The song could not be read or set up (said in one line); the playlist goes on.
        case skipped
        case interrupted(signal: Int32)
    }

    func run() throws {
        try audio.check()
        let chains = try options.effectChains()
        if let spec = (chains.master + chains.buses.flatMap(\.effects)).first(where: { !$0.isHardRealTime }) {
            throw fail("--fx '\(spec)': LV2 plugin '\(spec.name)' does not say it is hard real-time capable (lv2:hardRTCapable); it can render (pianola render) but not play live")
        }
        let interruption = Interruption()
        let keys = KeyReader()
        defer { keys?.restore() }
        var playlist = try songs.flatMap { argument -> [String] in
            var isFolder = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder), isFolder else { return [argument] }
            let found = try BatchPlan.songs(in: argument).map(\.path)
            guard !found.isEmpty else { throw fail("\(argument): no MIDI files (.mid, .midi, .kar, .smf) in this folder") }
            return found
        }
        if shuffle { playlist.shuffle() }
        var index = 0
        var volume: Float = 1
        var skipped: Set<Int> = []
        while index < playlist.count {
            let position = playlist.count > 1 ? "\(index + 1)/\(playlist.count)" : nil
            switch try play(playlist[index], position: position, interruption: interruption, keys: keys, volume: &volume) {
            case .finished, .next: index += 1
            case .skipped:
                skipped.insert(index)
                index += 1
            case .previous: index = max(0, index - 1)
            case .quit: return
            case .interrupted(let signal):
                keys?.restore()
                throw ExitCode(128 + signal)
            }
        }
        if !skipped.isEmpty { throw fail("\(skipped.count) of \(playlist.count) songs could not be played (each said above)") }
    }

    /// The line for an LV2 instrument in `settings` that does not say it is hard real-time, if any.
    static func notLive(_ settings: SongGraph.Settings) -> String? {
        settings.instruments.first { !$0.instrument.plugin.isHardRealTime }.map {
            "--instrument: LV2 plugin '\($0.instrument.plugin.name)' does not say it is hard real-time capable (lv2:hardRTCapable); it can render (pianola render) but not play live"
        }
    }

    /// Plays one song until it ends, a key moves on, or a signal arrives. A song that cannot
    /// be read or set up is skipped after its one line, unless it is the only one.
    func play(_ song: String, position: String?, interruption: Interruption, keys: KeyReader?, volume: inout Float) throws -> Outcome {
        var sequence: MusicSequence, font: SoundFontChoice, settings: SongGraph.Settings
        do { (sequence, font, settings) = try options.load(song) } catch where position != nil { return .skipped }
        if let line = Self.notLive(settings) { throw fail(line) }
        let midi = try midiOptions.open(trackCount: sequence.tracks.count, sampleRate: settings.sampleRate, interruption: interruption)
        let (playback, status) = try Play.start(sequence: sequence, title: StatusLine.title(of: sequence, file: song), position: position, font: font,
                                                settings: &settings, midi: midi, audio: audio, followingTransport: jackTransport, quiet: quiet,
                                                interruption: interruption, volume: volume)
        let player = playback.player
        var outcome = Outcome.finished
        var paused = false
        playing: while true {
            usleep(50_000)
            while let key = keys?.next() {
                let now = sequence.tempoMap.seconds(atTick: player.currentTick)
                // The followed master (a clock, JACK's transport) starts, stops and moves the song.
                if playback.follower != nil && [.space, .left, .right].contains(key) { continue }
                switch key {
                case .space:
                    if paused { player.start() } else { player.pause() }
                    paused.toggle()
                case .left: player.seek(toSeconds: max(0, now - 5))
                case .right: player.seek(toSeconds: now + 5)
                case .up, .down:
                    volume = max(0.01, min(4, volume * (key == .up ? 1.26 : 1 / 1.26)))   // ±2 dB
                    playback.setVolume(volume)
                    status.showVolume(volume)
                case .next: outcome = .next
                case .previous: outcome = .previous
                case .quit: outcome = .quit
                }
                if case .finished = outcome { continue }
                playback.stopNow()
                break playing
            }
            for line in midi?.news.take() ?? [] { status.note(line) }
            status.update(tick: player.currentTick, paused: paused, following: playback.follower)
            if let signal = interruption.signal {
                playback.stopNow()
                outcome = .interrupted(signal: signal)
                break
            }
            if let error = playback.fatalError {
                playback.stopNow()
                status.finish()
                throw fail(error)
            }
            if playback.hasFinished {
                playback.finish()
                break
            }
        }
        status.finish()
        for warning in playback.warnings(song: song) { printError(warning) }
        return outcome
    }
}

extension Play {
    /// Starts `sequence` playing: to MIDI ports alone when nothing is routed to the synth,
    /// else through the synth and the audio device (and to the ports `midi` routes to,
    /// in time with the audio). With `followingTransport`, the song follows the audio
    /// output's transport (JACK's). Prints the status line's opening lines.
    static func start(sequence: MusicSequence, title: String, position: String? = nil, font: SoundFontChoice?, settings: inout SongGraph.Settings,
                      midi: MIDIOptions.Opened?, audio: AudioDeviceOptions, followingTransport: Bool = false, quiet: Bool, interruption: Interruption,
                      volume: Float) throws -> (any PlaybackSession, StatusLine) {
        let status = StatusLine(enabled: !quiet, terminal: isatty(STDOUT_FILENO) == 1, title: title, sequence: sequence, position: position)
        if let midi, !midi.routing.usesSynth, settings.audioFiles.isEmpty {
            if followingTransport { throw fail("--jack-transport: nothing plays through JACK (every channel is routed to MIDI ports)") }
            try midi.waitForSubscribers(interruption: interruption, status: status)
            status.say("MIDI: \(midi.description)")
            return (MIDIPlayback(sequence: sequence, settings: settings, midi: midi), status)
        }
        guard let font else { throw fail("no SoundFont found: give --soundfont PATH or install fluid-soundfont-gm") }
        let output = try audio.open(sampleRate: settings.sampleRate)
        let transport = output as? any ExternalTransport
        if followingTransport && transport == nil {
            throw fail("--jack-transport: the audio goes to \(output.driver.displayName), which has no transport to follow; give --driver jack")
        }
        settings.sampleRate = output.format.sampleRate
        settings.tailSeconds = 2
        settings.startsPlaying = midi?.follow == nil && !followingTransport
        let graph: SongGraph
        do {
            graph = try SongGraph(sequence: sequence, soundFont: .path(font.path), settings: settings, maxFrames: max(4096, output.format.periodFrames),
                                  routing: midi?.routing ?? Routing(), external: midi?.destinations ?? [], sync: midi?.sync ?? SyncDestinations())
        } catch {
            throw fail("\(error)")   // a SynthesizerError, SoundFontError or AudioFileError, one line
        }
        try midi?.waitForSubscribers(interruption: interruption, status: status)
        let n = output.format
        let source = " (\(font.source))"
        status.say("SoundFont: \(font.path.shortened(to: 100 - "SoundFont: ".count - source.count))\(source)")
        if graph.engine == .pianola { status.say("Synthesizer: Pianola's own (every note on its exact frame)") }
        if let note = graph.engineNote { status.say("Synthesizer: libfluidsynth (\(note))") }
        let format = output.driver == .alsa ? ", \(n.sampleRate) Hz \(n.sampleFormat), \(n.periodFrames) × \(n.bufferFrames / max(1, n.periodFrames)) frames"
                                            : ", \(n.sampleRate) Hz, \(n.periodFrames)-frame periods"
        let name = output.driver == .alsa ? output.deviceName : "\(output.driver.displayName) \(output.deviceName)"
        status.say("Audio: \(name.shortened(to: 100 - "Audio: ".count - format.count))\(format)")
        if let midi { status.say("MIDI: \(midi.description)") }
        if followingTransport { status.say("Following JACK's transport: start, stop and locate it with jack_transport or a DAW") }
        if volume != 1 { graph.setVolume(volume) }
        let clockFollower = midi?.follower(for: graph.player, sampleRate: settings.sampleRate)
        let follower: (any PlayerFollower)? = followingTransport ? transport.map { TransportFollower(player: graph.player, transport: $0) } : clockFollower
        if let follower { graph.graph.add(follower) }
        if let note = output.start(pulling: graph.graph) { printError(note) }
        midi?.output.start(following: output)
        midi?.startFollowing(clockFollower, sampleRate: settings.sampleRate)
        return (AudioPlayback(graph: graph, output: output, midi: midi, follower: follower), status)
    }
}
