import AudioFile
import Foundation
import Testing

/// The file writer: libsndfile writes a regular file through a buffer of whole 64 KB writes,
/// which must leave the same file its own writes would, and report a write the disk refuses.
@Suite("Audio file writer") struct AudioFileWriterTests {
    /// A stereo ramp of `frames` frames: left rising, right falling, inside ±1.
    static func ramp(_ frames: Int) -> (left: [Float], right: [Float]) {
        let left = (0..<frames).map { Float($0 % 65_536) / 32_768 - 1 }
        return (left, left.map { -$0 * 0.5 })
    }

    @Test("a 16-bit WAV written in odd-sized slices across many buffers reads back sample for sample, its header's sizes patched")
    func roundTrip() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(getpid()).wav").path
        defer { unlink(path) }
        let frames = 200_003   // 800 KB of samples: thirteen 64 KB buffers and a part
        let (left, right) = Self.ramp(frames)
        let writer = try AudioFileWriter(path: path, container: .wav, encoding: .int16, sampleRate: 48_000, overwrite: true)
        var done = 0
        while done < frames {
            let count = min(777, frames - done)
            try writer.write(left: left.withUnsafeBufferPointer { $0.baseAddress! + done }, right: right.withUnsafeBufferPointer { $0.baseAddress! + done }, frames: count)
            done += count
        }
        try writer.close()

        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == 44 + 4 * frames)
        let reader = try AudioFileReader(path: path)
        #expect(reader.frames == Int64(frames) && reader.channels == 2 && reader.sampleRate == 48_000)
        var read = [Float](repeating: 0, count: 2 * frames)
        let count = try read.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: frames) }
        #expect(count == frames)
        var worst: Float = 0
        for i in 0..<frames {
            worst = max(worst, abs(read[2 * i] - left[i]), abs(read[2 * i + 1] - right[i]))
        }
        #expect(worst <= 0.5 / 32_768)   // each sample rounded to the nearest step, nothing moved or lost
    }

    @Test("a disk that refuses the writes is reported with the system's reason, not taken for success")
    func fullDisk() throws {
        let (left, right) = Self.ramp(48_000)   // 192 KB: more than a buffer
        let writer = try AudioFileWriter(path: "/dev/full", container: .wav, encoding: .int16, sampleRate: 48_000, overwrite: true)
        let error = #expect(throws: AudioFileError.self) {
            for _ in 0..<4 { try writer.write(left: left, right: right, frames: left.count) }
            try writer.close()
        }
        #expect(error?.description.contains("/dev/full") == true)
        #expect(error?.description.contains(String(cString: strerror(ENOSPC))) == true)
    }
}
