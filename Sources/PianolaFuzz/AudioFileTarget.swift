import AudioFile
import Foundation

/// Bytes as an audio file, opened through libsndfile by the reader the file player streams
/// from: its header must make sense and reading must stay inside what it claims.
enum AudioFileTarget {
    static func run(_ bytes: [UInt8]) {
        let path = ScratchFile.write(bytes, extension: "audio")
        defer { unlink(path) }
        guard let reader = try? AudioFileReader(path: path) else { return }
        require(reader.channels >= 1 && reader.sampleRate >= 1 && reader.frames >= 0, "an impossible header was accepted")
        if let loop = reader.loop {
            require(loop.lowerBound >= 0 && loop.upperBound <= reader.frames, "a loop outside the file was accepted")
        }
        // Reads give interleaved stereo whatever the file holds. A guard band after what a
        // read may fill catches a write past it from uninstrumented C, which the sanitizer
        // would only notice later, if at all.
        let chunk = 1_024, asked = chunk * 2, guardBand = 16_384
        var buffer = [Float](repeating: 0, count: asked + guardBand)
        func intact() -> Bool { buffer[asked...].allSatisfy { $0.bitPattern == 0x7FC0_DEAD } }
        for index in asked..<buffer.count { buffer[index] = Float(bitPattern: 0x7FC0_DEAD) }
        var total = 0
        while total < 1 << 20, let read = try? reader.read(into: &buffer, frames: chunk), read > 0 {
            require(read <= chunk, "read more frames than asked")
            require(intact(), "a read wrote past the frames it was given")
            total += read
        }
        try? reader.seek(to: reader.frames / 2)
        _ = try? reader.read(into: &buffer, frames: chunk)
        require(intact(), "a read wrote past the frames it was given")
    }

    /// A short 440 Hz tone in each format the writer makes, with the header libsndfile wrote.
    static func seeds() -> [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        let frames = 600
        let tone = (0..<frames).map { Float(sin(Double($0) * 2 * .pi * 440 / 48_000) * 0.5) }
        let formats: [(AudioFileWriter.Container, AudioFileWriter.Encoding)] = [
            (.wav, .int16), (.wav, .int24), (.wav, .float32), (.flac, .int16), (.flac, .int24), (.ogg, .int16), (.mp3, .int16),
        ]
        for (container, encoding) in formats {
            let path = ScratchFile.path(extension: container.rawValue)
            guard let writer = try? AudioFileWriter(path: path, container: container, encoding: encoding, sampleRate: 48_000, overwrite: true) else { continue }
            tone.withUnsafeBufferPointer { samples in
                _ = try? writer.write(left: samples.baseAddress!, right: samples.baseAddress!, frames: frames)
            }
            try? writer.close()
            if let data = FileManager.default.contents(atPath: path) { seeds.append(("\(container.rawValue)-\(encoding.rawValue)", Array(data))) }
            unlink(path)
        }
        return seeds
    }
}
