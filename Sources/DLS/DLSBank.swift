/// A Downloadable Sounds (DLS Level 1) bank as written: instruments whose regions each play a
/// wave of the wave pool over a key and velocity range. `serialized()` writes the RIFF `DLS `
/// file the DLS specification lays out (collection header, instrument list, pool table, wave
/// pool, INFO). The tests and fuzzers write their banks with it, so that code Pianola did not
/// write (libinstpatch, through libfluidsynth) reads them. Any thread.
public struct DLSBank: Hashable, Sendable {
    /// A wave of the pool: 16-bit mono PCM. Any thread.
    public struct Wave: Hashable, Sendable {
        /// Its name (INFO `INAM`). Any thread.
        public var name: String
        /// Frames a second. Any thread.
        public var sampleRate: Int
        /// The frames. Any thread.
        public var frames: [Int16]
        /// The key it sounds at unshifted. Any thread.
        public var unityNote: Int
        /// A forward loop over these frames, or none. Any thread.
        public var loop: Range<Int>?

        /// A wave. Any thread.
        public init(name: String, sampleRate: Int, frames: [Int16], unityNote: Int, loop: Range<Int>? = nil) {
            self.name = name
            self.sampleRate = sampleRate
            self.frames = frames
            self.unityNote = unityNote
            self.loop = loop
        }
    }

    /// A region: which keys and velocities play which wave. Any thread.
    public struct Region: Hashable, Sendable {
        /// Keys it answers. Any thread.
        public var keys: ClosedRange<Int>
        /// Velocities it answers. Any thread.
        public var velocities: ClosedRange<Int>
        /// Its wave's index in the pool table. Any thread.
        public var wave: Int

        /// A region. Any thread.
        public init(keys: ClosedRange<Int> = 0...127, velocities: ClosedRange<Int> = 0...127, wave: Int) {
            self.keys = keys
            self.velocities = velocities
            self.wave = wave
        }
    }

    /// An instrument, found by bank and program. Any thread.
    public struct Instrument: Hashable, Sendable {
        /// Its name (INFO `INAM`). Any thread.
        public var name: String
        /// The bank (MSB × 128 + LSB). Any thread.
        public var bank: Int
        /// The program, 0 to 127. Any thread.
        public var program: Int
        /// Whether it is a drum kit. Any thread.
        public var isDrums: Bool
        /// Its regions. Any thread.
        public var regions: [Region]

        /// An instrument. Any thread.
        public init(name: String, bank: Int = 0, program: Int, isDrums: Bool = false, regions: [Region]) {
            self.name = name
            self.bank = bank
            self.program = program
            self.isDrums = isDrums
            self.regions = regions
        }
    }

    /// The bank's name (INFO `INAM`). Any thread.
    public var name: String
    /// The instruments. Any thread.
    public var instruments: [Instrument]
    /// The wave pool, in pool-table order. Any thread.
    public var waves: [Wave]

    /// A bank. Any thread.
    public init(name: String, instruments: [Instrument], waves: [Wave]) {
        self.name = name
        self.instruments = instruments
        self.waves = waves
    }

    /// The bank as a DLS file. Any thread.
    public func serialized() -> [UInt8] {
        let pool = waves.map(Self.wave)
        var offsets: [Int] = []
        var at = 0
        for wave in pool {
            offsets.append(at)
            at += wave.count
        }
        let body = Self.chunk("colh", Self.words32([instruments.count]))
            + Self.chunk("vers", Self.words32([1 << 16, 0]))
            + Self.list("lins", instruments.flatMap(instrument))
            + Self.chunk("ptbl", Self.words32([8, offsets.count] + offsets))
            + Self.list("wvpl", pool.flatMap { $0 })
            + Self.list("INFO", Self.chunk("INAM", Self.text(name)))
        return Self.chunk("RIFF", Array("DLS ".utf8) + body)
    }

    /// One instrument's `ins ` list.
    private func instrument(_ instrument: Instrument) -> [UInt8] {
        let locale = (instrument.bank >> 7 & 0x7F) << 8 | instrument.bank & 0x7F | (instrument.isDrums ? 1 << 31 : 0)
        let regions = instrument.regions.flatMap { region in
            Self.list("rgn ", Self.chunk("rgnh", Self.words16([region.keys.lowerBound, region.keys.upperBound,
                                                                 region.velocities.lowerBound, region.velocities.upperBound, 0, 0]))
                + Self.sampleInfo(waves[region.wave])
                + Self.chunk("wlnk", Self.words16([0, 0]) + Self.words32([1, region.wave])))
        }
        return Self.list("ins ", Self.chunk("insh", Self.words32([instrument.regions.count, locale, instrument.program]))
            + Self.list("lrgn", regions) + Self.list("INFO", Self.chunk("INAM", Self.text(instrument.name))))
    }

    /// A wave's `wave` list: its format, sample info and frames.
    private static func wave(_ wave: Wave) -> [UInt8] {
        let format = words16([1, 1]) + words32([wave.sampleRate, wave.sampleRate * 2]) + words16([2, 16])
        let frames = wave.frames.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        return list("wave", chunk("fmt ", format) + sampleInfo(wave) + chunk("data", frames) + list("INFO", chunk("INAM", text(wave.name))))
    }

    /// A `wsmp` chunk: the unity note, no fine tune or attenuation, the loop if any.
    private static func sampleInfo(_ wave: Wave) -> [UInt8] {
        let loops = wave.loop.map { words32([16, 0, $0.lowerBound, $0.count]) } ?? []
        return chunk("wsmp", words32([20]) + words16([wave.unityNote, 0]) + words32([0, 0, wave.loop == nil ? 0 : 1]) + loops)
    }

    /// A RIFF chunk: its id, its little-endian length, its body padded to even.
    private static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + words32([body.count]) + body + (body.count & 1 == 1 ? [0] : [])
    }

    /// A `LIST` chunk of `type`.
    private static func list(_ type: String, _ body: [UInt8]) -> [UInt8] { chunk("LIST", Array(type.utf8) + body) }

    /// A zero-terminated text.
    private static func text(_ string: String) -> [UInt8] { Array(string.utf8) + [0] }

    /// Little-endian 16-bit words.
    private static func words16(_ values: [Int]) -> [UInt8] { values.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8 & 0xFF)] } }

    /// Little-endian 32-bit words.
    private static func words32(_ values: [Int]) -> [UInt8] { values.flatMap { value in (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } } }
}
