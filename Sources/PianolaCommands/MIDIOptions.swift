import ALSA
import ArgumentParser
import Engine
import FoundationEssentials
import Glibc
import Pianola
import Synchronization

/// The options that send a song to ALSA sequencer ports: `--port`, `--virtual`, `--route`.
struct MIDIOptions: ParsableArguments {
    @Option(help: "Send the song to this MIDI port instead of the synthesizer (24:0, \"Midi Through\"; see 'pianola ports').")
    var port: String?

    @Flag(help: "Make Pianola's own MIDI port, wait until a program connects to it, and send the song there.")
    var virtual = false

    @Option(help: MIDIOptions.routeHelp)
    var route: [String] = []

    @OptionGroup var sync: SyncOptions

    @Flag(help: "Wait for a named MIDI port that is not there yet (a device not plugged in) instead of stopping.")
    var waitForPorts = false

    /// How `--route` is written (play and record --play share it).
    static let routeHelp = ArgumentHelp(
        "Send chosen tracks or channels somewhere: SELECTORS=TARGET, repeatable, first match wins.",
        discussion: """
            SELECTORS is a comma list of chN or chN-M (channels 1-16), trackN or trackN-M \
            (tracks as 'pianola info' numbers them), or trackN/chM for both. TARGET is synth \
            or a MIDI port. What no route names goes to --port (or the virtual port) if given, \
            else to the synth. Example: --route ch10=synth --route ch1-9,ch11-16=24:0
            """, valueName: "selectors=target")

    /// The sequencer client, its output and the song's routing, once the names are resolved.
    struct Opened: CustomStringConvertible {
        let client: SequencerClient
        let output: SequencerOutput
        let routing: Routing
        let destinations: [any MIDIDestination]
        let sync: SyncDestinations
        /// The followed clock's port (`--sync`): an input on the output's queue, and its description.
        let follow: (input: SequencerInput, name: String)?
        let names: [String]
        /// Lines about ports going away and coming back, from the port watcher's thread.
        let news: PortNews
        let clockNames: [String]
        let timecodeNames: [String]
        let virtualPort: Int?

        var description: String {
            var parts = names
            if !clockNames.isEmpty { parts.append("clock to " + clockNames.joined(separator: ", ")) }
            if let follow { parts.append("following the clock of " + follow.name) }
            if !timecodeNames.isEmpty { parts.append("timecode (\(sync.timecodeRate.mtcName) fps) to " + timecodeNames.joined(separator: ", ")) }
            if let virtualPort { parts.append("Pianola's port \(client.clientID):\(virtualPort) and whoever connects to it") }
            let timing = output.isPrecise ? "" : "; timed by the system tick (load snd-hrtimer for 0.25 ms timing)"
            return (parts.isEmpty ? "no ports" : "sending to " + parts.joined(separator: ", ")) + timing
        }

        /// What went wrong with the MIDI out while `song` played, one line each.
        func warnings(song: String) -> [String] {
            var lines: [String] = []
            if output.dropped > 0 { lines.append("\(output.dropped) MIDI events lost while playing \(song)") }
            let late = output.lateness
            if late.batches > 0 {
                lines.append("MIDI events reached the kernel late \(late.batches) time\(late.batches == 1 ? "" : "s") while playing \(song) (worst \((late.worstSeconds * 1000).fixed(1)) ms): the system was too busy")
            }
            return lines
        }

        /// With `--sync`: a follower for `player` at `sampleRate` (the player is not to be
        /// started: the follower starts it), whose clock messages `startFollowing` passes on.
        func follower(for player: Player, sampleRate: Int) -> ClockFollower? {
            follow.map { _ in ClockFollower(player: player, sampleRate: sampleRate) }
        }

        /// Passes the followed port's clock messages to `follower` with their times on the
        /// player's clock (once the output runs, so the times mean something).
        func startFollowing(_ follower: ClockFollower?, sampleRate: Int) {
            guard let follower, let input = follow?.input else { return }
            let output = self.output
            input.start(startQueue: false, recording: false, thru: nil) { status, data1, data2, nanoseconds in
                let time = SampleTime((output.playerSeconds(atQueueTime: nanoseconds) * Double(sampleRate)).rounded())
                follower.receive(status: status, data1: data1, data2: data2, at: time)
            }
        }

        /// With `--virtual`: waits until some program has connected to Pianola's port.
        func waitForSubscribers(interruption: Interruption, status: StatusLine) throws {
            guard let virtualPort else { return }
            status.say("Pianola's MIDI port is \(client.clientID):\(virtualPort); waiting for a program to connect to it (aconnect \(client.clientID):\(virtualPort) DEST)")
            while client.subscriberCount(port: virtualPort) == 0 {
                if let signal = interruption.signal { throw ExitCode(128 + signal) }
                usleep(50_000)
            }
        }
    }

    /// Opens the sequencer and resolves every port name when any MIDI option is given; `nil`
    /// when none is (the song goes to the synthesizer only). Exits with one line on a bad name.
    func open(trackCount: Int, sampleRate: Int, interruption: Interruption) throws -> Opened? {
        let plan = try sync.parsed()   // a typo fails before any port is opened
        guard port != nil || virtual || !route.isEmpty || sync.sendsSync else {
            if let first = sync.portLatency.first { throw fail("--port-latency \(first): Pianola sends to no MIDI port (give --port, --route, --clock or --mtc)") }
            return nil
        }
        let routes = try Self.parse(routes: route, trackCount: trackCount)
        do {
            return try Self.open(client: SequencerClient(), sampleRate: sampleRate, port: port, virtual: virtual, routes: routes, sync: plan,
                                 waiting: waitForPorts ? interruption : nil)
        } catch let error as SequencerError {
            throw fail(error.description)
        }
    }

    /// Resolves `port`, `virtual`, the parsed `routes` and `sync`'s clock and timecode ports on
    /// `client` into an output and a routing, and gives the ports `sync`'s latencies.
    /// With `waiting`, a port that is not there is waited for (until a signal, which exits).
    static func open(client: SequencerClient, sampleRate: Int, port: String?, virtual: Bool, routes: [ParsedRoute], sync: SyncOptions.Parsed,
                     waiting: Interruption? = nil) throws -> Opened {
        do {
            /// The port `name` means; waited for when asked and it is missing.
            func lookUp(_ name: String, sending: Bool) throws -> SequencerPort {
                var said = false
                while true {
                    do {
                        return try client.port(named: name, sending: sending)
                    } catch {
                        guard let waiting, error.description.contains(": no such port ") else { throw error }
                        if !said { print("waiting for MIDI port '\(name)' to appear (Ctrl-C stops)"); fflush(nil) }
                        said = true
                        if let signal = waiting.signal { throw ExitCode(128 + signal) }
                        usleep(200_000)
                    }
                }
            }
            let output = try SequencerOutput(client: client, sampleRate: sampleRate)
            var destinations: [any MIDIDestination] = []
            var names: [String] = []
            var byAddress: [String: Int] = [:]
            func target(_ name: String) throws -> Routing.Target {
                if name.lowercased() == "synth" { return .synth }
                let found = try lookUp(name, sending: true)
                if let known = byAddress[found.address] { return .external(known) }
                destinations.append(try output.destination(to: found))
                names.append("\(found.address) (\(found.clientName): \(found.name))")
                byAddress[found.address] = destinations.count - 1
                return .external(destinations.count - 1)
            }
            var fallback = Routing.Target.synth
            var virtualPort: Int?
            if let port { fallback = try target(port) }
            if virtual {
                virtualPort = output.sourcePortNumber
                destinations.append(try output.destination(to: nil))
                if port == nil { fallback = .external(destinations.count - 1) }
            }
            var rules: [Routing.Rule] = []
            for (selectors, targetName) in routes {
                let destination = try target(targetName)
                rules += selectors.map { Routing.Rule(tracks: $0.tracks, channels: $0.channels, target: destination) }
            }
            var syncAddresses: Set<String> = []
            /// The sync destinations for ports named by an option, and their descriptions.
            func syncPorts(_ names: [String]) throws -> (destinations: [any MIDIDestination], names: [String]) {
                var seen: Set<String> = []
                var result: ([any MIDIDestination], [String]) = ([], [])
                for name in names {
                    let found = try lookUp(name, sending: true)
                    guard seen.insert(found.address).inserted else { continue }
                    syncAddresses.insert(found.address)
                    result.0.append(try output.syncDestination(to: found))
                    result.1.append("\(found.address) (\(found.clientName): \(found.name))")
                }
                return result
            }
            let clock = try syncPorts(sync.clock)
            let timecode = try syncPorts(sync.timecode)
            for (name, milliseconds, text) in sync.latencies {
                let found = try lookUp(name, sending: true)
                guard byAddress[found.address] != nil || syncAddresses.contains(found.address) else {
                    throw fail("--port-latency \(text): Pianola sends nothing to \(found.address) (\(found.clientName): \(found.name)); name a port of --port, --route, --clock or --mtc")
                }
                output.setLatency(seconds: milliseconds / 1000, for: found)
            }
            let news = PortNews()
            try output.watchPorts { news.post($0) }
            var follow: (SequencerInput, String)?
            if let name = sync.follow {
                let source = try lookUp(name, sending: false)
                let input = try SequencerInput(client: client, portName: "Pianola sync in", queue: output.queueID)
                try input.listen(to: source)
                follow = (input, "\(source.address) (\(source.clientName): \(source.name))")
            }
            return Opened(client: client, output: output, routing: Routing(rules: rules, fallback: fallback),
                          destinations: destinations, sync: SyncDestinations(clock: clock.destinations, timecode: timecode.destinations, timecodeRate: sync.timecodeRate),
                          follow: follow,
                          names: names, news: news, clockNames: clock.names, timecodeNames: timecode.names, virtualPort: virtualPort)
        } catch let error as SequencerError {
            throw fail(error.description)
        }
    }

    /// Lines posted by one thread and taken by another (the play loop prints them).
    final class PortNews: Sendable {
        private let lines = Mutex<[String]>([])

        /// Adds a line. Any thread.
        func post(_ line: String) { lines.withLock { $0.append(line) } }

        /// The lines posted since the last call. Any thread.
        func take() -> [String] { lines.withLock { taken in defer { taken = [] }; return taken } }
    }

    /// One `--route`: its selectors (with a placeholder target) and its target's name.
    typealias ParsedRoute = (selectors: [Routing.Rule], target: String)

    /// Each `--route` as its selectors (with a placeholder target) and its target's name;
    /// exits with one line on a malformed one.
    static func parse(routes: [String], trackCount: Int) throws -> [ParsedRoute] {
        try routes.map { text in
            guard let equals = text.firstIndex(of: "="), !text[text.index(after: equals)...].isEmpty, equals != text.startIndex else {
                throw fail("--route \(text): give SELECTORS=TARGET, e.g. ch10=synth or ch1-9=24:0")
            }
            let selectors = try text[..<equals].split(separator: ",").map { try rule(String($0), target: .synth, trackCount: trackCount, in: text) }
            return (selectors, String(text[text.index(after: equals)...]))
        }
    }

    /// One selector of option `option`'s `text`: `ch3`, `ch1-9`, `track2`, `track2-4`, `track2/ch10`.
    static func rule(_ selector: String, target: Routing.Target, trackCount: Int, in text: String, option: String = "--route") throws -> Routing.Rule {
        var rule = Routing.Rule(target: target)
        for part in selector.lowercased().split(separator: "/") {
            func range(after prefix: String, limit: Int, what: String) throws -> ClosedRange<Int> {
                let numbers = part.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
                guard (1...2).contains(numbers.count), let low = numbers.first!, let high = numbers.last!, low >= 1, low <= high, high <= limit else {
                    throw fail("\(option) \(text): '\(part)' is not a \(what) or range of them within 1-\(limit)")
                }
                return (low - 1)...(high - 1)
            }
            if part.hasPrefix("ch") {
                rule.channels = try range(after: "ch", limit: 16, what: "channel")
            } else if part.hasPrefix("track") {
                rule.tracks = try range(after: "track", limit: max(1, trackCount), what: "track of this song")
            } else {
                throw fail("\(option) \(text): '\(part)' names no channels (ch1-16) or tracks (track1...)")
            }
        }
        return rule
    }
}
