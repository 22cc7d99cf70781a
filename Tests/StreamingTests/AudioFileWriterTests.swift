import AudioFile
import CSndFile
import Foundation
import Testing

/// The file writer: libsndfile writes a regular file through a buffer of whole 64 KB writes
/// (a long file handed back to the page cache behind them), which must leave the same file its
/// own writes would, and report a write the disk refuses;
/// 16-bit WAV and raw samples, converted by the writer, are libsndfile's own conversion's.
@Suite("Audio file writer") struct AudioFileWriterTests {
    /// A stereo ramp of `frames` frames: left rising, right falling, inside ±1.
    static func ramp(_ frames: Int) -> (left: [Float], right: [Float]) {
        let left = (0..<frames).map { Float($0 % 65_536) / 32_768 - 1 }
        return (left, left.map { -$0 * 0.5 })
    }

    /// 800 KB of samples: thirteen 64 KB buffers and a part; 42 MB: five 8 MB windows, the
    /// file behind the writes handed back to the page cache as they go.
    @Test("a 16-bit WAV written in odd-sized slices across many buffers reads back sample for sample, its header's sizes patched",
          arguments: [200_003, 10_500_001])
    func roundTrip(frames: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(getpid())-\(frames).wav").path
        defer { unlink(path) }
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

    /// Samples that try the conversion where it can go wrong: a few on each side of every
    /// step's edges and of the 2⁻¹⁷ below them (where libsndfile's rounding moves a sample up a
    /// step, ties to even), beyond full scale, random ones, and NaN, infinities and zeros.
    static func awkwardSamples() -> [Float] {
        var samples: [Float] = []
        for step in -33_000...33_000 {
            let edge = Float(step) / 32_768
            samples += [edge, edge.nextDown, edge.nextUp, edge - 0x1p-32, edge - 0x1p-33, edge + 0x1p-33, (Float(step) + 0.5) / 32_767]
        }
        var generator = SystemRandomNumberGenerator()
        samples += (0..<200_000).map { _ in Float.random(in: -1.2...1.2, using: &generator) }
        samples += (0..<50_000).map { _ in Float.random(in: -0.004...0.004, using: &generator) }
        samples += [.nan, -.nan, .infinity, -.infinity, 0, -0, 1, -1, 1.000_02, -1.000_02, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 2_000, -2_000]
        return samples.count % 2 == 0 ? samples : samples + [0.5]
    }

    @Test("16-bit WAV and raw samples are libsndfile's own conversion's, bit for bit, at every step's edge", arguments: [AudioFileWriter.Container.wav, .raw])
    func sixteenBitsAsLibsndfile(container: AudioFileWriter.Container) throws {
        let samples = Self.awkwardSamples(), frames = samples.count / 2
        let folder = FileManager.default.temporaryDirectory.path
        let (ours, theirs) = ("\(folder)/writer-ours-\(getpid()).\(container)", "\(folder)/writer-libsndfile-\(getpid()).\(container)")
        defer { unlink(ours); unlink(theirs) }
        let writer = try AudioFileWriter(path: ours, container: container, encoding: .int16, sampleRate: 48_000, overwrite: true)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames - 5) }
        // The last five frames through the two-buffer call: its interleaving and its tail.
        let left = (frames - 5..<frames).map { samples[2 * $0] }, right = (frames - 5..<frames).map { samples[2 * $0 + 1] }
        try writer.write(left: left, right: right, frames: 5)
        try writer.close()
        // libsndfile's own: the floats handed to it, clipping on, as the writer did before.
        let format = container == .wav ? SF_FORMAT_WAV | SF_FORMAT_PCM_16 : SF_FORMAT_RAW | SF_ENDIAN_LITTLE | SF_FORMAT_PCM_16
        var info = SF_INFO(frames: 0, samplerate: 48_000, channels: 2, format: Int32(format), sections: 0, seekable: 0)
        let file = try #require(sf_open(theirs, Int32(SFM_WRITE), &info))
        sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        #expect(samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress!, sf_count_t(frames)) } == frames)
        sf_close(file)
        let (mine, reference) = (try Data(contentsOf: URL(fileURLWithPath: ours)), try Data(contentsOf: URL(fileURLWithPath: theirs)))
        #expect(mine.count == reference.count && mine.count >= 4 * frames)
        let header = mine.count - 4 * frames
        let differing = (0..<samples.count).filter { i in mine[header + 2 * i] != reference[header + 2 * i] || mine[header + 2 * i + 1] != reference[header + 2 * i + 1] }
        #expect(differing.count == 0, "\(differing.count) of \(samples.count) samples differ, the first \(differing.prefix(3).map { samples[$0] })")
        #expect(mine == reference)
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
