import Playback
import Glibc
import SoundFontBook

/// What the fuzzer can aim at, each a front door for bytes from outside. Each target's run
/// must not crash, leak or hang on any input; where it can check a property it does, and a
/// broken property is a crash (a finding).
enum FuzzTarget: String, CaseIterable {
    /// The SMF reader, lenient and strict; strict reads must survive a write and read back.
    case smf
    /// A read file into a MusicSequence, by file tracks and channels-to-tracks, then into a Score.
    case sequence
    /// The MUS (Doom) reader, as `smf` and `sequence` read, on bytes after the MUS magic.
    case mus
    /// The XMI (Miles Sound System) reader, as `smf` and `sequence` read.
    case xmi
    /// The HMP (Human Machine Interfaces) reader, both layouts, on a header the input fills in.
    case hmp
    /// The HMI (Human Machine Interfaces) reader, on a header the input fills in.
    case hmi
    /// Tempo and meter maps built from extreme values, and their conversions.
    case tempo
    /// A `pianola` command line: parsed, and every option checked, as the command would.
    case args
    /// An audio file through libsndfile and the reader that feeds the file player.
    case audio
    /// A SoundFont loaded into a synthesizer and played through the sampler node.
    case soundfont
    /// A DLS bank, past Pianola's check, loaded by libinstpatch (through libfluidsynth) and
    /// played through the sampler node.
    case dls
    /// Random generators and modulators on one zone, played by Pianola's synthesizer and by
    /// libfluidsynth: their levels must agree.
    case differential

    /// Runs one input.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .smf: MIDIFileTargets.smf(bytes)
        case .sequence: MIDIFileTargets.sequence(bytes)
        case .mus: MIDIFileTargets.mus(bytes)
        case .xmi: MIDIFileTargets.xmi(bytes)
        case .hmp: MIDIFileTargets.hmp(bytes)
        case .hmi: MIDIFileTargets.hmi(bytes)
        case .tempo: TimeTarget.run(bytes)
        case .args: ArgumentsTarget.run(bytes)
        case .audio: AudioFileTarget.run(bytes)
        case .soundfont: SoundFontTarget.run(bytes)
        case .dls: SoundFontTarget.runDLS(bytes)
        case .differential: DifferentialTarget.run(bytes)
        }
    }

    /// Inputs to start from, beyond the MIDI files the script gives: named byte strings.
    func seeds() -> [(String, [UInt8])] {
        switch self {
        case .smf, .sequence: return []
        case .mus: return MIDIFileTargets.musSeeds()
        case .xmi: return MIDIFileTargets.xmiSeeds()
        case .hmp: return MIDIFileTargets.hmpSeeds()
        case .hmi: return MIDIFileTargets.hmiSeeds()
        case .tempo: return TimeTarget.seeds()
        case .args: return ArgumentsTarget.seeds()
        case .audio: return AudioFileTarget.seeds()
        case .soundfont: return SoundFontTarget.seeds()
        case .dls: return [("sine", SoundFontBook.sineBank().serialized())]
        case .differential: return DifferentialTarget.seeds()
        }
    }
}

/// Reads fixed-size values from a fuzzer's input, zeros once it runs out.
struct InputReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether any byte is left.
    var hasMore: Bool { index < bytes.count }

    /// The next `count` bytes as a big-endian unsigned number (count ≤ 8).
    mutating func next(_ count: Int) -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<count {
            value = value << 8 | UInt64(index < bytes.count ? bytes[index] : 0)
            index += 1
        }
        return value
    }
}

/// Checks a property of a run: when `condition` is false the run fails (a finding) with
/// `message`, written to stderr (by `fatalError`) and appended to the file $PIANOLA_FUZZ_FAILURE names, since
/// libFuzzer closes a fuzzing target's stderr (the finding's report then says which property
/// broke, not just "deadly signal").
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fail(message(), file: file, line: line) }
}

/// Fails the run with `message`, as `require` does.
func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    let text = "\(file):\(line): \(message)\n"
    if let path = getenv("PIANOLA_FUZZ_FAILURE") {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if fd >= 0 { _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }; close(fd) }
    }
    fatalError(message, file: file, line: line)
}

/// A scratch file for libraries that only open paths: one per process, in memory when /dev/shm exists.
enum ScratchFile {
    static func path(extension ext: String) -> String {
        let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        return "\(folder)/pianola-fuzz-\(getpid()).\(ext)"
    }

    /// Writes `bytes` to the scratch file with `ext` and returns its path; the caller unlinks it.
    static func write(_ bytes: [UInt8], extension ext: String) -> String {
        let path = path(extension: ext)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        require(fd >= 0, "cannot write the scratch file \(path)")
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                require(n > 0, "cannot write the scratch file \(path)")
                done += n
            }
        }
        close(fd)
        return path
    }
}
