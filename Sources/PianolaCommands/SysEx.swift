import ALSA
import ArgumentParser
import FoundationEssentials
import Glibc
import MIDI

/// `pianola send`: SysEx dumps (.syx files) to a MIDI port, paced as a MIDI cable carries them.
struct Send: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send SysEx dumps (.syx files) to a MIDI port, at the pace of a MIDI cable.",
        discussion: """
            Every file is read and checked (each message from F0 to F7, nothing between) before \
            anything is sent. Messages go out at 3,125 bytes a second, what a MIDI cable \
            carries, so a device's input buffer never overflows; --delay instead sends each \
            message at once and waits that long after it (a device that needs time to store \
            what it got). A large dump shows its progress on a terminal; Ctrl-C stops between \
            two pieces of a message (the device is left with a message cut off: send again).
            """)

    @Argument(help: "The .syx files, sent in order.")
    var files: [String]

    @Option(help: "The MIDI port to send to (24:0, \"Midi Through\"; see 'pianola ports').")
    var port: String

    @Option(help: "Milliseconds to wait after each message, instead of the cable's pace.")
    var delay: Double?

    @Flag(help: "No messages but errors.")
    var quiet = false

    /// Nanoseconds a MIDI cable takes for a byte: 10 bits at 31,250 baud.
    static let nanosecondsPerByte: Int64 = 320_000

    func run() throws {
        if let delay, !(0...60_000).contains(delay) { throw fail("--delay \(delay): use 0 to 60000 milliseconds") }
        guard !files.isEmpty else { throw fail("give the .syx files to send") }
        var dumps: [SysExDump] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { throw fail("\(file): cannot read: \(String(cString: strerror(errno)))") }
            do { dumps.append(try SysExDump(bytes: Array(data))) } catch { throw fail("\(file): \(error)") }
        }
        let client: SequencerClient, source: Int, destination: SequencerPort
        do {
            client = try SequencerClient()
            destination = try client.port(named: port, sending: true)
            source = try client.makePort(name: "Pianola SysEx out", sending: true)
        } catch { throw fail(error.description) }

        let interruption = Interruption()
        let total = dumps.reduce(0) { $0 + $1.byteCount }, messages = dumps.reduce(0) { $0 + $1.messages.count }
        let progress = Progress(total: total, shown: !quiet && isatty(STDOUT_FILENO) == 1)
        let started = monotonicNanos()
        var lineFree = started, sent = 0
        for message in dumps.flatMap(\.messages) {
            for start in stride(from: 0, to: message.count, by: SequencerClient.sysexPiece) {
                let piece = Array(message[start..<min(message.count, start + SequencerClient.sysexPiece)])
                if delay == nil { Send.sleep(until: lineFree) }
                if let signal = interruption.signal {
                    progress.finish()
                    printError("stopped after \(sent) of \(total) bytes to \(destination.address)")
                    throw ExitCode(128 + signal)
                }
                do { try client.sendSysex(piece, from: source, to: destination) } catch { throw fail(error.description) }
                lineFree = max(lineFree, monotonicNanos()) + Int64(piece.count) * Send.nanosecondsPerByte
                sent += piece.count
                progress.show(sent)
            }
            if let delay { Send.sleep(until: monotonicNanos() + Int64(delay * 1_000_000)) }
        }
        if delay == nil { Send.sleep(until: lineFree) }   // the last byte off the cable
        progress.finish()
        let seconds = Double(monotonicNanos() - started) / 1e9
        if !quiet {
            print("sent \(messages) message\(messages == 1 ? "" : "s") (\(total) bytes) to \(destination.address) (\(destination.clientName): \(destination.name)) in \(seconds.fixed(2)) s, \(Int((Double(total) / seconds).rounded())) bytes/s")
        }
    }

    /// Sleeps until CLOCK_MONOTONIC reads `nanoseconds` (at once if it has passed).
    static func sleep(until nanoseconds: Int64) {
        var t = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nil) == EINTR {}
    }
}

/// `pianola receive`: the SysEx messages a MIDI port sends, into a .syx file.
struct Receive: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Receive SysEx messages from a MIDI port into a .syx file.",
        discussion: """
            Receives until --count messages have come, --duration has passed, or Ctrl-C; \
            then writes the messages in the order they came, each from F0 to F7. Pieces the \
            kernel cut a long message into are joined; a message cut off by another status \
            byte before its F7 is left out and counted. Nothing is written when nothing came.
            """)

    @Option(name: .shortAndLong, help: "The .syx file to write.")
    var output: String

    @Option(help: "The MIDI port to receive from (24:0, \"Midi Through\"; see 'pianola ports').")
    var port: String

    @Option(help: "Stop after this many messages.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "No messages but errors.")
    var quiet = false

    func run() throws {
        if let count, count < 1 { throw fail("--count \(count): use 1 or more messages") }
        try Record.check(duration: duration)
        try OutputFile.check(output, force: force)
        let input: SequencerInput, source: SequencerPort
        do {
            let client = try SequencerClient()
            source = try client.port(named: port, sending: false)
            input = try SequencerInput(client: client)
            try input.listen(to: source)
        } catch { throw fail(error.description) }
        let interruption = Interruption()
        if !quiet { print("receiving SysEx from \(source.address) (\(source.clientName): \(source.name)) into \(output)"); fflush(nil) }
        input.start(startQueue: true)
        let started = monotonicNanos()
        while interruption.signal == nil {
            usleep(20_000)
            if let count, input.sysexCount >= count { break }
            if let duration, Double(monotonicNanos() - started) / 1e9 >= duration { break }
        }
        var messages = input.stop().compactMap { arrival -> [UInt8]? in if case .sysex(let body) = arrival.message { [0xF0] + body } else { nil } }
        if let count { messages = Array(messages.prefix(count)) }
        if input.brokenSysex > 0 { printError("warning: \(input.brokenSysex) message\(input.brokenSysex == 1 ? "" : "s") from \(source.address) came cut off (a status byte before F7) and \(input.brokenSysex == 1 ? "was" : "were") left out") }
        guard !messages.isEmpty else { throw fail("no SysEx message came from \(source.address); nothing written") }
        let bytes = SysExDump(messages: messages).bytes
        try OutputFile.write(bytes, to: output, force: force, while: "receiving")
        if !quiet { print("wrote \(output): \(messages.count) message\(messages.count == 1 ? "" : "s"), \(bytes.count) bytes") }
        if let signal = interruption.signal { throw ExitCode(128 + signal) }
    }
}

/// A transfer's progress on a terminal: one line redrawn in place.
private final class Progress {
    let total: Int
    let shown: Bool
    private var lastPercent = -1

    init(total: Int, shown: Bool) {
        self.total = total
        self.shown = shown
    }

    /// Shows `done` of the total, when the percentage moves.
    func show(_ done: Int) {
        let percent = total > 0 ? done * 100 / total : 100
        guard shown, percent != lastPercent else { return }
        lastPercent = percent
        print("\r\(done) / \(total) bytes (\(percent) %)", terminator: "")
        fflush(nil)
    }

    /// Ends the line.
    func finish() {
        if shown && lastPercent >= 0 { print("") }
    }
}
