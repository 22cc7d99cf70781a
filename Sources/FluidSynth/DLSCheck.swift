#if canImport(Glibc)
import Glibc
#endif

/// Checks a DLS bank (Level 1 or 2) before libfluidsynth hands it to libinstpatch, which
/// trusts what the file says: every chunk inside the one that holds it, lists nested at most
/// eight deep; the collection's instrument count that of its instrument list; each
/// instrument one header and as many regions as it says; each region a header, a wave link
/// into the pool table and sane key and velocity ranges; articulation blocks inside their
/// chunk; the pool table's cues each the offset of a `wave` list inside the wave pool; each
/// wave 8- or 16-bit PCM, mono or stereo, with its data; loops inside their wave. GigaSampler
/// files, which libinstpatch reads another way, are refused. A defect is one line with its
/// byte. Reads chunk headers and the small chunks, never the sample data. Control thread.
enum DLSCheck {
    /// A chunk: its id (a list's type for `LIST`), where its header starts, where its body
    /// (after a list's type) starts and ends, and a list's chunks.
    private struct Chunk {
        let id: String
        let isList: Bool
        let offset: Int
        let body: Range<Int>
        var children: [Chunk] = []

        /// The chunks of this list that are `id` (a list's type for lists).
        func all(_ id: String, list: Bool = false) -> [Chunk] { children.filter { $0.id == id && $0.isList == list } }
    }

    /// The chunks libinstpatch reads GigaSampler files by: it rereads such a file in another mode.
    private static let gigaSamplerChunks: Set<String> = ["3prg", "3lnk", "3ddp", "3ewg", "3gri", "3gix", "3ewa", "3dnl", "einf"]

    /// Why `file` (`size` bytes, whose RIFF form is `DLS `) cannot be a DLS bank, `nil` if it holds.
    static func check(_ file: UnsafeMutablePointer<FILE>, size: Int) throws(SoundFontCheck.Failure) {
        /// `count` bytes at `offset`, or the failure.
        func bytes(at offset: Int, _ count: Int) throws(SoundFontCheck.Failure) -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: count)
            guard fseek(file, offset, SEEK_SET) == 0, fread(&buffer, 1, count, file) == count else { throw SoundFontCheck.Failure("byte \(offset): unreadable") }
            return buffer
        }
        func word32(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24 }
        func word16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
        func id(_ b: [UInt8], _ at: Int) -> String { String(decoding: b[at ..< at + 4], as: UTF8.self) }
        /// libinstpatch's rule for a chunk id or list type: letters and digits, then spaces
        /// after at least one of them.
        func validID(_ b: [UInt8], at offset: Int) throws(SoundFontCheck.Failure) {
            let letters = b[0..<4].prefix { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            guard !letters.isEmpty, b[letters.count ..< 4].allSatisfy({ $0 == 0x20 }) else {
                throw SoundFontCheck.Failure("byte \(offset): '\(String(decoding: b[0..<4].map { (0x20..<0x7F).contains($0) ? $0 : 0x3F }, as: UTF8.self))' is not a chunk id (letters and digits, then spaces)")
            }
        }
        var chunkCount = 0
        /// The chunks from `start` to `end`, inside the list called `list`, `depth` lists deep.
        func chunks(_ start: Int, _ end: Int, in list: String, depth: Int) throws(SoundFontCheck.Failure) -> [Chunk] {
            var found: [Chunk] = []
            var offset = start
            while offset + 8 <= end {
                let header = try bytes(at: offset, 8)
                let name = id(header, 0), length = word32(header, 4)
                // libinstpatch's RIFF reader: a chunk padded to even must fit in its list.
                guard length + (length & 1) <= end - offset - 8 else {
                    throw SoundFontCheck.Failure("byte \(offset + 4): chunk '\(name)' claims \(length) bytes, past the end of '\(list)' at byte \(end)")
                }
                try validID(header, at: offset)
                guard name != "RIFF" && name != "RIFX" else { throw SoundFontCheck.Failure("byte \(offset): a RIFF chunk inside '\(list)'") }
                chunkCount += 1
                guard chunkCount <= 1_000_000 else { throw SoundFontCheck.Failure("byte \(offset): more than a million chunks") }
                if gigaSamplerChunks.contains(name) { throw SoundFontCheck.Failure("byte \(offset): a GigaSampler file ('\(name)'): Pianola loads DLS banks and SoundFonts") }
                if name == "LIST" {
                    guard length >= 4, length & 1 == 0 else { throw SoundFontCheck.Failure("byte \(offset + 4): a list of \(length) bytes (a list holds its type and is even)") }
                    let typeBytes = try bytes(at: offset + 8, 4)
                    try validID(typeBytes, at: offset + 8)
                    let type = id(typeBytes, 0)
                    guard depth < 8 else { throw SoundFontCheck.Failure("byte \(offset): lists nested more than 8 deep") }
                    var chunk = Chunk(id: type, isList: true, offset: offset, body: offset + 12 ..< offset + 8 + length)
                    chunk.children = try chunks(chunk.body.lowerBound, chunk.body.upperBound, in: type, depth: depth + 1)
                    found.append(chunk)
                } else {
                    found.append(Chunk(id: name, isList: false, offset: offset, body: offset + 8 ..< offset + 8 + length))
                }
                offset += 8 + length + (length & 1)
            }
            // libinstpatch reads a chunk header wherever its list has bytes left.
            guard offset >= end else { throw SoundFontCheck.Failure("byte \(offset): \(end - offset) bytes at the end of '\(list)' are not a chunk") }
            return found
        }
        /// The one chunk `id` of `parent`, at least `minimum` bytes long (or one of `exactly`):
        /// its bytes and where they start in the file.
        func one(_ id: String, of parent: Chunk, minimum: Int, exactly: Set<Int>? = nil) throws(SoundFontCheck.Failure) -> (bytes: [UInt8], at: Int) {
            guard let found = try optional(id, of: parent, minimum: minimum, exactly: exactly) else {
                throw SoundFontCheck.Failure("byte \(parent.offset): '\(parent.id)' has no '\(id)' chunk")
            }
            return found
        }
        /// As `one`, `nil` when `parent` has no chunk `id`.
        func optional(_ id: String, of parent: Chunk, minimum: Int, exactly: Set<Int>? = nil) throws(SoundFontCheck.Failure) -> (bytes: [UInt8], at: Int)? {
            let matches = parent.all(id)
            guard let chunk = matches.first else { return nil }
            guard matches.count == 1 else { throw SoundFontCheck.Failure("byte \(matches[1].offset): a second '\(id)' chunk in '\(parent.id)'") }
            guard chunk.body.count >= minimum, exactly.map({ $0.contains(chunk.body.count) }) ?? true else {
                throw SoundFontCheck.Failure("byte \(chunk.offset + 4): '\(id)' is \(chunk.body.count) bytes, not \(exactly.map { $0.sorted().map(String.init).joined(separator: " or ") } ?? "at least \(minimum)")")
            }
            return (try bytes(at: chunk.body.lowerBound, chunk.body.count), chunk.body.lowerBound)
        }

        /// A `wsmp` chunk (its bytes from byte `at`): its header and loops filling it exactly, as
        /// libinstpatch wants (it refuses a 0-loop chunk with a loop's bytes left over), a loop
        /// inside `frames` when known.
        func sampleInfo(_ info: [UInt8], at body: Int, frames: Int?) throws(SoundFontCheck.Failure) {
            let headerSize = word32(info, 0), loops = word32(info, 16)
            guard headerSize >= 20, headerSize <= info.count, info.count - headerSize == 16 * loops else {
                throw SoundFontCheck.Failure("byte \(body): 'wsmp' claims \(loops) loops after a \(headerSize)-byte header; it holds \(info.count) bytes")
            }
            for loop in 0..<loops {
                let at = headerSize + 16 * loop, start = word32(info, at + 8), length = word32(info, at + 12)
                if let frames, start > frames || length > frames - start {
                    throw SoundFontCheck.Failure("byte \(body + at): a loop of \(length) frames from frame \(start), past the wave's \(frames)")
                }
            }
        }

        let riff = try bytes(at: 0, 12)
        let claimed = word32(riff, 4)
        guard claimed & 1 == 0 else { throw SoundFontCheck.Failure("byte 4: the RIFF chunk claims an odd \(claimed) bytes") }
        guard claimed <= size - 8, claimed >= 4 else { throw SoundFontCheck.Failure("byte 4: the RIFF chunk claims \(claimed) bytes, the file holds \(size - 8) after its header") }
        let bank = Chunk(id: "DLS ", isList: true, offset: 0, body: 12 ..< 8 + claimed,
                         children: try chunks(12, 8 + claimed, in: "RIFF", depth: 1))

        // The collection: its instruments.
        let collection = try one("colh", of: bank, minimum: 4, exactly: [4])
        let count = word32(collection.bytes, 0)
        guard let instrumentList = bank.all("lins", list: true).first else { throw SoundFontCheck.Failure("byte 0: no instrument list ('lins')") }
        let instruments = instrumentList.all("ins ", list: true)
        guard !instruments.isEmpty else { throw SoundFontCheck.Failure("byte \(instrumentList.offset): the instrument list is empty") }
        guard instruments.count == count else {
            throw SoundFontCheck.Failure("byte \(collection.at): 'colh' says \(count) instrument\(count == 1 ? "" : "s"), the instrument list holds \(instruments.count)")
        }

        // The pool table: each cue the offset of a wave list inside the wave pool.
        let (table, tableAt) = try one("ptbl", of: bank, minimum: 8)
        let headerSize = word32(table, 0), cues = word32(table, 4)
        guard headerSize >= 8, headerSize <= table.count, cues <= (table.count - headerSize) / 4 else {
            throw SoundFontCheck.Failure("byte \(tableAt): 'ptbl' claims \(cues) cues after a \(headerSize)-byte header; it holds \(table.count) bytes")
        }
        guard let pool = bank.all("wvpl", list: true).first ?? bank.all("dwpl", list: true).first else { throw SoundFontCheck.Failure("byte 0: no wave pool ('wvpl')") }
        let waveOffsets = Set(pool.all("wave", list: true).map { $0.offset - pool.body.lowerBound })
        for cue in 0..<cues {
            let offset = word32(table, headerSize + 4 * cue)
            guard waveOffsets.contains(offset) else {
                throw SoundFontCheck.Failure("byte \(tableAt + headerSize + 4 * cue): pool table cue \(cue) points at byte \(offset) of the wave pool, where no 'wave' list starts")
            }
        }

        // Each wave: PCM it can play, with its data; its loop inside it.
        for wave in pool.all("wave", list: true) {
            let format = try one("fmt ", of: wave, minimum: 16).bytes
            let tag = word16(format, 0), channels = word16(format, 2), rate = word32(format, 4), align = word16(format, 12), bits = word16(format, 14)
            guard tag == 1, (1...2).contains(channels), bits == 8 || bits == 16, (1...384_000).contains(rate), align == channels * bits / 8 else {
                throw SoundFontCheck.Failure("byte \(wave.offset): a wave that is not 8- or 16-bit PCM, mono or stereo (format \(tag), \(channels) channels, \(bits) bits, \(rate) Hz, \(align)-byte frames)")
            }
            guard let data = wave.all("data").first, data.body.count >= align else { throw SoundFontCheck.Failure("byte \(wave.offset): a wave with no sample data") }
            if let info = try optional("wsmp", of: wave, minimum: 20) { try sampleInfo(info.bytes, at: info.at, frames: data.body.count / align) }
        }

        // Each instrument: its header, its regions, its articulations and theirs.
        /// The connection blocks of `owner`'s articulation lists, inside their chunks.
        func articulations(of owner: Chunk) throws(SoundFontCheck.Failure) {
            for list in owner.children where list.isList && (list.id == "lart" || list.id == "lar2") {
                for blocks in list.children where !blocks.isList && (blocks.id == "art1" || blocks.id == "art2") {
                    let body = try bytes(at: blocks.body.lowerBound, min(blocks.body.count, 8))
                    guard body.count == 8, word32(body, 0) >= 8, word32(body, 4) <= (blocks.body.count - word32(body, 0)) / 12 else {
                        throw SoundFontCheck.Failure("byte \(blocks.offset): '\(blocks.id)' claims more connection blocks than it holds")
                    }
                }
            }
        }
        for instrument in instruments {
            let header = try one("insh", of: instrument, minimum: 12, exactly: [12])
            let regions = (instrument.all("lrgn", list: true).first?.children ?? []).filter { $0.isList && ($0.id == "rgn " || $0.id == "rgn2") }
            guard regions.count == word32(header.bytes, 0) else {
                throw SoundFontCheck.Failure("byte \(header.at): 'insh' says \(word32(header.bytes, 0)) regions, the instrument holds \(regions.count)")
            }
            try articulations(of: instrument)
            for region in regions {
                let range = try one("rgnh", of: region, minimum: 12, exactly: [12, 14]).bytes
                let keys = (word16(range, 0), word16(range, 2)), velocities = (word16(range, 4), word16(range, 6))
                guard keys.0 <= keys.1, keys.1 <= 127, velocities.0 <= velocities.1, velocities.1 <= 127 else {
                    throw SoundFontCheck.Failure("byte \(region.offset): a region over keys \(keys.0)–\(keys.1) and velocities \(velocities.0)–\(velocities.1), not inside 0–127")
                }
                let link = try one("wlnk", of: region, minimum: 12, exactly: [12])
                guard word32(link.bytes, 8) < cues else {
                    throw SoundFontCheck.Failure("byte \(link.at + 8): a region plays pool table cue \(word32(link.bytes, 8)), of \(cues)")
                }
                if let info = try optional("wsmp", of: region, minimum: 20) { try sampleInfo(info.bytes, at: info.at, frames: nil) }
                try articulations(of: region)
            }
        }
    }
}
