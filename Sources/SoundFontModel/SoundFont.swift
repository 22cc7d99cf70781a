import Faults

/// A SoundFont 2.04 (or SF3) file read for synthesis: its presets, instruments and samples
/// with every zone's generators and modulators as the file gives them, and its 16-bit sample
/// data (with the `sm24` low bytes when present) mapped from the file, not copied: a font
/// costs the pages a song touches. Read on the control thread; immutable after, so any thread
/// may read it.
public final class SoundFont: Sendable {
    /// The font's name (INAM). Any thread.
    public let name: String
    /// The file's SoundFont version (ifil): 2 for SF2, 3 for SF3's compressed samples, 0.0 when INFO lacks it. Any thread.
    public let version: (major: UInt16, minor: UInt16)
    /// The presets, in the file's order. Any thread.
    public let presets: [Preset]
    /// The instruments, in the file's order. Any thread.
    public let instruments: [Instrument]
    /// The sample headers, in the file's order. Any thread.
    public let samples: [SampleHeader]
    /// The file, mapped; the sample data points into it.
    let file: MappedFile
    /// The 16-bit sample data (smpl).
    nonisolated(unsafe) let sampleData: UnsafePointer<Int16>
    /// How many samples `sampleData` holds. Any thread.
    public let sampleDataCount: Int
    /// The low bytes of 24-bit samples (sm24), one per sample, when the file has them.
    nonisolated(unsafe) let sampleLowBytes: UnsafePointer<UInt8>?
    /// A copy of the sample data, when the file holds it at an odd byte (a malformed INFO
    /// list): 16-bit samples are read aligned.
    nonisolated(unsafe) private let alignedCopy: UnsafeMutablePointer<Int16>?

    /// Reads the font at `path`. Throws one line naming the file, the byte and what is wrong
    /// there. Control thread.
    public convenience init(path: String) throws(SoundFontError) {
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { throw SoundFontError(path: path, offset: nil, reason: error.reason) }
        try self.init(file: file, name: path)
    }

    /// Reads the font in `bytes`, called `name` in errors. Control thread.
    public convenience init(bytes: [UInt8], name: String) throws(SoundFontError) {
        try self.init(file: MappedFile(copying: bytes), name: name)
    }

    private init(file: MappedFile, name path: String) throws(SoundFontError) {
        self.file = file
        let parsed: Parsed
        do { parsed = try Parser(file.bytes).parse() } catch { throw SoundFontError(path: path, offset: error.offset, reason: error.reason) }
        name = parsed.name
        version = parsed.version
        presets = parsed.presets
        instruments = parsed.instruments
        samples = parsed.samples
        let base = file.bytes.baseAddress!
        let smpl = parsed.smpl
        sampleDataCount = smpl.count / 2
        if smpl.lowerBound % 2 == 0 {
            sampleData = UnsafeRawPointer(base + smpl.lowerBound).assumingMemoryBound(to: Int16.self)
            alignedCopy = nil
        } else {
            let copy = UnsafeMutablePointer<Int16>.allocate(capacity: max(1, sampleDataCount))
            UnsafeMutableRawPointer(copy).copyMemory(from: base + smpl.lowerBound, byteCount: sampleDataCount * 2)
            sampleData = UnsafePointer(copy)
            alignedCopy = copy
        }
        sampleLowBytes = parsed.sm24.map { UnsafeRawPointer(base + $0.lowerBound).assumingMemoryBound(to: UInt8.self) }
    }

    deinit { alignedCopy?.deallocate() }

    /// The preset `program` of `bank`, if the font has it. Any thread.
    public func preset(bank: Int, program: Int) -> Preset? {
        presets.first { Int($0.bank) == bank && Int($0.program) == program }
    }

    /// The 16-bit data of `sample` (its start to its end), empty when its bounds do not fit
    /// the file's data or it is compressed (SF3). Any thread.
    public func data(of sample: SampleHeader) -> UnsafeBufferPointer<Int16> {
        guard sample.isUsable(within: sampleDataCount), !sample.isCompressed else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: sampleData + Int(sample.start), count: Int(sample.end - sample.start))
    }
}

extension SoundFont {
    /// A preset: a bank and program, and its zones, each naming an instrument. Any thread.
    public struct Preset: Sendable {
        /// Its name. Any thread.
        public var name: String
        /// MIDI bank (128: percussion). Any thread.
        public var bank: UInt16
        /// MIDI program. Any thread.
        public var program: UInt16
        /// The global zone (no instrument: what every zone adds unless it sets its own), if any. Any thread.
        public var global: Zone?
        /// The zones, each with the index of its instrument as `link`. Any thread.
        public var zones: [Zone]
    }

    /// An instrument: its zones, each naming a sample. Any thread.
    public struct Instrument: Sendable {
        /// Its name. Any thread.
        public var name: String
        /// The global zone (no sample), if any. Any thread.
        public var global: Zone?
        /// The zones, each with the index of its sample as `link`. Any thread.
        public var zones: [Zone]
    }

    /// A preset's or instrument's zone: generators, modulators and what it links to. Any thread.
    public struct Zone: Sendable {
        /// What it sets, as the file gives it. Any thread.
        public var generators: GeneratorSet
        /// Its modulators, in the file's order. Any thread.
        public var modulators: [Modulator]
        /// The instrument (preset zone) or sample (instrument zone) index; nil in a global zone. Any thread.
        public var link: Int?

        /// The keys it plays. Any thread.
        public var keyRange: ClosedRange<UInt8> { generators.range(.keyRange) }
        /// The velocities it plays. Any thread.
        public var velocityRange: ClosedRange<UInt8> { generators.range(.velocityRange) }
    }
}

/// A modulator as the file gives it (section 8.2): a source, an amount source, the amount,
/// the destination generator and the transform. Any thread.
public struct Modulator: Hashable, Sendable {
    /// The source, as the file's 16-bit enumeration (index, continuous-controller flag,
    /// direction, polarity, curve type). Any thread.
    public var source: UInt16
    /// The destination generator's number (or, with bit 15, another modulator's index). Any thread.
    public var destination: UInt16
    /// How far the source moves the destination, in its units (the file's 16 bits; a preset's
    /// identical modulator adds to it). Any thread.
    public var amount: Int32
    /// The source that scales the amount. Any thread.
    public var amountSource: UInt16
    /// The transform: 0 linear, 2 absolute value. Any thread.
    public var transform: UInt16

    /// Whether `other` is the same modulator in the sense of section 9.5.1 (the same sources,
    /// destination and transform), so that one replaces the other. Any thread.
    public func isIdentical(to other: Modulator) -> Bool {
        source == other.source && destination == other.destination && amountSource == other.amountSource && transform == other.transform
    }
}

/// A sample header (shdr): where a sample lies in the data, its loop, rate and pitch. Any thread.
public struct SampleHeader: Sendable {
    /// Its name. Any thread.
    public var name: String
    /// First sample, in samples from the data's start. Any thread.
    public var start: UInt32
    /// One past its last sample. Any thread.
    public var end: UInt32
    /// The loop's first sample. Any thread.
    public var loopStart: UInt32
    /// One past the loop's last sample. Any thread.
    public var loopEnd: UInt32
    /// Its sample rate in Hz. Any thread.
    public var sampleRate: UInt32
    /// The key recorded (60 for middle C; 255 for unpitched). Any thread.
    public var originalPitch: UInt8
    /// Cents to correct its pitch by. Any thread.
    public var pitchCorrection: Int8
    /// The other side of a stereo pair. Any thread.
    public var link: UInt16
    /// Mono 1, right 2, left 4, linked 8; with 0x8000 a ROM sample; with 0x10 compressed (SF3). Any thread.
    public var type: UInt16

    /// Whether its data is Ogg Vorbis (SF3), its start and end then bytes in the data. Any thread.
    public var isCompressed: Bool { type & 0x10 != 0 }
    /// Whether it is in a ROM the file does not hold. Any thread.
    public var isROM: Bool { type & 0x8000 != 0 }

    /// Whether its start and end lie within `count` samples of data (twice as many bytes for
    /// a compressed sample, whose bounds are bytes), start before end. Any thread.
    public func isUsable(within count: Int) -> Bool {
        !isROM && start < end && Int(end) <= (isCompressed ? count * 2 : count)
    }
}

/// A font that cannot be read: the file, the byte where it goes wrong and why. Any thread.
extension SoundFont {
    /// Why the file at `path` cannot be read as a SoundFont 2 or 3 file, by libfluidsynth's
    /// own rules (the model reads exactly what libfluidsynth reads), as "byte N: reason"; nil
    /// when it can. Maps the file and reads its chunk headers and tables, not its samples.
    /// Control thread.
    public static func problem(atPath path: String) -> String? {
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { return error.reason }
        return problem(in: file.bytes)
    }

    /// Why `bytes` cannot be read as a SoundFont 2 or 3 file, as `problem(atPath:)` says.
    /// Control thread.
    public static func problem(in bytes: UnsafeRawBufferPointer) -> String? {
        do {
            _ = try Parser(bytes).parse()
            return nil
        } catch {
            return "\(error.offset.map { "byte \($0): " } ?? "")\(error.reason)"
        }
    }
}

/// A SoundFont file that cannot be read: its path, the byte at fault where there is one, and why. Any thread.
public struct SoundFontError: Fault, Hashable, Sendable {
    /// A file's fault. Any thread.
    public var kind: FaultKind { .file }
    /// The file. Any thread.
    public var path: String
    /// The byte where the fault is, if it has one. Any thread.
    public var offset: Int?
    /// What is wrong. Any thread.
    public var reason: String

    /// `path: cannot load SoundFont: byte N: reason`, one line (as libfluidsynth's failures
    /// read). Any thread.
    public var description: String { "\(path): cannot load SoundFont: \(offset.map { "byte \($0): " } ?? "")\(reason)" }
}
