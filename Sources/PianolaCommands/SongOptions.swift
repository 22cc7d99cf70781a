import ArgumentParser
import AudioFile
import FoundationEssentials
import Glibc
import MIDI
import Pianola

/// The options `render` and `play` share: the SoundFont, synthesis and what of the song to play.
struct SongOptions: ParsableArguments {
    @Option(help: "SoundFont (.sf2, .sf3) or DLS bank (default: \(SoundFontChoice.rule)).")
    var soundfont: String?

    @Option(help: ArgumentHelp("Synthesizer: pianola (Pianola's own: every note on its exact frame; a DLS bank goes to libfluidsynth) or fluidsynth (libfluidsynth: notes on 64-frame block edges).", valueName: "engine"))
    var synth: SynthesisEngine = .pianola

    @Option(parsing: .unconditional, help: "Sample rate in Hz.")
    var sampleRate = 48_000

    @Option(help: "Reverb: on or off.")
    var reverb: Switch = .on

    @Option(help: "Chorus: on or off.")
    var chorus: Switch = .on

    @Option(parsing: .unconditional, help: "Most voices sounding at once.")
    var polyphony = 256

    @Option(parsing: .unconditional, help: "Synthesizer output gain.")
    var gain = 0.2

    @Option(parsing: .unconditional, help: ArgumentHelp("Play the song (or the --from/--to region) this many times in all; play (not render) also takes forever (or 0), to play it until you move on.", valueName: "n"))
    var loop = "1"

    @Option(parsing: .unconditional, help: "Tempo in percent of the written tempo.")
    var tempo = 100

    @Option(parsing: .unconditional, help: "Transpose by semitones (drums on channel 10 stay).")
    var transpose = 0

    @Option(help: ArgumentHelp("Tracks to silence: numbers as 'info' lists them, ranges and names, comma-separated (2,5-7,Drums); repeatable.", valueName: "tracks"))
    var mute: [String] = []

    @Option(help: ArgumentHelp("Tracks to hear alone, as --mute names them.", valueName: "tracks"))
    var solo: [String] = []

    @Option(help: ArgumentHelp("Channels to silence on every track: 1 to 16 and ranges, comma-separated (10 for the drums).", valueName: "channels"))
    var muteChannel: [String] = []

    @Option(help: ArgumentHelp("Channels to hear alone (with any --solo tracks).", valueName: "channels"))
    var soloChannel: [String] = []

    @Option(parsing: .unconditional, help: "Start here: seconds or bar:beat.")
    var from: String?

    @Option(parsing: .unconditional, help: "Stop here: seconds or bar:beat.")
    var to: String?

    @OptionGroup var choice: SongChoice

    @Option(help: ArgumentHelp("Play these tracks (as --mute names them) on an LV2 instrument instead of the SoundFont: TRACKS=PLUGIN[,SYMBOL=VALUE…], the plugin by URI or name and its control ports by symbol ('2,Piano=mda piano,random_detuning=0', '3=lv2:http://drobilla.net/plugins/mda/JX10'); repeatable.", valueName: "tracks=plugin"))
    var instrument: [String] = []

    @Option(name: .customLong("fx"), help: ArgumentHelp("An effect on the output: a built-in or an LV2 plugin (its URI or name) and its parameters after commas ('lowpass,cutoff=800', 'peak,frequency=2.5kHz,gain=-6dB', 'http://drobilla.net/plugins/mda/Delay,l_delay=0.3'); repeat for a chain, in order. Put tracks or channels on a bus of their own with --route's selectors before a colon ('track2:lowpass,cutoff=800', 'ch10:compressor', 'track3/ch1,track4:eq'): they play on a synthesizer of their own, through that chain. 'pianola effects' and 'pianola plugins' list them.", valueName: "spec"))
    var effects: [String] = []

    @Option(name: .customLong("with"), help: ArgumentHelp("An audio file to play with the song (WAV, FLAC, Ogg, Opus, MP3…), from its start or from @POSITION (seconds or bar:beat). Repeatable.", valueName: "file[@position]"))
    var audioFiles: [String] = []

    /// Reads the song (warnings on stderr), checks every option, chooses the SoundFont.
    func load(_ song: String) throws -> (MusicSequence, SoundFontChoice, SongGraph.Settings) {
        try checkRanges()
        let sequence = MusicSequence(file: try read(song))
        let settings = try settings(for: sequence, song: song)
        guard let font = SoundFontChoice.choose(explicit: soundfont) else {
            throw fail(SoundFontChoice.notFound())
        }
        return (sequence, font, settings)
    }

    /// The song at `path` (the one `--song` names), its warnings said on stderr; one line
    /// when it cannot be read.
    func read(_ path: String) throws -> MIDIFile {
        let file: MIDIFile
        do { file = try MIDIFile(contentsOf: path) } catch { throw fail(error.description) }
        for warning in file.warnings { printError("\(path): warning: \(warning)") }
        return try choice.pick(file, path: path)
    }

    /// The graph's settings for `sequence` (read from `song`): every option but the font,
    /// checked against the song. Touches no file.
    func settings(for sequence: MusicSequence, song: String) throws -> SongGraph.Settings {
        let tracks = TrackSelection(sequence: sequence, song: song)
        var settings = SongGraph.Settings()
        settings.mutedTracks = try tracks.tracks(mute)
        settings.soloTracks = try tracks.tracks(solo)
        settings.mutedChannels = try TrackSelection.channels(muteChannel, option: "--mute-channel")
        settings.soloChannels = try TrackSelection.channels(soloChannel, option: "--solo-channel")
        if !tracks.anyNoteHeard(settings) { printError("\(song): warning: the mutes and solos leave no note to hear") }
        settings.sampleRate = sampleRate
        settings.engine = synth
        settings.reverb = reverb == .on
        settings.chorus = chorus == .on
        settings.polyphony = polyphony
        settings.gain = gain
        settings.plays = try plays()
        settings.tempoPercent = tempo
        settings.transpose = transpose
        if let from {
            settings.fromTick = try position(from, "--from", in: sequence)
            guard settings.fromTick < sequence.length else {
                throw fail("--from \(from) is at or after the end of \(song) (\(sequence.durationSeconds.formatted2) s)")
            }
        }
        if let to { settings.toTick = try position(to, "--to", in: sequence) }
        if let end = settings.toTick, end <= settings.fromTick { throw fail("--to \(to!) is not after --from \(from ?? "0")") }
        (settings.effects, settings.effectBuses) = try effectChains(trackCount: sequence.tracks.count, secondsPerQuarter: settings.secondsPerQuarter(in: sequence))
        settings.instruments = try instrument.compactMap { text in try instrumentRoute(text, tracks: tracks) }
        try checkBuses(settings, of: sequence, song: song)
        for text in audioFiles {
            // FILE@POSITION when what follows the last @ is a position; else the whole is the file.
            if let at = text.lastIndex(of: "@"), let tick = quietPosition(String(text[text.index(after: at)...]), in: sequence) {
                if tick > sequence.length {
                    let gap = sequence.tempoMap.seconds(atTick: tick) - sequence.durationSeconds
                    printError("--with \(text): starts \(gap.formatted2) s after \(song) ends; silence fills the gap")
                }
                settings.audioFiles.append(.init(path: String(text[..<at]), tick: tick))
            } else {
                settings.audioFiles.append(.init(path: text))
            }
        }
        return settings
    }

    /// One `--instrument TRACKS=PLUGIN[,SYMBOL=VALUE…]`, its tracks found in the song and its
    /// plugin and values checked; one line for what is wrong. Nil (with a warning) for a
    /// plugin that crashed, hung or gave bad output when tried in a child process: its tracks
    /// play on the SoundFont.
    func instrumentRoute(_ text: String, tracks: TrackSelection) throws -> SongGraph.InstrumentRoute? {
        guard let split = text.firstIndex(of: "="), split != text.startIndex else {
            throw fail("--instrument \(text): give TRACKS=PLUGIN, e.g. 2=mda piano")
        }
        let spec: InstrumentSpec
        do { spec = try InstrumentSpec(String(text[text.index(after: split)...])) } catch { throw fail("--instrument \(text): \(error.reason)") }
        guard PluginChecks.loadable(spec.plugin, as: "--instrument") else { return nil }
        return SongGraph.InstrumentRoute(tracks: try tracks.tracks([String(text[..<split])]), instrument: spec)
    }

    /// Fails in one line on a number out of its range, before any file is read.
    func checkRanges() throws {
        guard (8_000...384_000).contains(sampleRate) else { throw fail("--sample-rate \(sampleRate): use 8000 to 384000 Hz") }
        guard (1...65_535).contains(polyphony) else { throw fail("--polyphony \(polyphony): use 1 to 65535 voices") }
        guard gain >= 0 && gain <= 10 else { throw fail("--gain \(gain): use 0 to 10") }
        _ = try plays()
        guard (10...1000).contains(tempo) else { throw fail("--tempo \(tempo): use 10 to 1000 percent") }
        guard (-48...48).contains(transpose) else { throw fail("--transpose \(transpose): use -48 to 48 semitones") }
        _ = try effectChains()
    }

    /// `--fx`: the output's chain, and the buses of the specs that name tracks or channels
    /// (`track2:…`, `ch10:…`; specs with the same selectors make one bus's chain, in order),
    /// each read and checked against the sample rate, the song's tracks and tempo (a quarter
    /// note's seconds; before the song is read, nil); one line for the first that is wrong.
    func effectChains(trackCount: Int = 65_535, secondsPerQuarter: Double? = nil) throws -> (master: [EffectSpec], buses: [SongGraph.EffectBus]) {
        var master: [EffectSpec] = [], buses: [SongGraph.EffectBus] = []
        for text in effects {
            let (selectorText, specText) = Self.busPrefix(text)
            let spec: EffectSpec
            do { spec = try EffectSpec(specText) } catch { throw fail("--fx \(error)") }
            if let problem = spec.problem(atSampleRate: sampleRate, secondsPerQuarter: secondsPerQuarter) { throw fail("--fx \(problem)") }
            if let plugin = spec.plugin, !PluginChecks.loadable(plugin, as: "--fx") { continue }
            guard let selectorText else {
                master.append(spec)
                continue
            }
            let selectors = try selectorText.split(separator: ",").map { part in
                let rule: Routing.Rule
                do { rule = try MIDIPortPlan.rule(String(part), target: .synth, trackCount: trackCount, in: text, option: "--fx") } catch let error as MIDIPortError { throw fail(error.description) }
                return SongGraph.EffectBus.Selector(tracks: rule.tracks, channels: rule.channels)
            }
            if let index = buses.firstIndex(where: { $0.selectors == selectors }) {
                buses[index].effects.append(spec)
            } else {
                buses.append(SongGraph.EffectBus(selectors, effects: [spec]))
            }
        }
        return (master, buses)
    }

    /// A spec's bus selectors (`track2/ch10,ch3` before a colon) and the rest; no selectors
    /// when what comes before the first colon is not made of them (a URI's `http:`).
    static func busPrefix(_ text: String) -> (selectors: String?, spec: String) {
        guard let colon = text.firstIndex(of: ":") else { return (nil, text) }
        let prefix = text[..<colon].lowercased()
        let isSelector = { (part: Substring) in
            part.split(separator: "/").allSatisfy { piece in
                ["track", "ch"].contains { piece.hasPrefix($0) && piece.dropFirst($0.count).first?.isNumber == true }
            }
        }
        guard !prefix.isEmpty, prefix.split(separator: ",", omittingEmptySubsequences: false).allSatisfy(isSelector) else { return (nil, text) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]).trimmed)
    }

    /// Fails in one line where two effect buses take the same events, or a bus takes an LV2
    /// instrument's tracks; warns of a bus that takes no note.
    func checkBuses(_ settings: SongGraph.Settings, of sequence: MusicSequence, song: String) throws {
        func name(_ bus: SongGraph.EffectBus) -> String {
            func range(_ prefix: String, _ range: ClosedRange<Int>?) -> String? {
                range.map { prefix + ($0.count == 1 ? "\($0.lowerBound + 1)" : "\($0.lowerBound + 1)-\($0.upperBound + 1)") }
            }
            return bus.selectors.map { [range("track", $0.tracks), range("ch", $0.channels)].compactMap { $0 }.joined(separator: "/") }.joined(separator: ",")
        }
        let instrumentTracks = Set(settings.instruments.flatMap(\.tracks))
        var heard = Set<Int>()
        for (t, track) in sequence.tracks.enumerated() {
            let channels = Set(track.notes.map(\.channel))
            for channel in Set(track.channels.map { Int($0) }).sorted() {
                let takers = settings.effectBuses.indices.filter { settings.effectBuses[$0].takes(track: t, channel: channel) }
                if takers.count > 1 {
                    throw fail("--fx '\(name(settings.effectBuses[takers[0]])):…' and --fx '\(name(settings.effectBuses[takers[1]])):…' both take track \(t + 1)'s channel \(channel + 1); give each track and channel one bus")
                }
                guard let taker = takers.first else { continue }
                if instrumentTracks.contains(t) {
                    throw fail("--fx '\(name(settings.effectBuses[taker])):…': track \(t + 1) plays on an LV2 instrument (--instrument), whose sound takes the output's effects only")
                }
                if channels.contains(channel) { heard.insert(taker) }
            }
        }
        for index in settings.effectBuses.indices where !heard.contains(index) {
            printError("\(song): warning: --fx '\(name(settings.effectBuses[index])):…' takes no note of this song")
        }
    }

    /// `--loop`: the times to play, 0 for forever; one line for anything else.
    func plays() throws -> Int {
        if loop == "forever" { return 0 }
        guard let count = Int(loop), (0...1000).contains(count) else { throw fail("--loop \(loop): play 1 to 1000 times, or forever (0)") }
        return count
    }

    /// A tick from `12.5` or `3:1[:tick]`, `nil` for anything else.
    func quietPosition(_ text: String, in sequence: MusicSequence) -> Int? {
        try? sequence.tick(atPosition: text)
    }

    /// A tick from `12.5` (seconds) or `3:1[:tick]` (bar:beat from 1).
    func position(_ text: String, _ option: String, in sequence: MusicSequence) throws -> Int {
        do { return try sequence.tick(atPosition: text) } catch { throw fail("\(option) \(text): \(error)") }
    }
}

/// `on` or `off`.
extension SynthesisEngine: ExpressibleByArgument {}

enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
}
