import ArgumentParser
import MIDI

/// The options that keep other MIDI devices in step with a song: `--clock`, `--mtc`,
/// `--mtc-rate` and `--port-latency` (play, and record with --play).
struct SyncOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Send MIDI clock to these MIDI ports (comma list, repeatable): 24 a quarter note at the tempo played, with Start, Stop, Song Position Pointer and Continue.",
        valueName: "port[,port…]"))
    var clock: [String] = []

    @Option(help: ArgumentHelp(
        "Send MIDI timecode to these MIDI ports (comma list, repeatable): quarter frames while playing, a full frame at every start and jump.",
        valueName: "port[,port…]"))
    var mtc: [String] = []

    @Option(name: .customLong("mtc-rate"), help: ArgumentHelp("Frames a second of the timecode: 24, 25, 29.97df (drop-frame) or 30 (the default).", valueName: "rate"))
    var mtcRate: String?

    @Option(name: .customLong("sync"), help: ArgumentHelp(
        "Follow the MIDI clock from this port: wait for its Start or Continue, play at the tempo its clock implies, stop at its Stop, move to its Song Position Pointer.",
        valueName: "port"))
    var follow: String?

    @Option(name: .customLong("port-latency"), help: ArgumentHelp(
        "A port's own delay, made up for: its events go out MS milliseconds early (late when negative), so a slow device sounds with the audio and the other ports. Repeatable.",
        valueName: "port=ms"))
    var portLatency: [String] = []

    /// Whether clock or timecode goes anywhere, or a clock is followed.
    var sendsSync: Bool { !clock.isEmpty || !mtc.isEmpty || follow != nil }

    /// The options checked and split: port names, the timecode rate, each latency.
    struct Parsed {
        var clock: [String] = []
        var timecode: [String] = []
        var timecodeRate = SMPTERate.fps30
        var latencies: [(port: String, milliseconds: Double, text: String)] = []
        var follow: String?
    }

    /// The options checked; exits with one line on an empty port name, an unknown rate, a
    /// malformed latency or one beyond a second either way.
    func parsed() throws -> Parsed {
        func ports(_ lists: [String], option: String) throws -> [String] {
            try lists.flatMap { list in
                try list.split(separator: ",", omittingEmptySubsequences: false).map { name in
                    guard !name.isEmpty else { throw fail("--\(option) \(list): an empty port name; give ports separated by commas") }
                    return String(name)
                }
            }
        }
        var result = Parsed(clock: try ports(clock, option: "clock"), timecode: try ports(mtc, option: "mtc"), follow: follow)
        if let mtcRate {
            guard let rate = SMPTERate.allCases.first(where: { $0.mtcName == mtcRate.lowercased() }) else {
                throw fail("--mtc-rate \(mtcRate): use 24, 25, 29.97df or 30")
            }
            guard !mtc.isEmpty else { throw fail("--mtc-rate \(mtcRate): give the ports the timecode goes to with --mtc") }
            result.timecodeRate = rate
        }
        result.latencies = try portLatency.map { text in
            guard let equals = text.lastIndex(of: "="), equals != text.startIndex, let ms = Double(text[text.index(after: equals)...]), ms.isFinite else {
                throw fail("--port-latency \(text): give PORT=MS, e.g. 24:0=12.5 or 'Midi Through'=-8")
            }
            guard abs(ms) <= 1000 else { throw fail("--port-latency \(text): use -1000 to 1000 milliseconds") }
            return (String(text[..<equals]), ms, text)
        }
        return result
    }
}
