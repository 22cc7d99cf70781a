#if canImport(Glibc)
import Glibc
#endif
import SoundFontModel

/// Checks a font before libfluidsynth sees it, against every rule libfluidsynth's own reader
/// fails a file on, and no other: a SoundFont 2 or 3 file goes to Pianola's SoundFont model,
/// which reads exactly what libfluidsynth reads (the fuzzer and the model's tests hold the two
/// together); a DLS bank, which libinstpatch is there to read, gets `DLSCheck`. libfluidsynth
/// hands a file it refuses to libinstpatch, which prints glib warnings and leaks, so such a
/// file is refused here in one line with the byte where it goes wrong. Control thread.
enum SoundFontCheck {
    /// Why the file at `path` cannot be a SoundFont 2 or 3 file or a DLS bank, `nil` if it holds.
    static func problem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        if info.st_mode & S_IFMT == S_IFDIR { return "is a directory" }
        guard let file = fopen(path, "rb") else { return String(cString: strerror(errno)) }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 12)
        let read = fread(&header, 1, 12, file)
        switch sniff(header.prefix(read), size: Int(info.st_size), dls: file) {
        case .soundFont: return SoundFont.problem(atPath: path)
        case .checked(let problem): return problem
        }
    }

    /// Why the font held in `bytes` cannot be a SoundFont 2 or 3 file or a DLS bank, `nil` if it holds.
    static func problem(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return "holds no bytes" }
        guard let file = fmemopen(UnsafeMutableRawPointer(mutating: base), bytes.count, "rb") else { return String(cString: strerror(errno)) }
        defer { fclose(file) }
        switch sniff(Array(bytes.prefix(12))[...], size: bytes.count, dls: file) {
        case .soundFont: return SoundFont.problem(in: bytes)
        case .checked(let problem): return problem
        }
    }

    /// What a file's first 12 bytes make of it.
    private enum Sniffed {
        /// A SoundFont, for the model to read.
        case soundFont
        /// Checked already: why it cannot be loaded, or nil for a DLS bank `DLSCheck` passed.
        case checked(String?)
    }

    /// What the first 12 bytes say: not a RIFF file, a RIFF form that is neither a SoundFont
    /// nor a DLS bank, a DLS bank and what `DLSCheck` finds in `file`, or a SoundFont.
    private static func sniff(_ header: ArraySlice<UInt8>, size: Int, dls file: UnsafeMutablePointer<FILE>) -> Sniffed {
        guard header.count == 12, header.prefix(4).elementsEqual("RIFF".utf8) else { return .checked("not a SoundFont (no RIFF header)") }
        let form = String(decoding: header.suffix(4), as: UTF8.self)
        if form == "sfbk" { return .soundFont }
        guard form == "DLS " else { return .checked("not a SoundFont or DLS bank (RIFF form '\(form)')") }
        do {
            try DLSCheck.check(file, size: size)
            return .checked(nil)
        } catch {
            return .checked(error.reason)
        }
    }

    /// A structural defect, as one line.
    struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
