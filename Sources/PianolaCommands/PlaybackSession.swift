import ALSA
import ArgumentParser
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc
import MIDI
import Pianola

/// What the play loop drives: a song through the synthesizer and an audio device (and
/// perhaps ports too), or to MIDI ports alone.
protocol PlaybackSession {
    /// The song's player.
    var player: MusicPlayer { get }
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
struct AudioPlayback: PlaybackSession {
    let graph: SongGraph
    let output: any AudioOutput
    let midi: MIDIOptions.Opened?
    let follower: (any PlayerFollower)?

    var player: MusicPlayer { graph.player }
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
struct MIDIPlayback: PlaybackSession {
    let player: MusicPlayer
    let midi: MIDIOptions.Opened
    let follower: (any PlayerFollower)?

    init(sequence: MusicSequence, settings: SongGraph.Settings, midi: MIDIOptions.Opened) {
        self.midi = midi
        (player, follower) = midi.startPlaying(sequence, settings: settings)
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
