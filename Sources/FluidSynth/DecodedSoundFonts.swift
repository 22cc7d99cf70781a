#if canImport(Glibc)
import Glibc
#endif
import AudioFile
import Dispatch

/// SF3 fonts decoded once: libfluidsynth decodes an SF3's Ogg Vorbis samples each time it
/// loads one (FluidR3 as SF3: 3.0 s eagerly against 0.2 s for its SF2, measured by
/// `pianola-bench sf3`), so the first load writes the font as an SF2 — the same headers, the
/// samples as libsndfile decodes them, exactly what libfluidsynth would have made of them —
/// into a cache folder, and later loads read that. Control thread.
package enum DecodedSoundFonts {
    /// Where decoded fonts are kept: `$PIANOLA_CACHE`, else `$XDG_CACHE_HOME/pianola`, else
    /// `~/.cache/pianola`, each with `/soundfonts` added. Any thread.
    public static var folder: String? {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let base = environment("PIANOLA_CACHE") ?? environment("XDG_CACHE_HOME").map { "\($0)/pianola" } ?? environment("HOME").map { "\($0)/.cache/pianola" }
        return base.map { "\($0)/soundfonts" }
    }

    /// The decoded copy of the SF3 at `path`, in `folder` (made now if it is not there yet),
    /// or `nil` when `path` is not an SF3 or its copy cannot be made (an unwritable folder, a
    /// sample libsndfile cannot decode): libfluidsynth then reads the SF3 itself. Checked
    /// fonts only. Control thread.
    public static func copy(of path: String, in folder: String?) -> String? {
        var info = stat()
        guard let folder, stat(path, &info) == 0, let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 36)
        // ifil is INFO's first chunk in every SF3 writer's output; a font without it there is left to libfluidsynth.
        guard fread(&header, 1, 36, file) == 36, Array(header[24..<28]) == Array("ifil".utf8), header[32] == 3, header[33] == 0 else { return nil }
        // The name says which file, at which size and modification time, so a changed font is decoded anew.
        let stem = String(String(path.split(separator: "/").last ?? "font").prefix(64))
        let key = "\(fnv1a(realPath(path)))-\(info.st_size)-\(info.st_mtim.tv_sec)\(info.st_mtim.tv_nsec)"
        let decoded = "\(folder)/\(stem)-\(key).sf2"
        // A copy is checked like any font before libfluidsynth reads it; a bad one (cut short,
        // tampered with) is removed and made again.
        if access(decoded, R_OK) == 0 {
            if SoundFontCheck.problem(decoded) == nil { return decoded }
            unlink(decoded)
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        guard fseek(file, 0, SEEK_SET) == 0, fread(&bytes, 1, bytes.count, file) == bytes.count,
              makeFolders(folder), let font = try? decode(bytes, name: path) else { return nil }
        // Written beside, then renamed: a reader never sees half a font, and two writers race harmlessly.
        let partial = "\(decoded).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).partial"
        guard let out = fopen(partial, "wb") else { return nil }
        let written = font.write(to: out)
        guard fclose(out) == 0, written, SoundFontCheck.problem(partial) == nil, rename(partial, decoded) == 0 else {
            unlink(partial)
            return nil
        }
        return decoded
    }

    /// The checked SF3 `bytes` as an SF2: INFO as it is (its version made 2.4), the samples
    /// decoded into one 'smpl' (each followed by 46 zero points), 'pdta' as it is but for the
    /// sample headers, which now point at the decoded points and carry their loops from the
    /// sample's start (an SF3's loops count from there already), mended as libfluidsynth
    /// mends them. Throws for a sample that is not compressed or does not decode.
    static func decode(_ bytes: [UInt8], name: String) throws(AudioFileError) -> DecodedFont {
        // The lists back to back, as the check walked them.
        let info = 12, sdta = info + 8 + le32(bytes, info + 4), pdta = sdta + 8 + le32(bytes, sdta + 4)
        let samples = sdta + 20, sampleBytes = le32(bytes, sdta + 16)
        var presetData = Array(bytes[(pdta + 12)..<min(pdta + 8 + le32(bytes, pdta + 4), bytes.count)])
        var shdr = 0
        for _ in 0..<8 { shdr += 8 + le32(presetData, shdr + 4) }
        let headerCount = le32(presetData, shdr + 4) / 46

        // Each distinct Ogg stream once, in the order the headers first name them, decoded
        // on every core (libvorbis is nearly all of the time).
        var records: [(record: Int, type: Int, range: Range<Int>)] = []
        var streams: [Range<Int>] = [], stream: [Range<Int>: Int] = [:]
        for index in 0..<max(headerCount - 1, 0) {
            let record = shdr + 8 + index * 46
            let type = Int(presetData[record + 44]) | Int(presetData[record + 45]) << 8
            guard type & 0x10 != 0 else { throw AudioFileError(path: name, reason: "sample \(index) is not compressed") }
            let range = le32(presetData, record + 20)..<le32(presetData, record + 24)
            guard range.lowerBound < range.upperBound, range.upperBound <= sampleBytes else {
                throw AudioFileError(path: name, reason: "sample \(index) lies outside 'smpl'")
            }
            records.append((record, type, range))
            if stream[range] == nil { stream[range] = streams.count; streams.append(range) }
        }
        var decoded = [Result<[Int16], AudioFileError>](repeating: .success([]), count: streams.count)
        let ranges = streams
        decoded.withUnsafeMutableBufferPointer { results in
            let results = UncheckedSendable(results)
            DispatchQueue.concurrentPerform(iterations: streams.count) { index in
                let range = ranges[index]
                let ogg = Array(bytes[(samples + range.lowerBound)..<(samples + range.upperBound)])
                results.value[index] = Result { () throws(AudioFileError) in
                    try AudioFileReader(bytes: ogg, name: "\(name), sample data at byte \(range.lowerBound)").monoPoints()
                }
            }
        }
        var samplesDecoded: [[Int16]] = [], starts: [Int] = [], points = 0
        for result in decoded {
            starts.append(points)
            samplesDecoded.append(try result.get())
            points += samplesDecoded[samplesDecoded.count - 1].count + 46
        }
        decoded = []
        for (record, type, range) in records {
            let index = stream[range]!, start = starts[index], count = samplesDecoded[index].count
            // The loop as libfluidsynth mends an SF3's against its decoded length: swapped
            // when reversed, each end past the sample moved to the sample's start or end.
            var loop = (le32(presetData, record + 28), le32(presetData, record + 32))
            if loop.0 > loop.1 { loop = (loop.1, loop.0) }
            if loop.0 > count { loop.0 = 0 }
            if loop.1 > count { loop.1 = count }
            for (at, value) in [(20, start), (24, start + count), (28, start + loop.0), (32, start + loop.1)] {
                put32(value, &presetData, at: record + at)
            }
            presetData[record + 44] = UInt8(type & ~0x10 & 0xFF)
        }

        let smplBytes = points * 2
        var head = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("sfbk".utf8) + bytes[info..<sdta]
        head.replaceSubrange(32..<36, with: [2, 0, 4, 0])   // ifil 2.04
        head += Array("LIST".utf8) + [0, 0, 0, 0] + Array("sdta".utf8) + Array("smpl".utf8) + [0, 0, 0, 0]
        put32(smplBytes + 12, &head, at: head.count - 16)
        put32(smplBytes, &head, at: head.count - 4)
        var tail = Array("LIST".utf8) + [0, 0, 0, 0] + Array("pdta".utf8) + presetData
        put32(presetData.count + 4, &tail, at: 4)
        put32(head.count + smplBytes + tail.count - 8, &head, at: 4)
        return DecodedFont(head: head, samples: samplesDecoded, tail: tail)
    }
}

/// An SF2 in the pieces it is written in: its samples as decoded, each to be followed by 46
/// zero points (never joined or copied into bytes: a GM font's run to hundreds of MB).
struct DecodedFont {
    let head: [UInt8]
    let samples: [[Int16]]
    let tail: [UInt8]

    /// Writes the font to `file`, the points little-endian; whether it was all written.
    func write(to file: UnsafeMutablePointer<FILE>) -> Bool {
        func put(_ bytes: UnsafeRawBufferPointer) -> Bool { fwrite(bytes.baseAddress, 1, bytes.count, file) == bytes.count }
        let silence = [Int16](repeating: 0, count: 46)
        guard head.withUnsafeBytes(put) else { return false }
        for sample in samples {
            let written = 1.littleEndian == 1 ? sample.withUnsafeBytes(put) : sample.map { $0.littleEndian }.withUnsafeBytes(put)
            guard written, silence.withUnsafeBytes(put) else { return false }
        }
        return tail.withUnsafeBytes(put)
    }
}

/// A value handed to `concurrentPerform`'s iterations, each of which touches only its own part.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The little-endian 32-bit word at `at` in `bytes`.
private func le32(_ bytes: [UInt8], _ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }

/// Writes `value` as a little-endian 32-bit word at `at` in `buffer`.
private func put32(_ value: Int, _ buffer: inout [UInt8], at: Int) {
    for i in 0..<4 { buffer[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
}

/// `path` with its links and dots resolved, or as given when it cannot be.
private func realPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// A 64-bit FNV-1a hash of `text`, in hex: short, stable across runs (unlike `Hasher`).
private func fnv1a(_ text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return String(hash, radix: 16)
}

/// Makes `folder` and its parents; whether it exists now.
private func makeFolders(_ folder: String) -> Bool {
    var path = ""
    for part in folder.split(separator: "/") {
        path += "/\(part)"
        if mkdir(path, 0o755) != 0 && errno != EEXIST { return false }
    }
    return true
}
