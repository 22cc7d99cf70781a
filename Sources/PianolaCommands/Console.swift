import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Standard output and standard error as the user sees them: whole lines from any thread, in
/// the order they were printed, and on a terminal a progress bar kept on the last line
/// (cleared before a line is printed, drawn again after). Any thread.
final class Console: Sendable {
    /// The process's console. Any thread.
    static let shared = Console()

    /// Whether standard output is a terminal, where a progress bar can be drawn. Any thread.
    let barShown = isatty(STDOUT_FILENO) == 1
    private let bar = Mutex<String?>(nil)     // the bar drawn now

    /// Prints `line` on standard output. Any thread.
    func output(_ line: String) { printLine(line, fd: STDOUT_FILENO) }

    /// Prints `line` on standard error. Any thread.
    func error(_ line: String) { printLine(line, fd: STDERR_FILENO) }

    /// Draws `text` as the progress bar (on a terminal), replacing the one drawn, or clears
    /// it for `nil`. Any thread.
    func showBar(_ text: String?) {
        guard barShown else { return }
        bar.withLock { drawn in
            guard text != drawn else { return }
            write(drawn == nil ? "" : "\r\u{1B}[K", fd: STDOUT_FILENO)
            if let text { write(text, fd: STDOUT_FILENO) }
            drawn = text
        }
    }

    private func printLine(_ line: String, fd: Int32) {
        bar.withLock { drawn in
            if drawn != nil { write("\r\u{1B}[K", fd: STDOUT_FILENO) }
            write(line + "\n", fd: fd)
            if let drawn { write(drawn, fd: STDOUT_FILENO) }
        }
    }

    /// Writes all of `text` to `fd`, after anything `print` left in standard output's buffer.
    private func write(_ text: String, fd: Int32) {
        fflush(nil)   // every stream: what print() buffered goes first
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n <= 0 { if n < 0 && errno == EINTR { continue } else { return } }
                done += n
            }
        }
    }
}

extension String {
    /// Without the spaces and tabs at either end.
    var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// This text (a path, a device name) cut in the middle to at most `width` characters, with
    /// "…" where it was cut, so a line that names it fits the terminal.
    func shortened(to width: Int) -> String {
        guard count > width, width > 1 else { return self }
        let keep = width - 1, head = keep / 2
        return String(prefix(head)) + "…" + String(suffix(keep - head))
    }
}
