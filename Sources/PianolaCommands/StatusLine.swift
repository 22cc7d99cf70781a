import ALSA
import ArgumentParser
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc
import MIDI
import Pianola

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
