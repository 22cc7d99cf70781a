import Foundation
import Testing

@Suite("pianola play through ALSA's user-space plugins")
struct PlayCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let testFont = root.appendingPathComponent("soundfonts/pianola-test.sf2").path
    static let song = root.appendingPathComponent("songs/twinkle.mid").path

    /// 32-bit float stereo samples of a WAV's `data` chunk.
    static func wavFloats(_ path: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let marker = data.range(of: Data("data".utf8))!
        let length = data[marker.upperBound..<marker.upperBound + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let start = marker.upperBound + 4
        return data[start..<start + Int(length)].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test("what play sends to the device is what render writes, sample for sample")
    func playEqualsRender() throws {
        let scratch = try Scratch()
        let raw = scratch.url.appendingPathComponent("played.raw").path
        let wav = scratch.url.appendingPathComponent("rendered.wav").path
        let common = ["--soundfont", Self.testFont, "--reverb", "off", "--chorus", "off", "--tempo", "150", "--transpose", "3"]
        // A `file` PCM of our own (writing what it is sent to a file, through `null`, not
        // paced), in a config read after the stock one.
        let config = scratch.url.appendingPathComponent("asound.conf").path
        try "pcm.pianola_capture { type file; slave.pcm \"null\"; file \"\(raw)\"; format \"raw\" }\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let played = try CLIRun.pianola(["play", Self.song, "--device", "pianola_capture", "--quiet"] + common,
                                        environment: ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(config)"])
        #expect(played.status == 0, "\(played.stderr)")
        let rendered = try CLIRun.pianola(["render", Self.song, "-o", wav, "--bits", "32f"] + common)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let device = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let file = try Self.wavFloats(wav)
        #expect(file.count > 48_000 * 2 * 10)
        #expect(device.count >= file.count)
        #expect(Array(device.prefix(file.count)) == file)
    }

    @Test("the device vanishing mid-play (its FIFO's reader quits): one line, exit 1, no signal, no hang")
    func deviceVanishes() throws {
        let scratch = try Scratch()
        let fifo = scratch.url.appendingPathComponent("device.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // The device: a reader that takes 200 KB of audio (about half a second), then goes away.
        let reader = Thread {
            let fd = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 4_096), taken = 0
            while taken < 200_000 {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                taken += n
            }
            close(fd)
        }
        reader.start()
        // timeout(1) only as a backstop: a hang would show as its status 124.
        let run = try CLIRun.pianola(["play", Self.song, "--soundfont", Self.testFont, "--device", "file:'\(fifo)',raw", "--quiet"],
                                     prefix: ["/usr/bin/timeout", "60"])
        #expect(!run.signaled)
        #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("pianola: audio device 'file:"), "\(run.stderr)")
    }

    @Test("a device that does not exist: one line naming it, exit 1")
    func missingDevice() throws {
        let run = try CLIRun.pianola("play", Self.song, "--device", "pianola_no_such_pcm", "--soundfont", Self.testFont)
        #expect(run.status == 1)
        #expect(run.stderr == "pianola: audio device 'pianola_no_such_pcm': ALSA has no such device (`pianola devices` lists them)\n")
    }
}

@Suite("pianola devices")
struct DevicesCommandTests {
    @Test("--driver alsa lists the same playback PCMs as aplay -L")
    func sameAsAplay() throws {
        let run = try CLIRun.pianola("devices", "--driver", "alsa")
        #expect(run.status == 0)
        let aplay = Process()
        aplay.executableURL = URL(fileURLWithPath: "/usr/bin/aplay")
        aplay.arguments = ["-L"]
        let pipe = Pipe()
        aplay.standardOutput = pipe
        try aplay.run()
        let listed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        aplay.waitUntilExit()
        func names(_ text: String) -> [String] { text.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map(String.init) }
        #expect(!names(run.stdout).isEmpty)
        #expect(names(run.stdout) == names(listed))
    }
}

@Suite("pianola play with a damaged file")
struct PlayWarningsTests {
    @Test("a song with defects plays in lenient mode and shows each warning once")
    func warningsOnce() throws {
        let scratch = try Scratch()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: PlayCommandTests.song))
        bytes.removeLast(4)   // End of Track cut: the chunk is short and the track has no end
        let song = try scratch.write("damaged.mid", Array(bytes))
        let raw = scratch.url.appendingPathComponent("out.raw").path
        let run = try CLIRun.pianola("play", song, "--device", "file:'\(raw)',raw", "--soundfont", PlayCommandTests.testFont, "--quiet")
        #expect(run.status == 0)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("pianola: \(song): warning: byte ") })
        #expect(Set(lines).count == lines.count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: raw)).count > 48_000 * 8 * 20)
    }
}
