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
    typealias Opened = MIDIPorts

    /// Opens the sequencer and resolves every port name when any MIDI option is given; `nil`
    /// when none is (the song goes to the synthesizer only). Exits with one line on a bad name.
    func open(trackCount: Int, sampleRate: Int, interruption: Interruption) throws -> Opened? {
        let parsed = try sync.parsed()   // a typo fails before any port is opened
        var plan = MIDIPortPlan()
        (plan.port, plan.virtual, plan.clock, plan.timecode) = (port, virtual, parsed.clock, parsed.timecode)
        (plan.timecodeRate, plan.follow, plan.latencies) = (parsed.timecodeRate, parsed.follow, parsed.latencies)
        do {
            plan.routes = try route.map { text throws(MIDIPortError) in try MIDIPortPlan.route(text, trackCount: trackCount, option: "--route") }
        } catch {
            throw fail(error.description)
        }
        guard plan.usesPorts else {
            if let first = sync.portLatency.first { throw fail("--port-latency \(first): Pianola sends to no MIDI port (give --port, --route, --clock or --mtc)") }
            return nil
        }
        var said: Set<String> = []
        let waiting: ((String) throws -> Void)? = waitForPorts ? { name in
            if said.insert(name).inserted { print("waiting for MIDI port '\(name)' to appear (Ctrl-C stops)"); fflush(nil) }
            if let signal = interruption.signal { throw ExitCode(128 + signal) }
            usleep(200_000)
        } : nil
        do {
            return try MIDIPorts.open(client: SequencerClient(), sampleRate: sampleRate, plan: plan, waiting: waiting)
        } catch let error as SequencerError {
            throw fail(error.description)
        } catch let error as MIDIPortError {
            throw fail(error.description)
        }
    }
}

extension MIDIOptions {
    /// Each `--route` as its selectors (with a placeholder target) and its target's name;
    /// exits with one line on a malformed one.
    static func parse(routes: [String], trackCount: Int) throws -> [(selectors: [Routing.Rule], target: String)] {
        do {
            return try routes.map { text throws(MIDIPortError) in try MIDIPortPlan.route(text, trackCount: trackCount, option: "--route") }
        } catch {
            throw fail(error.description)
        }
    }

    /// Opens the ports of `port`, `routes` and `sync` on `client` (the recorder's: one queue,
    /// one clock); exits with one line on a bad name.
    static func open(client: SequencerClient, sampleRate: Int, port: String?, routes: [(selectors: [Routing.Rule], target: String)],
                     sync: SyncOptions.Parsed) throws -> MIDIPorts {
        var plan = MIDIPortPlan()
        (plan.port, plan.routes, plan.clock, plan.timecode) = (port, routes, sync.clock, sync.timecode)
        (plan.timecodeRate, plan.follow, plan.latencies) = (sync.timecodeRate, sync.follow, sync.latencies)
        do { return try MIDIPorts.open(client: client, sampleRate: sampleRate, plan: plan) } catch let error as MIDIPortError { throw fail(error.description) }
    }
}

extension MIDIPorts {
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
