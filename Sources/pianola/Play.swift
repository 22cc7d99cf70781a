import ALSA
import ArgumentParser
import Dispatch
import Foundation
import MIDI
import Pianola

/// `pianola play`: songs through an ALSA device in real time, through the same graph and
/// player as `render`.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play MIDI files through an ALSA audio device.",
        discussion: "Ctrl-C stops cleanly: every note is released and the device is stopped.")

    @Argument(help: "The MIDI files, played in turn.")
    var songs: [String]

    @OptionGroup var options: SongOptions

    @Option(help: "ALSA PCM device: default, hw:1,0, plughw:…, or any PCM of your ALSA configuration.")
    var device = "default"

    @Option(help: "Frames per period asked of the device.")
    var period = 256

    @Option(help: "Periods in the device buffer.")
    var periods = 3

    @Flag(help: "No status line.")
    var quiet = false

    func validate() throws {
        guard !songs.isEmpty else { throw fail("give at least one MIDI file to play") }
    }

    func run() throws {
        guard (16...65_536).contains(period) else { throw fail("--period \(period): use 16 to 65536 frames") }
        guard (2...64).contains(periods) else { throw fail("--periods \(periods): use 2 to 64") }
        let interruption = Interruption()
        for song in songs {
            let status = try play(song, interruption: interruption)
            if let status { throw ExitCode(status) }
        }
    }

    /// Plays one song; returns the exit status when interrupted.
    func play(_ song: String, interruption: Interruption) throws -> Int32? {
        var (sequence, font, settings) = try options.load(song)
        var configuration = PCMOutput.Configuration()
        configuration.device = device
        configuration.sampleRate = settings.sampleRate
        configuration.periodFrames = period
        configuration.periods = periods
        let output: PCMOutput
        do { output = try PCMOutput(configuration: configuration) } catch { throw fail(error.description) }
        settings.sampleRate = output.negotiated.sampleRate
        settings.tailSeconds = 2
        let graph: SongGraph
        do {
            graph = try SongGraph(sequence: sequence, soundFontPath: font.path, settings: settings, maxFrames: max(4096, output.negotiated.periodFrames))
        } catch {
            throw fail(error.description)
        }
        let status = StatusLine(enabled: !quiet, terminal: isatty(STDOUT_FILENO) == 1, title: song, sequence: sequence)
        status.say("SoundFont: \(font.path) (\(font.source)); \(device): \(output.negotiated.sampleRate) Hz \(output.negotiated.format), \(output.negotiated.periodFrames) × \(output.negotiated.bufferFrames / max(1, output.negotiated.periodFrames)) frames")
        if let note = output.start(pulling: graph.graph) { printError(note) }
        var interrupted: Int32?
        while true {
            usleep(50_000)
            status.update(tick: graph.player.currentTick)
            if let signal = interruption.signal {
                // Release every note, let the release reach the device, then stop it.
                graph.player.stop()
                usleep(useconds_t(min(1_000_000, 1_000_000 * (output.negotiated.bufferFrames * 2) / output.negotiated.sampleRate + 50_000)))
                output.stop(drain: false)
                interrupted = 128 + signal
                break
            }
            if let error = output.fatalError {
                output.stop(drain: false)
                status.finish()
                throw fail(error.description)
            }
            if graph.player.isFinished && output.framesWritten >= graph.maximumFrames {
                output.stop(drain: true)
                break
            }
        }
        status.finish()
        if output.underruns > 0 { printError("\(output.underruns) underrun\(output.underruns == 1 ? "" : "s") recovered while playing \(song)") }
        return interrupted
    }
}

/// SIGINT and SIGTERM, caught so that play can stop cleanly.
final class Interruption: @unchecked Sendable {
    // @unchecked Sendable: `received` is only touched on the main queue's signal sources and
    // read by the main thread through `signal`, guarded by the lock.
    private let lock = NSLock()
    private var received: Int32?
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.lock.lock()
                if self.received == nil { self.received = number }
                self.lock.unlock()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal received, if any.
    var signal: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return received
    }
}

/// The live status line: title, elapsed / total, bar:beat, tempo. On a terminal one line
/// redrawn in place; otherwise a plain line every ten seconds.
final class StatusLine {
    private let enabled: Bool
    private let terminal: Bool
    private let title: String
    private let sequence: Sequence
    private let tempoMap: TempoMap
    private let meterMap: MeterMap?
    private var lastPlain = -10.0
    private var drawn = false

    init(enabled: Bool, terminal: Bool, title: String, sequence: Sequence) {
        self.enabled = enabled
        self.terminal = terminal
        self.title = title
        self.sequence = sequence
        tempoMap = sequence.tempoMap
        meterMap = sequence.meterMap
    }

    func say(_ line: String) {
        guard enabled else { return }
        print(line)
        fflush(nil)
    }

    func update(tick: Int) {
        guard enabled else { return }
        let seconds = tempoMap.seconds(atTick: tick)
        var text = "\(title)  \(Info.clock(seconds)) / \(Info.clock(sequence.durationSeconds))"
        if let position = meterMap?.position(atTick: tick) { text += "  bar \(position.bar):\(position.beat)" }
        text += "  \(tempoMap.segment(atTick: tick).beatsPerMinute.formatted2) bpm"
        if terminal {
            print("\r\(text)\u{1B}[K", terminator: "")
            drawn = true
        } else if seconds - lastPlain >= 10 {
            print(text)
            lastPlain = seconds
        }
        fflush(nil)
    }

    func finish() {
        guard enabled, terminal, drawn else { return }
        print("")
        fflush(nil)
    }
}
