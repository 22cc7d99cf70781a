#if canImport(Glibc)
import Glibc
#endif

/// Checks a SoundFont before libfluidsynth sees it, against every rule libfluidsynth's own
/// reader fails a file on, and no other: the RIFF chunk exactly as long as the file; the
/// INFO, sdta and pdta lists first, in that order and back to back (libfluidsynth reads
/// them with no pad byte between, and SF3 writers leave none after an odd 'sdta'); INFO
/// holding only known chunks of sane size and a version of 2 or 3; sample data in an 'smpl'
/// chunk; the nine preset-data chunks in order, whole records, as many as their headers
/// index, and every instrument and sample they name there. What follows the chunks
/// libfluidsynth reads (the rest of 'sdta' after 'smpl', of 'pdta' after 'shdr', of the
/// file after 'pdta') is not its business, nor this check's.
/// libfluidsynth hands a file it refuses to libinstpatch, which prints glib warnings and
/// leaks, so such a file is refused here in one line with the byte where it goes wrong. A DLS
/// bank, which libinstpatch is there to read, gets `DLSCheck` instead.
/// Reads the chunk headers and the preset data, never the samples. Control thread.
enum SoundFontCheck {
    /// The preset-data chunks in the order the file must hold them, with their record sizes
    /// (SoundFont 2.04, section 7).
    private static let presetChunks: [(id: String, record: Int)] = [
        ("phdr", 38), ("pbag", 4), ("pmod", 10), ("pgen", 4), ("inst", 22), ("ibag", 4), ("imod", 10), ("igen", 4), ("shdr", 46),
    ]
    /// The INFO chunks libfluidsynth knows; any other one fails the file.
    private static let infoChunks: Set<String> = ["ifil", "isng", "INAM", "irom", "iver", "ICRD", "IENG", "IPRD", "ICOP", "ICMT", "ISFT"]

    /// Why the file at `path` cannot be a SoundFont 2 or 3 file, `nil` if it holds.
    static func problem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        if info.st_mode & S_IFMT == S_IFDIR { return "is a directory" }
        return problem(fopen(path, "rb"), size: Int(info.st_size))
    }

    /// Why the font held in `bytes` cannot be a SoundFont 2 or 3 file, `nil` if it holds.
    static func problem(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return "holds no bytes" }
        return problem(fmemopen(UnsafeMutableRawPointer(mutating: base), bytes.count, "rb"), size: bytes.count)
    }

    /// Why the open `file` (`nil`: opening it failed) of `size` bytes cannot be a SoundFont; closes it.
    private static func problem(_ file: UnsafeMutablePointer<FILE>?, size: Int) -> String? {
        guard let file else { return String(cString: strerror(errno)) }
        defer { fclose(file) }
        do {
            try check(file, size: size)
            return nil
        } catch {
            return error.reason
        }
    }

    /// A chunk: its id, where its body starts and how long it is.
    private typealias Chunk = (id: String, body: Int, length: Int)

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
        /// The chunk header at `offset`, which must end by `end`, the end of `list`.
        func header(at offset: Int, by end: Int, in list: String) throws(Failure) -> Chunk {
            guard offset + 8 <= end, let header = bytes(at: offset, 8) else {
                throw Failure("byte \(offset): a chunk header runs past the end of '\(list)' at byte \(end)")
            }
            return (id(header[0..<4]), offset + 8, length(header))
        }
        /// The chunks of the list `list` from `start` to `end`, back to back.
        func chunks(from start: Int, to end: Int, in list: String) throws(Failure) -> [Chunk] {
            var found: [Chunk] = []
            var offset = start
            while offset < end {
                let chunk = try header(at: offset, by: end, in: list)
                guard chunk.body + chunk.length <= end else {
                    throw Failure("byte \(offset): chunk '\(chunk.id)' claims \(chunk.length) bytes, past the end of '\(list)' at byte \(end)")
                }
                found.append(chunk)
                offset = chunk.body + chunk.length
            }
            return found
        }

        guard size >= 12, let riff = bytes(at: 0, 12), id(riff[0..<4]) == "RIFF" else { throw Failure("not a SoundFont (no RIFF header)") }
        let form = id(riff[8..<12])
        if form == "DLS " { return try DLSCheck.check(file, size: size) }
        guard form == "sfbk" else { throw Failure("not a SoundFont or DLS bank (RIFF form '\(form)')") }
        guard 8 + length(riff) == size else { throw Failure("byte 4: the RIFF chunk claims \(length(riff)) bytes, the file holds \(size - 8) after its header") }
        var lists: [Chunk] = []
        var offset = 12
        for (index, name) in ["INFO", "sdta", "pdta"].enumerated() {
            let list = try header(at: offset, by: size, in: "RIFF")
            guard list.id == "LIST", list.length >= 4, let type = bytes(at: list.body, 4), id(type[0..<4]) == name else {
                throw Failure("not a SoundFont 2: its chunk \(index + 1), at byte \(offset), is not the '\(name)' list (INFO, sdta and pdta come first, in order)")
            }
            // 'pdta' may claim more than the file holds: only its nine chunks are read.
            if name != "pdta", list.body + list.length > size {
                throw Failure("byte \(offset): list '\(name)' claims \(list.length) bytes, past the end of the file at byte \(size)")
            }
            lists.append((name, list.body + 4, list.length - 4))
            offset = list.body + list.length
        }
        try checkInfo(try chunks(from: lists[0].body, to: lists[0].body + lists[0].length, in: "INFO"), bytes: bytes)
        if lists[1].length > 0 {
            let samples = try header(at: lists[1].body, by: lists[1].body + lists[1].length, in: "sdta")
            guard samples.id == "smpl" else { throw Failure("byte \(lists[1].body): the sample data starts with '\(samples.id)', not 'smpl'") }
            guard samples.body + samples.length <= lists[1].body + lists[1].length else {
                throw Failure("byte \(lists[1].body): chunk 'smpl' claims \(samples.length) bytes, past the end of 'sdta' at byte \(lists[1].body + lists[1].length)")
            }
        }
        // libfluidsynth takes 'pdta''s length (less its type) as a signed 32-bit number: from
        // 2 GB on it is negative and no chunk fits.
        guard Int32(truncatingIfNeeded: lists[2].length) >= 0 else {
            throw Failure("byte \(lists[2].body - 8): list 'pdta' claims \(lists[2].length + 4) bytes, 2 GB or more, which libfluidsynth does not read")
        }
        var records: [String: Records] = [:]
        let presetEnd = min(lists[2].body + lists[2].length, size)
        offset = lists[2].body
        for (index, (chunk, record)) in presetChunks.enumerated() {
            let found = try header(at: offset, by: presetEnd, in: "pdta")
            guard found.id == chunk else {
                throw Failure("not a SoundFont 2: preset data chunk \(index + 1) is not '\(chunk)' (\(presetChunks.map(\.id).joined(separator: ", ")), in order)")
            }
            guard found.body + found.length <= presetEnd else {
                throw Failure("byte \(offset): chunk '\(chunk)' claims \(found.length) bytes, past the end of 'pdta' at byte \(presetEnd)")
            }
            guard found.length % record == 0, found.length >= record || ["pmod", "pgen", "imod", "igen"].contains(chunk) else {
                throw Failure("byte \(offset): chunk '\(chunk)' is \(found.length) bytes, not a whole number of \(record)-byte records")
            }
            guard let body = bytes(at: found.body, found.length) else { throw Failure("byte \(found.body): unreadable chunk '\(chunk)'") }
            records[chunk] = Records(name: chunk, offset: found.body, size: record, bytes: body)
            offset = found.body + found.length
        }
        try checkReferences(records)
    }

    /// INFO: known chunks only, each at most 256 bytes (the comment 65,536) and even, and a
    /// version ('ifil', 4 bytes) of 2.x or 3.x.
    private static func checkInfo(_ info: [Chunk], bytes: (Int, Int) -> [UInt8]?) throws(Failure) {
        for chunk in info {
            guard infoChunks.contains(chunk.id) else { throw Failure("byte \(chunk.body - 8): unknown chunk '\(chunk.id)' in INFO") }
            switch chunk.id {
            case "ifil", "iver":
                guard chunk.length == 4 else { throw Failure("byte \(chunk.body - 8): '\(chunk.id)' is \(chunk.length) bytes, not 4") }
                guard chunk.id == "ifil" else { continue }
                guard let version = bytes(chunk.body, 4) else { throw Failure("byte \(chunk.body): unreadable version") }
                let major = Int(version[0]) | Int(version[1]) << 8, minor = Int(version[2]) | Int(version[3]) << 8
                guard major == 2 || major == 3 else { throw Failure("byte \(chunk.body): SoundFont version \(major).\(minor); Pianola loads versions 2 and 3") }
            default:
                guard chunk.length <= (chunk.id == "ICMT" ? 65_536 : 256), chunk.length % 2 == 0 else {
                    throw Failure("byte \(chunk.body - 8): INFO chunk '\(chunk.id)' is \(chunk.length) bytes, too long or odd")
                }
            }
        }
    }

    /// One preset-data chunk's records, as read.
    private struct Records {
        let name: String
        let offset: Int
        let size: Int
        let bytes: [UInt8]

        /// Records, counting the terminal one.
        var count: Int { bytes.count / size }

        /// The little-endian 16-bit word at `field` bytes into record `index`.
        func word(_ index: Int, _ field: Int) -> Int {
            Int(bytes[index * size + field]) | Int(bytes[index * size + field + 1]) << 8
        }
    }

    /// The links between the preset-data chunks: each header's bag index, each bag's
    /// generator and modulator index, in order and inside the chunk they index (the terminal
    /// records included), and each instrument and sample a generator names inside its chunk.
    /// libfluidsynth refuses a font that breaks one and hands it to libinstpatch.
    private static func checkReferences(_ records: [String: Records]) throws(Failure) {
        func indices(_ from: Records, field: Int, into target: Records) throws(Failure) {
            var previous = 0
            for index in 0..<from.count {
                let value = from.word(index, field)
                guard value >= previous, value <= target.count else {
                    throw Failure("byte \(from.offset + index * from.size + field): '\(from.name)' record \(index) points to '\(target.name)' record \(value) (of \(target.count), in order)")
                }
                previous = value
            }
        }
        /// Generator `operation` (41 instrument, 53 sample) must name a record of `target`
        /// other than its terminal one where libfluidsynth reads it: the first such generator
        /// of each zone. (It reads the zones' generators in order from the chunk's start, one
        /// zone after another as the bags count them, and skips what follows that generator
        /// in its zone, and the terminal record.) Runs after `counts`, which bounds the reads.
        func references(_ generators: Records, operation: Int, into target: Records,
                        zones bags: Records, of headers: Records, field: Int) throws(Failure) {
            let zones = headers.count > 1 ? headers.word(headers.count - 1, field) - headers.word(0, field) : 0
            var first = 0
            for zone in 0..<zones {
                let count = bags.word(zone + 1, 0) - bags.word(zone, 0)
                if let index = (first ..< first + count).first(where: { generators.word($0, 0) == operation }) {
                    let value = generators.word(index, 2)
                    guard value < target.count - 1 else {
                        throw Failure("byte \(generators.offset + index * 4 + 2): '\(generators.name)' record \(index) names '\(target.name)' \(value), which does not exist (\(target.count - 1) there)")
                    }
                }
                first += count
            }
        }
        /// The bags (zones) that `headers` index must be all of `bags` but its terminal record,
        /// and the bags' generators and modulators all of those chunks, less an optional
        /// terminal record.
        func counts(_ headers: Records, field: Int, _ bags: Records, _ generators: Records, _ modulators: Records) throws(Failure) {
            let zones = headers.count > 1 ? headers.word(headers.count - 1, field) - headers.word(0, field) : 0
            guard bags.count == zones + 1 else {
                throw Failure("byte \(bags.offset - 8): '\(bags.name)' holds \(bags.count) records, '\(headers.name)' indexes \(zones) and a terminal one")
            }
            for (list, column) in [(generators, 0), (modulators, 2)] {
                let used = zones > 0 ? bags.word(zones, column) - bags.word(0, column) : 0
                guard list.count == used || list.count == used + 1 else {
                    throw Failure("byte \(list.offset - 8): '\(list.name)' holds \(list.count) records, '\(bags.name)' indexes \(used) and a terminal one")
                }
            }
        }
        let r = { (name: String) in records[name]! }
        try indices(r("phdr"), field: 24, into: r("pbag"))
        try indices(r("pbag"), field: 0, into: r("pgen"))
        try indices(r("pbag"), field: 2, into: r("pmod"))
        try indices(r("inst"), field: 20, into: r("ibag"))
        try indices(r("ibag"), field: 0, into: r("igen"))
        try indices(r("ibag"), field: 2, into: r("imod"))
        try counts(r("phdr"), field: 24, r("pbag"), r("pgen"), r("pmod"))
        try counts(r("inst"), field: 20, r("ibag"), r("igen"), r("imod"))
        try references(r("pgen"), operation: 41, into: r("inst"), zones: r("pbag"), of: r("phdr"), field: 24)
        try references(r("igen"), operation: 53, into: r("shdr"), zones: r("ibag"), of: r("inst"), field: 20)
    }

    /// A structural defect, as one line.
    struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
