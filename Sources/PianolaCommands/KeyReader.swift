import ALSA
import ArgumentParser
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc
import MIDI
import Pianola

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
