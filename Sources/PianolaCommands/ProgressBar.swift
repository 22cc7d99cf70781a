import ArgumentParser
import AudioFile
import FoundationEssentials
import Glibc
import MIDI
import Pianola

/// A one-line progress bar on a terminal (`Console`): a bar, the percentage and what `detail`
/// says; nothing when output is not a terminal. Any thread, one at a time.
final class ProgressBar {
    let enabled: Bool
    private var shown = ""

    init(enabled: Bool = Console.shared.barShown) { self.enabled = enabled }

    func update(_ fraction: Double, detail: String = "") {
        guard enabled else { return }
        let percent = Int(min(1, max(0, fraction)) * 100)
        let filled = percent * 30 / 100
        let text = "[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 30 - filled))] \(percent)%\(detail.isEmpty ? "" : "  " + detail)"
        guard text != shown else { return }
        shown = text
        Console.shared.showBar(text)
    }

    func finish() {
        guard enabled else { return }
        Console.shared.showBar(nil)
    }
}
