import Engine
import Playback
import Sequencing
#if canImport(Glibc)
import Glibc
#endif

extension SongGraph {
    /// Plays `sequence` once through `device` on `driver` (the default driver's default device
    /// when `nil`: see `AudioDriver.defaultDriver`) with `soundFont`, and returns
    /// when the music and its tail have played out: what a script that plays a file needs.
    /// It renders on one thread whatever `settings.threads` says: a split song's render thread
    /// waits for its other parts, which a device's thread must never do. Throws one line if the
    /// font, an audio file or the device fails. Control thread (it blocks).
    public static func playThrough(_ sequence: MusicSequence, soundFont: FileSource, settings: Settings, driver: AudioDriver? = nil, device: String? = nil) throws {
        try playThrough(sequence, soundFont: soundFont, settings: settings, ports: nil, driver: driver, device: device)
    }

    /// Plays `sequence` once as `playThrough` does, with `ports`: what they route goes to
    /// MIDI ports in time with the audio, clock and timecode go out, a followed clock leads
    /// (the song waits for its Start); when nothing goes to the synthesizer, the song plays
    /// to the ports alone and no audio device is opened. Returns when it has played out.
    /// Control thread (it blocks).
    public static func playThrough(_ sequence: MusicSequence, soundFont: FileSource, settings: Settings, ports: MIDIPorts?,
                                   driver: AudioDriver? = nil, device: String? = nil) throws {
        if let ports, !ports.routing.usesSynth, settings.audioFiles.isEmpty {
            let player = ports.startPlaying(sequence, settings: settings).player
            while !player.isFinished { usleep(10_000) }
            ports.output.finish()
            return
        }
        var configuration = AudioOutputConfiguration()
        configuration.device = device
        configuration.sampleRate = settings.sampleRate
        configuration.periodFrames = 512
        let output = try AudioDriver.open(driver, configuration: configuration)
        var settings = settings
        settings.sampleRate = output.format.sampleRate
        settings.threads = 1
        settings.startsPlaying = ports?.follow == nil
        let song = try SongGraph(sequence: sequence, soundFont: soundFont, settings: settings, maxFrames: max(4096, output.format.periodFrames),
                                 routing: ports?.routing ?? Routing(), external: ports?.destinations ?? [], sync: ports?.sync ?? SyncDestinations())
        let follower = ports?.follower(for: song.player, sampleRate: settings.sampleRate)
        if let follower { song.graph.add(follower) }
        _ = output.start(pulling: song.graph)
        ports?.output.start(following: output)
        ports?.startFollowing(follower, sampleRate: settings.sampleRate)
        defer {
            ports?.output.finish()
            output.stop(drain: true)
        }
        while !(song.player.isFinished && output.framesWritten >= song.maximumFrames) {
            if let failure = output.failure { throw AudioOutputError(failure) }
            usleep(10_000)
        }
    }
}
