extension Soundtrack.Event: CustomStringConvertible {
    /// One line a person reads: what happened, to which song or sound (by its name), and on
    /// which frame of the music clock, as `beat 1 of bar 3 (3/4, 120 bpm) of songs/town.mid
    /// at frame 96000`. Any thread.
    public var description: String {
        switch self {
        case .marker(let song, let text, let time):
            "marker \"\(text)\" of \(song.name) at frame \(time)"
        case .beat(let song, let beat):
            "beat \(beat.beat) of bar \(beat.bar) (\(beat.beatsPerBar)/\(beat.beatUnit), \(Self.tempo(beat.bpm)) bpm"
                + (beat.section.map { ", section \"\($0)\"" } ?? "") + ") of \(song.name) at frame \(beat.sampleTime)"
        case .loopWrapped(let song, let time):
            "\(song.name) went back to its loop's start at frame \(time)"
        case .jumped(let song, let section, let time):
            "\(song.name) jumped to section \"\(section)\" at frame \(time)"
        case .transitioned(let from, let to, let section, let rule, let time):
            "transition \"\(rule)\" from \(from?.name ?? "silence") to \(to.name)" + (section.map { " (section \"\($0)\")" } ?? "") + " at frame \(time)"
        case .songStarted(let song, let section, let time):
            "\(song.name) started" + (section.map { " at section \"\($0)\"" } ?? "") + " at frame \(time)"
        case .songStopped(let song, let time):
            "\(song.name) stopped at frame \(time)"
        case .songEnded(let song, let time):
            "\(song.name) ended at frame \(time)"
        case .songLoaded(let song, let time):
            "\(song.name) loaded at frame \(time)"
        case .songLoadFailed(let song, let error, let time):
            "\(song.name) failed to load at frame \(time): \(error)"
        case .soundEffectLoaded(let effect, let time):
            "sound \(effect.name) loaded at frame \(time)"
        case .soundEffectLoadFailed(let effect, let error, let time):
            "sound \(effect.name) failed to load at frame \(time): \(error)"
        }
    }

    /// A tempo to the hundredth, with no needless decimals: 120, 92.5.
    private static func tempo(_ bpm: Double) -> String {
        let hundredths = (bpm * 100).rounded()
        return hundredths.truncatingRemainder(dividingBy: 100) == 0 ? String(Int(hundredths / 100)) : String(hundredths / 100)
    }
}
