/// A SoundFont 2.01 bank to write: samples, instruments made of sample zones, presets made of
/// instrument zones. Enough of the format to build the project's own fonts; the output is
/// byte-for-byte reproducible. Any thread.
public struct SF2File: Sendable {
    /// Bank name (`INAM`). Any thread.
    public var name: String
    /// Comment (`ICMT`). Any thread.
    public var comment: String
    /// The samples; instruments refer to them by index. Any thread.
    public var samples: [SF2Sample] = []
    /// The instruments; presets refer to them by index. Any thread.
    public var instruments: [SF2Instrument] = []
    /// The presets. Any thread.
    public var presets: [SF2Preset] = []

    /// An empty bank. Any thread.
    public init(name: String, comment: String = "") {
        self.name = name
        self.comment = comment
    }

    /// Adds a sample and returns its index. Any thread.
    public mutating func add(_ sample: SF2Sample) -> Int {
        samples.append(sample)
        return samples.count - 1
    }

    /// Adds an instrument and returns its index. Any thread.
    public mutating func add(_ instrument: SF2Instrument) -> Int {
        instruments.append(instrument)
        return instruments.count - 1
    }

    /// The bank as a RIFF `sfbk` file: SoundFont 2.01, or with `compress` SoundFont 3.01,
    /// each sample's points replaced by what `compress` makes of them (Ogg Vorbis, for
    /// libfluidsynth to decode). Any thread.
    public func serialized(compressing compress: ((SF2Sample) -> [UInt8])? = nil) -> [UInt8] {
        var info = Chunk.list("INFO")
        info.sub("ifil", le16(compress == nil ? 2 : 3) + le16(1))
        info.sub("isng", zstr("EMU8000"))
        info.sub("INAM", zstr(name))
        if !comment.isEmpty { info.sub("ICMT", zstr(comment)) }
        info.sub("ISFT", zstr("Pianola SF2 writer"))

        // Sample data: each sample followed by 46 zero points, as the spec asks. Compressed,
        // a sample's start and end are byte offsets and its loop counts from its own start.
        var smpl: [UInt8] = []
        var headers: [UInt8] = []
        for sample in samples {
            let start: Int, end: Int, loopBase: Int
            if let compress {
                start = smpl.count
                smpl += compress(sample)
                (end, loopBase) = (smpl.count, 0)
            } else {
                start = smpl.count / 2
                for value in sample.data { smpl += le16(UInt16(bitPattern: value)) }
                smpl += [UInt8](repeating: 0, count: 46 * 2)
                (end, loopBase) = (start + sample.data.count, start)
            }
            let loop = sample.loop ?? (0, 0)
            headers += name20(sample.name)
            headers += le32(start) + le32(end)
            headers += le32(loopBase + loop.start) + le32(loopBase + loop.end)
            headers += le32(sample.sampleRate)
            // Mono (1), Ogg Vorbis when compressed (0x10).
            headers += [sample.rootKey, UInt8(bitPattern: sample.pitchCorrection)] + le16(0) + le16(compress == nil ? 1 : 0x11)
        }
        headers += name20("EOS") + [UInt8](repeating: 0, count: 26)
        var sdta = Chunk.list("sdta")
        sdta.sub("smpl", smpl)

        var pdta = Chunk.list("pdta")
        // Preset zones carry no modulators: the preset modulator list is its terminal record.
        var phdr: [UInt8] = [], pbag: [UInt8] = [], pgen: [UInt8] = []
        var bagCount = 0, genCount = 0
        for preset in presets.sorted(by: { ($0.bank, $0.program) < ($1.bank, $1.program) }) {
            phdr += name20(preset.name) + le16(Int(preset.program)) + le16(Int(preset.bank)) + le16(bagCount) + le32(0) + le32(0) + le32(0)
            for zone in preset.zones {
                pbag += le16(genCount) + le16(0)
                bagCount += 1
                for g in zone.generators.sorted() + [.instrument(zone.instrument)] {
                    pgen += g.bytes
                    genCount += 1
                }
            }
        }
        phdr += name20("EOP") + le16(0) + le16(0) + le16(bagCount) + le32(0) + le32(0) + le32(0)
        pbag += le16(genCount) + le16(0)
        pgen += le16(0) + le16(0)
        let pmod = [UInt8](repeating: 0, count: 10)

        var inst: [UInt8] = [], ibag: [UInt8] = [], igen: [UInt8] = [], imod: [UInt8] = []
        var iBagCount = 0, iGenCount = 0, iModCount = 0
        for instrument in instruments {
            inst += name20(instrument.name) + le16(iBagCount)
            for zone in instrument.zones {
                ibag += le16(iGenCount) + le16(iModCount)
                iBagCount += 1
                for m in zone.modulators {
                    imod += m.bytes
                    iModCount += 1
                }
                for g in zone.generators.sorted() + [.sampleID(zone.sample)] {
                    igen += g.bytes
                    iGenCount += 1
                }
            }
        }
        inst += name20("EOI") + le16(iBagCount)
        ibag += le16(iGenCount) + le16(iModCount)
        igen += le16(0) + le16(0)
        imod += [UInt8](repeating: 0, count: 10)

        pdta.sub("phdr", phdr)
        pdta.sub("pbag", pbag)
        pdta.sub("pmod", pmod)
        pdta.sub("pgen", pgen)
        pdta.sub("inst", inst)
        pdta.sub("ibag", ibag)
        pdta.sub("imod", imod)
        pdta.sub("igen", igen)
        pdta.sub("shdr", headers)

        let body = Array("sfbk".utf8) + info.bytes + sdta.bytes + pdta.bytes
        return Array("RIFF".utf8) + le32(body.count) + body
    }
}

/// A mono 16-bit sample. Any thread.
public struct SF2Sample: Sendable {
    /// Name, at most 20 bytes. Any thread.
    public var name: String
    /// The sample points. Any thread.
    public var data: [Int16]
    /// Points per second. Any thread.
    public var sampleRate: Int
    /// The MIDI key at which the sample plays at its recorded pitch. Any thread.
    public var rootKey: UInt8
    /// Pitch correction in cents. Any thread.
    public var pitchCorrection: Int8
    /// Loop points (start inclusive, end exclusive) relative to the sample's first point. Any thread.
    public var loop: (start: Int, end: Int)?

    /// Makes a sample. Any thread.
    public init(name: String, data: [Int16], sampleRate: Int, rootKey: UInt8, pitchCorrection: Int8 = 0,
                loop: (start: Int, end: Int)? = nil) {
        precondition(loop.map { $0.start >= 0 && $0.end <= data.count && $0.end - $0.start >= 32 } ?? true,
                     "an SF2 loop lies inside the sample and spans at least 32 points")
        self.name = name
        self.data = data
        self.sampleRate = sampleRate
        self.rootKey = rootKey
        self.pitchCorrection = pitchCorrection
        self.loop = loop
    }
}

/// An instrument: zones that each map a key/velocity range to a sample with generators. Any thread.
public struct SF2Instrument: Sendable {
    /// One zone. Any thread.
    public struct Zone: Sendable {
        /// The sample's index in the file. Any thread.
        public var sample: Int
        /// Generators (key range first when written, as the spec orders them). Any thread.
        public var generators: [SF2Generator]
        /// Modulators; one with a default modulator's sources and destination replaces it. Any thread.
        public var modulators: [SF2Modulator]

        /// Makes a zone. Any thread.
        public init(sample: Int, generators: [SF2Generator] = [], modulators: [SF2Modulator] = []) {
            self.sample = sample
            self.generators = generators
            self.modulators = modulators
        }
    }

    /// Name, at most 20 bytes. Any thread.
    public var name: String
    /// The zones. Any thread.
    public var zones: [Zone]

    /// Makes an instrument. Any thread.
    public init(name: String, zones: [Zone]) {
        self.name = name
        self.zones = zones
    }
}

/// A preset: what a bank/program selects. Any thread.
public struct SF2Preset: Sendable {
    /// One zone: an instrument over a key range. Any thread.
    public struct Zone: Sendable {
        /// The instrument's index in the file. Any thread.
        public var instrument: Int
        /// Generators added to the instrument's. Any thread.
        public var generators: [SF2Generator]

        /// Makes a zone. Any thread.
        public init(instrument: Int, generators: [SF2Generator] = []) {
            self.instrument = instrument
            self.generators = generators
        }
    }

    /// Name, at most 20 bytes. Any thread.
    public var name: String
    /// MIDI bank (128 = percussion). Any thread.
    public var bank: UInt16
    /// MIDI program, 0...127. Any thread.
    public var program: UInt16
    /// The zones. Any thread.
    public var zones: [Zone]

    /// Makes a preset. Any thread.
    public init(name: String, bank: UInt16, program: UInt16, zones: [Zone]) {
        self.name = name
        self.bank = bank
        self.program = program
        self.zones = zones
    }
}

/// A RIFF chunk being assembled.
struct Chunk {
    var bytes: [UInt8]
    let sizeAt: Int

    static func list(_ type: String) -> Chunk {
        Chunk(bytes: Array("LIST".utf8) + [0, 0, 0, 0] + Array(type.utf8), sizeAt: 4)
    }

    mutating func sub(_ id: String, _ data: [UInt8]) {
        bytes += Array(id.utf8) + le32(data.count) + data
        if data.count & 1 == 1 { bytes.append(0) }
        bytes.replaceSubrange(sizeAt ..< sizeAt + 4, with: le32(bytes.count - 8))
    }
}

func le16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
func le16(_ v: UInt16) -> [UInt8] { le16(Int(v)) }
func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

/// A NUL-terminated, even-length ASCII string.
func zstr(_ s: String) -> [UInt8] {
    var b = Array(s.utf8) + [0]
    if b.count & 1 == 1 { b.append(0) }
    return b
}

/// A 20-byte, NUL-padded name.
func name20(_ s: String) -> [UInt8] {
    let b = Array(s.utf8.prefix(19))
    return b + [UInt8](repeating: 0, count: 20 - b.count)
}
