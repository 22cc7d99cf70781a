import Engine
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
        var configuration = AudioOutputConfiguration()
        configuration.device = device
        configuration.sampleRate = settings.sampleRate
        configuration.periodFrames = 512
        let output = try AudioDriver.open(driver, configuration: configuration)
        var settings = settings
        settings.sampleRate = output.format.sampleRate
        settings.threads = 1
        let song = try SongGraph(sequence: sequence, soundFont: soundFont, settings: settings, maxFrames: max(4096, output.format.periodFrames))
        _ = output.start(pulling: song.graph)
        defer { output.stop(drain: true) }
        while !(song.player.isFinished && output.framesWritten >= song.maximumFrames) {
            if let failure = output.failure { throw AudioOutputError(failure) }
            usleep(10_000)
        }
    }
}
