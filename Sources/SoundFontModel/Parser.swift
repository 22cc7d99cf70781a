/// What the parser finds: the font's tables, and where its sample data lies in the file.
struct Parsed {
    var name = ""
    /// 0.0 when INFO has no 'ifil', which libfluidsynth reads all the same.
    var version: (major: UInt16, minor: UInt16) = (0, 0)
    var presets: [SoundFont.Preset] = []
    var instruments: [SoundFont.Instrument] = []
    var samples: [SampleHeader] = []
    var smpl: Range<Int> = 0..<0
    var sm24: Range<Int>?
}

/// Reads a SoundFont's RIFF structure and its preset data (section 7), every read checked
/// against the bytes: what libfluidsynth refuses, this refuses, with the byte where it goes
/// wrong. Reads the chunk headers and the tables, never the samples. Control thread.
struct Parser {
    /// A fault at a byte.
    struct Failure: Error {
        let offset: Int?
        let reason: String
    }

    /// The preset-data chunks in the order the file must hold them, with their record sizes.
    static let presetChunks: [(id: String, record: Int)] = [
        ("phdr", 38), ("pbag", 4), ("pmod", 10), ("pgen", 4), ("inst", 22), ("ibag", 4), ("imod", 10), ("igen", 4), ("shdr", 46),
    ]

    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private func fail(_ offset: Int?, _ reason: String) -> Failure { Failure(offset: offset, reason: reason) }

    private func u16(_ at: Int) -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)) }
    private func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
    /// A chunk's four-letter id; one that is not printable ASCII is given in hex, so that a
    /// message stays one line.
    private func id(_ at: Int) -> String {
        let letters = bytes[at..<at + 4]
        guard letters.allSatisfy({ (0x20...0x7E).contains($0) }) else { return "0x" + letters.map { String($0, radix: 16).leftPadded() }.joined() }
        return String(decoding: letters, as: UTF8.self)
    }

    /// A fixed-length, zero-padded name (up to 20 characters), trimmed of the padding.
    private func name(_ at: Int, _ length: Int) -> String {
        let field = bytes[at..<at + length]
        return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The chunk header at `at` within `end`: its id and its body's range.
    private func chunk(at: Int, within end: Int) throws(Failure) -> (id: String, body: Range<Int>) {
        guard at + 8 <= end else { throw fail(at, "a chunk header runs past its list's end") }
        let length = Int(u32(at + 4))
        guard length <= end - at - 8 else { throw fail(at, "chunk '\(id(at))' of \(length) bytes runs past its list's end (\(end - at - 8) left)") }
        return (id(at), at + 8 ..< at + 8 + length)
    }

    /// The LIST chunk at `at`, which must be of type `type`: its body after the type.
    private func list(at: Int, _ type: String, within end: Int) throws(Failure) -> Range<Int> {
        let list = try chunk(at: at, within: end)
        guard list.id == "LIST", list.body.count >= 4, id(list.body.lowerBound) == type else {
            throw fail(at, "expected the LIST '\(type)' chunk here, found '\(list.id)'")
        }
        return list.body.lowerBound + 4 ..< list.body.upperBound
    }

    /// The 'pdta' list at `at`: its body after the type, up to the file's end where the list
    /// claims more (libfluidsynth reads only its nine tables, and takes the claim as a signed
    /// 32-bit number, so 2 GB or more is refused).
    private func presetList(at: Int, within end: Int) throws(Failure) -> Range<Int> {
        guard at + 8 <= end else { throw fail(at, "a chunk header runs past its list's end") }
        let length = Int(u32(at + 4))
        guard id(at) == "LIST", length >= 4, at + 12 <= end, id(at + 8) == "pdta" else { throw fail(at, "expected the LIST 'pdta' chunk here, found '\(id(at))'") }
        guard Int32(truncatingIfNeeded: length - 4) >= 0 else { throw fail(at, "list 'pdta' claims \(length) bytes, 2 GB or more, which libfluidsynth does not read") }
        return at + 12 ..< min(at + 8 + length, end)
    }

    /// The 'sm24' chunk right after `samples` within `end`, where libfluidsynth uses one: in
    /// a 2.04 font, holding a byte for each sample point (rounded up to even). Nil otherwise.
    private func extraBits(after samples: Range<Int>, within end: Int, version: (major: UInt16, minor: UInt16)) -> Range<Int>? {
        let at = samples.upperBound
        guard version.major >= 2, version.minor >= 4, end - at > 8, id(at) == "sm24" else { return nil }
        let length = Int(u32(at + 4)), half = samples.count / 2
        guard length <= end - at - 8, length == half + half % 2 else { return nil }
        return at + 8 ..< at + 8 + length
    }

    /// The sub-chunks of a list's body, in order.
    private func chunks(in body: Range<Int>) throws(Failure) -> [(id: String, body: Range<Int>)] {
        var found: [(String, Range<Int>)] = []
        var at = body.lowerBound
        while at < body.upperBound {
            let next = try chunk(at: at, within: body.upperBound)
            found.append(next)
            at = next.body.upperBound + (next.body.count & 1)   // a pad byte after an odd chunk
            if at > body.upperBound { break }   // a final odd chunk with no pad byte
        }
        return found
    }

    func parse() throws(Failure) -> Parsed {
        guard bytes.count >= 12 else { throw fail(nil, bytes.isEmpty ? "holds no bytes" : "is \(bytes.count) bytes, too short for a SoundFont") }
        guard id(0) == "RIFF", id(8) == "sfbk" else { throw fail(0, "not a SoundFont (no RIFF 'sfbk' header)") }
        let riffLength = Int(u32(4))
        guard riffLength + 8 == bytes.count else {
            throw fail(4, "the RIFF chunk says \(riffLength + 8) bytes, the file has \(bytes.count)")
        }
        var parsed = Parsed()
        let end = bytes.count
        let info = try list(at: 12, "INFO", within: end)
        // libfluidsynth reads the three lists back to back, no pad byte between (SF3 writers leave none).
        let sdta = try list(at: info.upperBound, "sdta", within: end)
        let pdta = try presetList(at: sdta.upperBound, within: end)
        for chunk in try chunks(in: info) {
            switch chunk.id {
            case "ifil":
                guard chunk.body.count == 4 else { throw fail(chunk.body.lowerBound - 8, "ifil is \(chunk.body.count) bytes, not 4") }
                parsed.version = (u16(chunk.body.lowerBound), u16(chunk.body.lowerBound + 2))
                guard parsed.version.major == 2 || parsed.version.major == 3 else {
                    throw fail(chunk.body.lowerBound, "SoundFont version \(parsed.version.major).\(parsed.version.minor): only 2 and 3 are read")
                }
            case "iver":
                guard chunk.body.count == 4 else { throw fail(chunk.body.lowerBound - 8, "iver is \(chunk.body.count) bytes, not 4") }
            case "isng", "INAM", "irom", "ICRD", "IENG", "IPRD", "ICOP", "ICMT", "ISFT":
                // As libfluidsynth: each at most 256 bytes (the comment 65,536), and even.
                guard chunk.body.count <= (chunk.id == "ICMT" ? 65_536 : 256), chunk.body.count % 2 == 0 else {
                    throw fail(chunk.body.lowerBound - 8, "INFO chunk '\(chunk.id)' is \(chunk.body.count) bytes, too long or odd")
                }
                if chunk.id == "INAM" { parsed.name = name(chunk.body.lowerBound, chunk.body.count) }
            default: throw fail(chunk.body.lowerBound - 8, "unknown chunk '\(chunk.id)' in INFO")
            }
        }
        // As libfluidsynth reads 'sdta': empty, or 'smpl' first, then perhaps 'sm24' right
        // after it; anything else there is skipped.
        if sdta.isEmpty {
            parsed.smpl = sdta
        } else {
            let samples = try chunk(at: sdta.lowerBound, within: sdta.upperBound)
            guard samples.id == "smpl" else { throw fail(sdta.lowerBound, "the sample data starts with '\(samples.id)', not 'smpl'") }
            parsed.smpl = samples.body
            parsed.sm24 = extraBits(after: samples.body, within: sdta.upperBound, version: parsed.version)
        }
        // The nine tables back to back; whatever follows 'shdr' is not read, as libfluidsynth does not.
        var records: [Range<Int>] = []
        var at = pdta.lowerBound
        for expected in Self.presetChunks {
            guard at < pdta.upperBound else { throw fail(pdta.upperBound, "'pdta' ends before its '\(expected.id)' chunk") }
            let table = try chunk(at: at, within: pdta.upperBound)
            at = table.body.upperBound
            guard table.id == expected.id else { throw fail(table.body.lowerBound - 8, "expected '\(expected.id)' in 'pdta', found '\(table.id)'") }
            guard table.body.count % expected.record == 0 else {
                throw fail(table.body.lowerBound - 8, "'\(expected.id)' is \(table.body.count) bytes, not whole \(expected.record)-byte records")
            }
            guard table.body.count >= expected.record || expected.id.hasSuffix("mod") || expected.id.hasSuffix("gen") else {
                throw fail(table.body.lowerBound - 8, "'\(expected.id)' lacks its closing record")
            }
            records.append(table.body)
        }
        let generatorsP = generators(records[3]), generatorsI = generators(records[7])
        let modulatorsP = modulators(records[2]), modulatorsI = modulators(records[6])
        parsed.samples = sampleHeaders(records[8])
        let instrumentCount = records[4].count / 22 - 1
        let instrumentZones = try zones(bags: records[5], generators: generatorsI, modulators: modulatorsI, tables: ("ibag", "igen"), link: .sampleID,
                                        links: parsed.samples.count, what: "sample")
        parsed.instruments = try headed(records[4], record: 22, bagOffset: 20, zones: instrumentZones, bagsTable: "ibag").map { header, zones in
            let (global, local) = split(zones, link: .sampleID)
            return SoundFont.Instrument(name: name(header, 20), global: global, zones: local)
        }
        let presetZones = try zones(bags: records[1], generators: generatorsP, modulators: modulatorsP, tables: ("pbag", "pgen"), link: .instrument,
                                    links: instrumentCount, what: "instrument")
        parsed.presets = try headed(records[0], record: 38, bagOffset: 24, zones: presetZones, bagsTable: "pbag").map { header, zones in
            let (global, local) = split(zones, link: .instrument)
            return SoundFont.Preset(name: name(header, 20), bank: u16(header + 22), program: u16(header + 20), global: global, zones: local)
        }
        try counts(headers: records[0], record: 38, bagOffset: 24, bags: records[1], generators: records[3], modulators: records[2], names: ("phdr", "pbag", "pgen", "pmod"))
        try counts(headers: records[4], record: 22, bagOffset: 20, bags: records[5], generators: records[7], modulators: records[6], names: ("inst", "ibag", "igen", "imod"))
        return parsed
    }

    /// libfluidsynth's size rule (it reads the tables in step and refuses a "chunk size
    /// mismatch"): the bags the headers index are all of the bag table but its closing
    /// record, and the generators and the modulators the bags index are all of theirs, less
    /// an optional closing record. Runs after the indices are known to be in order.
    private func counts(headers: Range<Int>, record: Int, bagOffset: Int, bags: Range<Int>, generators: Range<Int>, modulators: Range<Int>,
                        names: (headers: String, bags: String, generators: String, modulators: String)) throws(Failure) {
        let headerCount = headers.count / record, bagCount = bags.count / 4
        let zones = headerCount > 1 ? Int(u16(headers.upperBound - record + bagOffset)) - Int(u16(headers.lowerBound + bagOffset)) : 0
        guard bagCount == zones + 1 else {
            throw fail(bags.lowerBound - 8, "'\(names.bags)' holds \(bagCount) records, '\(names.headers)' indexes \(zones) and a closing one")
        }
        for (table, size, column, name) in [(generators, 4, 0, names.generators), (modulators, 10, 2, names.modulators)] {
            let used = zones > 0 ? Int(u16(bags.lowerBound + zones * 4 + column)) - Int(u16(bags.lowerBound + column)) : 0
            guard table.count / size == used || table.count / size == used + 1 else {
                throw fail(table.lowerBound - 8, "'\(name)' holds \(table.count / size) records, '\(names.bags)' indexes \(used) and a closing one")
            }
        }
    }

    /// A table's generator records (operator, amount), the closing one included: the bags
    /// say how many are used, and libfluidsynth reads a table whose last record they use.
    private func generators(_ table: Range<Int>) -> [(at: Int, generator: UInt16, amount: Int16)] {
        stride(from: table.lowerBound, to: table.upperBound, by: 4).map { (at: $0, generator: u16($0), amount: Int16(bitPattern: u16($0 + 2))) }
    }

    /// A table's modulator records, the closing one included (as for generators).
    private func modulators(_ table: Range<Int>) -> [Modulator] {
        stride(from: table.lowerBound, to: table.upperBound, by: 10).map {
            Modulator(source: u16($0), destination: u16($0 + 2), amount: Int32(Int16(bitPattern: u16($0 + 4))), amountSource: u16($0 + 6), transform: u16($0 + 8))
        }
    }

    /// The sample headers, the closing one (EOS) left out.
    private func sampleHeaders(_ table: Range<Int>) -> [SampleHeader] {
        stride(from: table.lowerBound, to: table.upperBound - 46, by: 46).map {
            SampleHeader(name: name($0, 20), start: u32($0 + 20), end: u32($0 + 24), loopStart: u32($0 + 28), loopEnd: u32($0 + 32),
                         sampleRate: u32($0 + 36), originalPitch: bytes[$0 + 40], pitchCorrection: Int8(bitPattern: bytes[$0 + 41]),
                         link: u16($0 + 42), type: u16($0 + 44))
        }
    }

    /// The zones a bag table makes: each bag's generators and modulators up to the next
    /// bag's, the generators read as section 8.1.1 orders them (key range first, velocity
    /// range next, the link last; what follows the link is ignored), the link checked
    /// against the `links` there are.
    private func zones(bags: Range<Int>, generators: [(at: Int, generator: UInt16, amount: Int16)], modulators: [Modulator], tables: (bags: String, generators: String),
                       link linkGenerator: Generator, links: Int, what: String) throws(Failure) -> [SoundFont.Zone] {
        let starts = stride(from: bags.lowerBound, to: bags.upperBound, by: 4).map { (at: $0, generator: Int(u16($0)), modulator: Int(u16($0 + 2))) }
        var zones: [SoundFont.Zone] = []
        for (bag, next) in zip(starts, starts.dropFirst()) {
            let index = (next.at - bags.lowerBound) / 4
            guard bag.generator <= next.generator, next.generator <= generators.count else {
                throw fail(next.at, "'\(tables.bags)' record \(index) points to generator \(next.generator), out of order or past the \(generators.count) there")
            }
            guard bag.modulator <= next.modulator, next.modulator <= modulators.count else {
                throw fail(next.at + 2, "'\(tables.bags)' record \(index) points to modulator \(next.modulator), out of order or past the \(modulators.count) there")
            }
            var zone = SoundFont.Zone(generators: GeneratorSet(), modulators: Array(modulators[bag.modulator..<next.modulator]), link: nil)
            // As libfluidsynth reads them: a key range only first, a velocity range only first
            // or after the key range; any other generator ends the ranges' place.
            var level = 0
            for record in generators[bag.generator..<next.generator] {
                let generator = Generator(rawValue: record.generator)
                switch generator {
                case .keyRange?:
                    guard level == 0 else { continue }
                    level = 1
                case .velocityRange?:
                    guard level <= 1 else { continue }
                    level = 2
                default: level = 2
                }
                guard let generator, !generator.isUnused else { continue }   // unknown or unused: ignored
                if generator == linkGenerator {
                    let index = Int(UInt16(bitPattern: record.amount))
                    guard index < links else {
                        throw fail(record.at + 2, "'\(tables.generators)' record \((record.at - (generators.first?.at ?? record.at)) / 4) names \(what) \(index), which does not exist (\(links) there)")
                    }
                    zone.link = index
                    break   // the link ends the zone
                }
                if generator == .instrument || generator == .sampleID { continue }   // the other level's link: ignored
                zone.generators[generator] = record.amount
            }
            zones.append(zone)
        }
        return zones
    }

    /// Each header of a table (the closing one left out) with the zones its bag index
    /// starts, up to the next header's; bag indices must not go back or past the bags.
    private func headed(_ table: Range<Int>, record: Int, bagOffset: Int, zones: [SoundFont.Zone], bagsTable: String) throws(Failure) -> [(Int, ArraySlice<SoundFont.Zone>)] {
        let headers = Array(stride(from: table.lowerBound, to: table.upperBound, by: record))
        var result: [(Int, ArraySlice<SoundFont.Zone>)] = []
        for (header, next) in zip(headers, headers.dropFirst()) {
            let first = Int(u16(header + bagOffset)), last = Int(u16(next + bagOffset))
            guard first <= last, last <= zones.count else {
                throw fail(next + bagOffset, "bag index \(last) is out of order or past the \(zones.count) zones in '\(bagsTable)'")
            }
            result.append((header, zones[first..<last]))
        }
        return result
    }

    /// A header's zones split into the global zone (a first zone with no link) and the
    /// others; a later zone with no link is ignored (section 7.3 and 7.7).
    private func split(_ zones: ArraySlice<SoundFont.Zone>, link: Generator) -> (global: SoundFont.Zone?, local: [SoundFont.Zone]) {
        var global: SoundFont.Zone?
        var local: [SoundFont.Zone] = []
        for (index, zone) in zones.enumerated() {
            if zone.link != nil { local.append(zone) } else if index == 0 { global = zone }
        }
        return (global, local)
    }
}

private extension String {
    /// Two hex digits.
    func leftPadded() -> String { count < 2 ? "0" + self : self }
}
