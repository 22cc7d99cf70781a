#if canImport(Glibc)
import Glibc
#endif

/// Checks a SoundFont's RIFF structure before libfluidsynth sees it: every chunk header and
/// length inside its parent and the file, the three lists a SoundFont 2 must have, and the
/// preset-data chunks a whole number of records long. libfluidsynth hands a file it cannot
/// read to libinstpatch, which prints glib warnings, so a truncated or lying file is refused
/// here in one line with the byte where it goes wrong. Reads chunk headers only. Control thread.
enum SoundFontCheck {
    /// Record sizes of the preset-data chunks (SoundFont 2.04, section 7).
    private static let recordSizes: [String: Int] = [
        "phdr": 38, "pbag": 4, "pmod": 10, "pgen": 4, "inst": 22, "ibag": 4, "imod": 10, "igen": 4, "shdr": 46,
    ]

    /// Why the file at `path` cannot be a SoundFont 2 (or DLS) file, `nil` if its structure holds.
    static func problem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        if info.st_mode & S_IFMT == S_IFDIR { return "is a directory" }
        guard let file = fopen(path, "rb") else { return String(cString: strerror(errno)) }
        defer { fclose(file) }
        do {
            try check(file, size: Int(info.st_size))
            return nil
        } catch {
            return error.reason
        }
    }

    /// Walks the RIFF chunks of `file` (`size` bytes long), throwing the first defect.
    private static func check(_ file: UnsafeMutablePointer<FILE>, size: Int) throws(Failure) {
        /// `count` bytes at `offset`, `nil` past the end.
        func bytes(at offset: Int, _ count: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: count)
            guard fseek(file, offset, SEEK_SET) == 0, fread(&buffer, 1, count, file) == count else { return nil }
            return buffer
        }
        func id(_ b: ArraySlice<UInt8>) -> String { String(decoding: b, as: UTF8.self) }
        func length(_ b: [UInt8]) -> Int { Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24 }
        /// The chunks of the list `list` from `start` to `end`: each one's id, body offset and length.
        func chunks(from start: Int, to end: Int, in list: String) throws(Failure) -> [(id: String, body: Int, length: Int)] {
            var found: [(String, Int, Int)] = []
            var offset = start
            while offset < end {
                guard offset + 8 <= end, let header = bytes(at: offset, 8) else {
                    throw Failure("byte \(offset): a chunk header runs past the end of '\(list)' at byte \(end)")
                }
                let name = id(header[0..<4]), count = length(header)
                guard offset + 8 + count <= end else {
                    throw Failure("byte \(offset): chunk '\(name)' claims \(count) bytes, past the end of '\(list)' at byte \(end)")
                }
                found.append((name, offset + 8, count))
                offset += 8 + count + (count & 1)
            }
            return found
        }

        guard size >= 12, let riff = bytes(at: 0, 12), id(riff[0..<4]) == "RIFF" else { throw Failure("not a SoundFont (no RIFF header)") }
        let form = id(riff[8..<12])
        guard form == "sfbk" || form == "DLS " else { throw Failure("not a SoundFont (RIFF form '\(form)')") }
        let end = 8 + length(riff)
        guard end <= size else { throw Failure("byte 4: the RIFF chunk claims \(length(riff)) bytes, the file ends at byte \(size)") }
        let top = try chunks(from: 12, to: end, in: "RIFF")
        guard form == "sfbk" else { return }
        var lists: [String: (body: Int, length: Int)] = [:]
        for chunk in top where chunk.id == "LIST" && chunk.length >= 4 {
            guard let type = bytes(at: chunk.body, 4) else { throw Failure("byte \(chunk.body): unreadable list type") }
            lists[id(type[0..<4])] = (chunk.body + 4, chunk.length - 4)
        }
        for name in ["INFO", "sdta", "pdta"] {
            guard let list = lists[name] else { throw Failure("not a SoundFont 2: no '\(name)' list") }
            let inside = try chunks(from: list.body, to: list.body + list.length, in: name)
            guard name == "pdta" else { continue }
            for (chunk, record) in recordSizes.sorted(by: { $0.key < $1.key }) {
                guard let found = inside.first(where: { $0.id == chunk }) else { throw Failure("not a SoundFont 2: no '\(chunk)' chunk") }
                guard found.length % record == 0, found.length >= record else {
                    throw Failure("byte \(found.body - 8): chunk '\(chunk)' is \(found.length) bytes, not a whole number of \(record)-byte records")
                }
            }
        }
    }

    /// A structural defect, as one line.
    struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
