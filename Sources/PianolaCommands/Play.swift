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

    /// Plays one song until it ends, a key moves on, or a signal arrives. A song that cannot
    /// be read or set up is skipped after its one line, unless it is the only one.
    func play(_ song: String, position: String?, interruption: Interruption, keys: KeyReader?, volume: inout Float) throws -> Outcome {
        var sequence: MusicSequence, font: SoundFontChoice, settings: SongGraph.Settings
        do { (sequence, font, settings) = try options.load(song) } catch where position != nil { return .skipped }
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
                      volume: Float) throws -> (any Playback, StatusLine) {
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
            throw fail("\(error)")   // a SynthesizerError or an AudioFileError, one line
        }
        try midi?.waitForSubscribers(interruption: interruption, status: status)
        let n = output.format
        let source = " (\(font.source))"
        status.say("SoundFont: \(font.path.shortened(to: 100 - "SoundFont: ".count - source.count))\(source)")
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

/// The audio device options of `play` and `record --play`.
struct AudioDeviceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("\(AudioDriver.choices) (default: \(AudioOutputs.defaultChoice)).", valueName: "driver"))
    var driver: AudioDriver?

    @Option(help: "ALSA: a PCM (default, hw:1,0, plughw:…). JACK: a client, or ports separated by commas. See `pianola devices`.")
    var device: String?

    @Option(help: "Frames per period asked of the device (JACK uses the server's).")
    var period = 256

    @Option(help: "Periods in the device buffer (ALSA).")
    var periods = 3

    @Flag(help: "JACK: connect to nothing (patch the ports yourself).")
    var noConnect = false

    /// Exits with one line when a value is out of range.
    func check() throws {
        guard (16...65_536).contains(period) else { throw fail("--period \(period): use 16 to 65536 frames") }
        guard (2...64).contains(periods) else { throw fail("--periods \(periods): use 2 to 64") }
    }

    /// Opens the output asked for at `sampleRate` (or the rate the server runs at); exits with one line when it cannot.
    func open(sampleRate: Int) throws -> any AudioOutput {
        var configuration = AudioOutputConfiguration()
        configuration.device = device
        configuration.sampleRate = sampleRate
        configuration.periodFrames = period
        configuration.periods = periods
        configuration.connect = !noConnect
        do { return try AudioOutputs.open(driver, configuration: configuration) } catch { throw fail(error.description) }
    }
}

extension AudioDriver: ExpressibleByArgument {
    /// The drivers by the names --driver takes: "alsa, pipewire or jack". Any thread.
    static var choices: String {
        let names = allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}

/// What the play loop drives: a song through the synthesizer and an audio device (and
/// perhaps ports too), or to MIDI ports alone.
protocol Playback {
    /// The song's player.
    var player: Player { get }
    /// What makes it follow a master (`--sync`'s clock, `--jack-transport`), if anything.
    var follower: (any PlayerFollower)? { get }
    /// Sets the output volume (audio only).
    func setVolume(_ gain: Float)
    /// Releases every note, lets the releases out, and stops.
    func stopNow()
    /// Whether the song and its tail have played out.
    var hasFinished: Bool { get }
    /// Lets what is left play out, after `hasFinished`.
    func finish()
    /// A failure that ended playing, one line.
    var fatalError: String? { get }
    /// Lines to print when the song is over (underruns, lost events).
    func warnings(song: String) -> [String]
}

/// A song through the synthesizer to an audio device, with routed events to MIDI ports.
struct AudioPlayback: Playback {
    let graph: SongGraph
    let output: any AudioOutput
    let midi: MIDIOptions.Opened?
    let follower: (any PlayerFollower)?

    var player: Player { graph.player }
    func setVolume(_ gain: Float) { graph.setVolume(gain) }

    func stopNow() {
        follower?.standDown()
        graph.player.stop()
        usleep(useconds_t(min(1_000_000, 1_000_000 * (output.format.bufferFrames * 2) / output.format.sampleRate + 50_000)))
        midi?.output.finish(timeout: 1)
        output.stop(drain: false)
    }

    /// The song ended and its tail has played since (a pause, or a master standing still,
    /// puts the end later than the song's length), and so have the audio files.
    var hasFinished: Bool {
        guard let end = graph.player.finishTime else { return false }
        return output.framesWritten >= max(end + graph.maximumFrames - graph.musicFrames, graph.maximumFrames)
    }

    func finish() {
        midi?.output.finish()
        output.stop(drain: true)
    }

    var fatalError: String? { output.failure }

    func warnings(song: String) -> [String] {
        var lines: [String] = []
        if output.underruns > 0 { lines.append("\(output.underruns) underrun\(output.underruns == 1 ? "" : "s") recovered while playing \(song)") }
        if let midi { lines += midi.warnings(song: song) }
        return lines
    }
}

/// A song to MIDI ports alone: the sequencer output runs the player from the clock.
struct MIDIPlayback: Playback {
    let player: Player
    let midi: MIDIOptions.Opened
    let follower: (any PlayerFollower)?

    init(sequence: MusicSequence, settings: SongGraph.Settings, midi: MIDIOptions.Opened) {
        let routes = midi.routing.destinations(trackCount: sequence.tracks.count, synth: nil, external: midi.destinations)
        player = Player(sequence: sequence, sampleRate: settings.sampleRate, destinations: routes.destinations, trackDestinations: routes.trackDestinations, sync: midi.sync)
        self.midi = midi
        settings.configure(player, for: sequence)
        let follower = midi.follower(for: player, sampleRate: settings.sampleRate)
        self.follower = follower
        if let follower {
            midi.output.start(driving: SchedulerChain([follower, player]))
            midi.startFollowing(follower, sampleRate: settings.sampleRate)
        } else {
            player.start()
            midi.output.start(driving: player)
        }
    }

    func setVolume(_ gain: Float) {}

    func stopNow() {
        follower?.standDown()
        player.stop()
        usleep(100_000)   // the sender hands the note-offs to the kernel
        midi.output.finish(timeout: 1)
    }

    var hasFinished: Bool { player.isFinished }
    func finish() { midi.output.finish() }
    var fatalError: String? { nil }

    func warnings(song: String) -> [String] { midi.warnings(song: song) }
}

/// SIGINT and SIGTERM, caught so that play can stop cleanly.
final class Interruption: @unchecked Sendable {
    // @unchecked Sendable: `received` is a Mutex, written by the signal sources' handlers (a
    // global queue) and read by the main thread; `sources` is set in init only.
    private let received = Mutex<Int32?>(nil)
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                self?.received.withLock { if $0 == nil { $0 = number } }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal received, if any.
    var signal: Int32? { received.withLock { $0 } }
}

/// The live status line: title, elapsed / total, bar:beat, tempo. On a terminal one line
/// redrawn in place; otherwise a plain line every ten seconds.
final class StatusLine {
    private let enabled: Bool
    private let terminal: Bool
    private let title: String
    private let sequence: MusicSequence
    private let tempoMap: TempoMap
    private let meterMap: MeterMap?
    private var lastPlain = -10.0
    private var drawn = false
    private var volumeShownUntil: ContinuousClock.Instant?
    private var volumeText = ""
    private let lyrics: [(seconds: Double, text: String)]   // the lyric lines, each from the time of its first syllable
    private var lyricShown: Int?                            // the lyric line drawn under the status line

    /// The status of `sequence`, called `title` (the song's name, else its file's), with
    /// "2/5 " before it when `position` says where it is in a playlist.
    init(enabled: Bool, terminal: Bool, title: String, sequence: MusicSequence, position: String? = nil) {
        self.enabled = enabled
        self.terminal = terminal
        self.title = (position.map { $0 + " " } ?? "") + title
        self.sequence = sequence
        tempoMap = sequence.tempoMap
        meterMap = sequence.meterMap
        lyrics = Info.lyricLines(SongSummary.lyrics(of: sequence))
    }

    /// What the status line calls a song: its name (the first track's name), else the file's.
    static func title(of sequence: MusicSequence, file: String) -> String {
        if let name = sequence.tracks.first?.name?.trimmed, !name.isEmpty { return name }
        return String(file.split(separator: "/").last ?? Substring(file))
    }

    func say(_ line: String) {
        guard enabled else { return }
        print(line)
        fflush(nil)
    }

    /// A line of news while playing, above the status line (shown even when quiet: it is
    /// about where the song goes).
    func note(_ line: String) {
        print((terminal && drawn ? "\r\u{1B}[K" : "") + line)
        fflush(nil)
    }

    /// Shows the volume (in dB) on the line for two seconds.
    func showVolume(_ gain: Float) {
        let decibels = 20 * log10(Double(max(gain, 1e-6)))
        volumeText = "vol \(decibels >= 0 ? "+" : "")\(decibels.fixed(1)) dB"
        volumeShownUntil = .now + .seconds(2)
    }

    /// Draws the line for the song at `tick`; with `following`, a stopped master shows as
    /// waiting, and the tempo is the master's when it sets one.
    func update(tick: Int, paused: Bool, following: (any PlayerFollower)? = nil) {
        guard enabled else { return }
        let seconds = tempoMap.seconds(atTick: tick)
        var rest = "  \(Info.clock(seconds)) / \(Info.clock(sequence.durationSeconds))"
        if paused { rest += "  [paused]" }
        if let following, !following.isRunning { rest += "  [waiting for \(following.waitingFor)]" }
        if let position = meterMap?.position(atTick: tick) { rest += "  bar \(position.bar):\(position.beat)" }
        if let followed = following?.followedTempo {
            rest += "  " + (followed.bpm.map { "\($0.formatted2) bpm" } ?? "? bpm") + " (\(followed.source))"
        } else {
            rest += "  \(tempoMap.segment(atTick: tick).beatsPerMinute.formatted2) bpm"
        }
        if let until = volumeShownUntil, ContinuousClock.now < until { rest += "  \(volumeText)" }
        if terminal {
            // Laid out again on every draw, so a resized terminal gets a line that fits it.
            let width = Self.columns()
            var text = title.shortened(to: max(8, width - 1 - rest.count)) + rest
            if text.count > width - 1 { text = String(text.prefix(max(1, width - 1))) }
            print("\r\(text)\u{1B}[K", terminator: "")
            // The lyric line being sung, on the line below; the cursor goes back up.
            let current = lyrics.lastIndex { $0.seconds <= seconds }
            if !lyrics.isEmpty {
                let lyric = current.map { String(lyrics[$0].text.prefix(max(1, width - 3))) } ?? ""
                print("\n  \(lyric)\u{1B}[K\u{1B}[1A\r", terminator: "")
                lyricShown = current
            }
            drawn = true
        } else if let current = lyrics.lastIndex(where: { $0.seconds <= seconds }), current != lyricShown {
            print("♪ \(Info.clock(seconds))  \(lyrics[current].text)")   // when it was shown, and the line
            lyricShown = current
        } else if seconds - lastPlain >= 10 {
            print(title + rest)
            lastPlain = seconds
        }
        fflush(nil)
    }

    /// The terminal's width in columns (80 when it does not say).
    static func columns() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    func finish() {
        guard enabled, terminal, drawn else { return }
        print(lyrics.isEmpty ? "" : "\n")
        fflush(nil)
    }
}

/// Single keys from a terminal: the terminal is put in non-canonical, no-echo mode (signals
/// still work) and restored by `restore`. `nil` when standard input is not a terminal.
final class KeyReader {
    enum Key { case space, left, right, up, down, next, previous, quit }

    private var saved = termios()
    private var restored = false

    init?() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }

    deinit { restore() }

    /// Puts the terminal back as it was.
    func restore() {
        guard !restored else { return }
        restored = true
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    /// The next key pressed, `nil` when none is waiting.
    func next() -> Key? {
        guard let byte = readByte() else { return nil }
        switch byte {
        case 0x20: return .space
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
        case UInt8(ascii: "n"): return .next
        case UInt8(ascii: "p"): return .previous
        case 0x1B:
            guard readByte() == UInt8(ascii: "["), let code = readByte() else { return nil }
            switch code {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            default: return nil
            }
        default: return nil
        }
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
    }
}
