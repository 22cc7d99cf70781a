import ALSA
import Engine
import Faults
import MIDI
import Playback
import Sequencing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where a song goes besides the synthesizer: a port for every track, routes for chosen
/// tracks and channels, MIDI clock and timecode out, a clock to follow, and each port's own
/// delay. Names are ports as `pianola ports` lists them (24:0, "Midi Through", client:port).
/// Any thread.
public struct MIDIPortPlan: Sendable {
    /// The port every track goes to that no route names (`nil`: the synthesizer). Any thread.
    public var port: String?
    /// Pianola's own port, which programs connect to, takes what `port` would. Any thread.
    public var virtual = false
    /// Routes, first match wins: selectors (tracks, channels) and the name of their target
    /// ("synth" or a port). Any thread.
    public var routes: [(selectors: [Routing.Rule], target: String)] = []
    /// The ports MIDI clock goes to. Any thread.
    public var clock: [String] = []
    /// The ports MIDI timecode goes to, at `timecodeRate`. Any thread.
    public var timecode: [String] = []
    /// The timecode's frames a second. Any thread.
    public var timecodeRate = SMPTERate.fps30
    /// The port whose MIDI clock the song follows. Any thread.
    public var follow: String?
    /// Ports' own delays, made up for, with the text that gave each (for messages). Any thread.
    public var latencies: [(port: String, milliseconds: Double, text: String)] = []

    /// A plan that sends nothing anywhere. Any thread.
    public init() {}

    /// Whether the plan sends anything to a port or follows one. Any thread.
    public var usesPorts: Bool { port != nil || virtual || !routes.isEmpty || !clock.isEmpty || !timecode.isEmpty || follow != nil }

    /// One route written `SELECTORS=TARGET` (`ch10=synth`, `track2,ch3-4=24:0`), its
    /// selectors checked against a song of `trackCount` tracks; `option` names it in messages
    /// (`--route`, `routes[0]`). Any thread.
    public static func route(_ text: String, trackCount: Int, option: String) throws(MIDIPortError) -> (selectors: [Routing.Rule], target: String) {
        guard let equals = text.firstIndex(of: "="), !text[text.index(after: equals)...].isEmpty, equals != text.startIndex else {
            throw MIDIPortError(.argument, "\(option) \(text): give SELECTORS=TARGET, e.g. ch10=synth or ch1-9=24:0")
        }
        var selectors: [Routing.Rule] = []
        for part in text[..<equals].split(separator: ",") {
            selectors.append(try rule(String(part), target: .synth, trackCount: trackCount, in: text, option: option))
        }
        return (selectors, String(text[text.index(after: equals)...]))
    }

    /// One selector of `option`'s `text`: `ch3`, `ch1-9`, `track2`, `track2-4`, `track2/ch10`. Any thread.
    public static func rule(_ selector: String, target: Routing.Target, trackCount: Int, in text: String, option: String) throws(MIDIPortError) -> Routing.Rule {
        var rule = Routing.Rule(target: target)
        for part in selector.lowercased().split(separator: "/") {
            func range(after prefix: String, limit: Int, what: String) throws(MIDIPortError) -> ClosedRange<Int> {
                let numbers = part.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
                guard (1...2).contains(numbers.count), let low = numbers.first!, let high = numbers.last!, low >= 1, low <= high, high <= limit else {
                    throw MIDIPortError(.argument, "\(option) \(text): '\(part)' is not a \(what) or range of them within 1-\(limit)")
                }
                return (low - 1)...(high - 1)
            }
            if part.hasPrefix("ch") {
                rule.channels = try range(after: "ch", limit: 16, what: "channel")
            } else if part.hasPrefix("track") {
                rule.tracks = try range(after: "track", limit: max(1, trackCount), what: "track of this song")
            } else {
                throw MIDIPortError(.argument, "\(option) \(text): '\(part)' names no channels (ch1-16) or tracks (track1...)")
            }
        }
        return rule
    }
}

/// A MIDI port plan that cannot be carried out: a port not there, a route or latency that
/// does not fit, no sequencer. One line. Any thread.
public struct MIDIPortError: Fault, Hashable, Sendable {
    /// What kind of fault. Any thread.
    public let kind: FaultKind
    /// The line. Any thread.
    public let description: String

    /// A fault of `kind` saying `description`. Any thread.
    public init(_ kind: FaultKind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// A plan's ports opened on the sequencer: the output, the routing and destinations a song
/// graph takes, the sync outputs, the followed clock's input. Control thread.
public struct MIDIPorts: CustomStringConvertible {
    /// The sequencer client. Control thread.
    public let client: SequencerClient
    /// The timed output every port is sent through. Control thread.
    public let output: SequencerOutput
    /// Which tracks and channels go where. Control thread.
    public let routing: Routing
    /// The ports the routing's `.external` targets index. Control thread.
    public let destinations: [any MIDIDestination]
    /// Clock and timecode outputs. Control thread.
    public let sync: SyncDestinations
    /// The followed clock's port: an input on the output's queue, and its description. Control thread.
    public let follow: (input: SequencerInput, name: String)?
    /// Lines about ports going away and coming back, posted from the port watcher's thread. Control thread.
    public let news: PortNews
    /// Pianola's own port (`virtual`), if made. Control thread.
    public let virtualPort: Int?
    let names: [String]
    let clockNames: [String]
    let timecodeNames: [String]

    /// Where everything goes, in one line. Control thread.
    public var description: String {
        var parts = names
        if !clockNames.isEmpty { parts.append("clock to " + clockNames.joined(separator: ", ")) }
        if let follow { parts.append("following the clock of " + follow.name) }
        if !timecodeNames.isEmpty { parts.append("timecode (\(sync.timecodeRate.mtcName) fps) to " + timecodeNames.joined(separator: ", ")) }
        if let virtualPort { parts.append("Pianola's port \(client.clientID):\(virtualPort) and whoever connects to it") }
        let timing = output.isPrecise ? "" : "; timed by the system tick (load snd-hrtimer for 0.25 ms timing)"
        return (parts.isEmpty ? "no ports" : "sending to " + parts.joined(separator: ", ")) + timing
    }

    /// What went wrong with the MIDI out while `song` played, one line each. Control thread.
    public func warnings(song: String) -> [String] {
        var lines: [String] = []
        if output.dropped > 0 { lines.append("\(output.dropped) MIDI events lost while playing \(song)") }
        let late = output.lateness
        if late.batches > 0 {
            lines.append("MIDI events reached the kernel late \(late.batches) time\(late.batches == 1 ? "" : "s") while playing \(song) (worst \(Double(Int((late.worstSeconds * 10_000).rounded())) / 10) ms): the system was too busy")
        }
        return lines
    }

    /// With a followed clock: a follower for `player` at `sampleRate` (the player is not to
    /// be started: the follower starts it), whose clock messages `startFollowing` passes on. Control thread.
    public func follower(for player: MusicPlayer, sampleRate: Int) -> ClockFollower? {
        follow.map { _ in ClockFollower(player: player, sampleRate: sampleRate) }
    }

    /// Passes the followed port's clock messages to `follower` with their times on the
    /// player's clock (once the output runs, so the times mean something). Control thread.
    public func startFollowing(_ follower: ClockFollower?, sampleRate: Int) {
        guard let follower, let input = follow?.input else { return }
        let output = self.output
        input.start(startQueue: false, recording: false, thru: nil) { status, data1, data2, nanoseconds in
            let time = SampleTime((output.playerSeconds(atQueueTime: nanoseconds) * Double(sampleRate)).rounded())
            follower.receive(status: status, data1: data1, data2: data2, at: time)
        }
    }

    /// Opens `plan`'s ports on `client` for a song at `sampleRate`: the output, the routing
    /// (its targets resolved), the sync ports, the latencies, the followed clock. A port that
    /// is not there throws, or, with `waiting`, calls it (it prints, sleeps, or throws to give
    /// up) and looks again. Control thread.
    public static func open(client: SequencerClient, sampleRate: Int, plan: MIDIPortPlan,
                            waiting: ((String) throws -> Void)? = nil) throws -> MIDIPorts {
        /// The port `name` means; waited for when asked and it is missing.
        func lookUp(_ name: String, sending: Bool) throws -> SequencerPort {
            while true {
                do {
                    return try client.port(named: name, sending: sending)
                } catch {
                    guard let waiting, error.description.contains(": no such port ") else { throw error }
                    try waiting(name)
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
        if let port = plan.port { fallback = try target(port) }
        if plan.virtual {
            virtualPort = output.sourcePortNumber
            destinations.append(try output.destination(to: nil))
            if plan.port == nil { fallback = .external(destinations.count - 1) }
        }
        var rules: [Routing.Rule] = []
        for (selectors, targetName) in plan.routes {
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
        let clock = try syncPorts(plan.clock)
        let timecode = try syncPorts(plan.timecode)
        for (name, milliseconds, text) in plan.latencies {
            let found = try lookUp(name, sending: true)
            guard byAddress[found.address] != nil || syncAddresses.contains(found.address) else {
                throw MIDIPortError(.argument, "--port-latency \(text): Pianola sends nothing to \(found.address) (\(found.clientName): \(found.name)); name a port of --port, --route, --clock or --mtc")
            }
            output.setLatency(seconds: milliseconds / 1000, for: found)
        }
        let news = PortNews()
        try output.watchPorts { news.post($0) }
        var follow: (SequencerInput, String)?
        if let name = plan.follow {
            let source = try lookUp(name, sending: false)
            let input = try SequencerInput(client: client, portName: "Pianola sync in", queue: output.queueID)
            try input.listen(to: source)
            follow = (input, "\(source.address) (\(source.clientName): \(source.name))")
        }
        return MIDIPorts(client: client, output: output, routing: Routing(rules: rules, fallback: fallback), destinations: destinations,
                         sync: SyncDestinations(clock: clock.destinations, timecode: timecode.destinations, timecodeRate: plan.timecodeRate),
                         follow: follow, news: news, virtualPort: virtualPort, names: names, clockNames: clock.names, timecodeNames: timecode.names)
    }

    /// Starts `sequence` playing to these ports alone, with `settings`' transport (no
    /// synthesizer: the sequencer output drives the player from its clock, or the followed
    /// clock does). Returns the player and the follower. Control thread.
    public func startPlaying(_ sequence: MusicSequence, settings: SongGraph.Settings) -> (player: MusicPlayer, follower: ClockFollower?) {
        let routes = routing.destinations(trackCount: sequence.tracks.count, synth: nil, external: destinations)
        let player = MusicPlayer(sequence: sequence, sampleRate: settings.sampleRate, destinations: routes.destinations, trackDestinations: routes.trackDestinations, sync: sync)
        settings.configure(player, for: sequence)
        let follower = follower(for: player, sampleRate: settings.sampleRate)
        if let follower {
            output.start(driving: SchedulerChain([follower, player]))
            startFollowing(follower, sampleRate: settings.sampleRate)
        } else {
            player.start()
            output.start(driving: player)
        }
        return (player, follower)
    }

    /// Lines posted by one thread and taken by another (a play loop prints them). Any thread.
    public final class PortNews: Sendable {
        private let lines = Mutex<[String]>([])

        /// Adds a line. Any thread.
        public func post(_ line: String) { lines.withLock { $0.append(line) } }

        /// The lines posted since the last call. Any thread.
        public func take() -> [String] { lines.withLock { taken in defer { taken = [] }; return taken } }
    }
}

extension SMPTERate {
    /// The rate as `--mtc-rate` names it: 24, 25, 29.97df, 30. Any thread.
    public var mtcName: String {
        switch self {
        case .fps24: "24"
        case .fps25: "25"
        case .fps29_97Drop: "29.97df"
        case .fps30: "30"
        }
    }
}
