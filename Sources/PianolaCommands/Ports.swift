import ALSA
import ArgumentParser

/// `pianola ports`: every ALSA sequencer port, like `aconnect -l`; none of Pianola's own,
/// which would be gone by the time the list is read.
struct Ports: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the MIDI ports of the ALSA sequencer (like aconnect -l).",
        discussion: """
            'in' ports take events (play --port sends there), 'out' ports give them (record \
            --port listens there). Name a port by its address (24:0), its port or client name \
            (\"Midi Through\", \"VirMIDI 2-0\") or client:port.
            """)

    func run() throws {
        let client: SequencerClient
        do { client = try SequencerClient() } catch { throw fail(error.description) }
        let ports = client.ports().filter { $0.client != client.clientID }
        let clientWidth = max(6, ports.map(\.clientName.count).max() ?? 0)
        let portWidth = max(4, ports.map(\.name.count).max() ?? 0)
        print("\("port".padded(7)) \("client".padded(clientWidth)) \("name".padded(portWidth)) direction")
        for port in ports {
            var line = "\(port.address.padded(7)) \(port.clientName.padded(clientWidth)) \(port.name.padded(portWidth)) \(port.direction)"
            if port.isKernel { line += " (kernel)" }
            print(line)
        }
    }
}

extension String {
    /// The string followed by spaces up to `width` characters.
    func padded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
