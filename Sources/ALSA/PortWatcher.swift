import CALSA
import Engine

/// Watches the sequencer's announcements — ports appearing and vanishing, as when a USB MIDI
/// device is plugged in or out — on a client and a thread of its own, and tells `onChange`.
/// Control thread, except as noted.
public final class PortWatcher: @unchecked Sendable {
    // @unchecked Sendable: the client is used by the watcher thread only once it runs; the
    // thread's stop flag is the only state shared with the control thread.

    /// What changed. Any thread.
    public enum Change: Sendable {
        /// A port appeared (or a client with its ports). Any thread.
        case appeared(SequencerPort)
        /// A port vanished; `port` is nil when its whole client went. Any thread.
        case vanished(client: Int, port: Int?)
    }

    private let client: SequencerClient
    private let onChange: @Sendable (Change) -> Void
    private let watcher = StoppableThread()

    /// Starts watching; `onChange` is called on the watcher thread. Control thread.
    public init(onChange: @escaping @Sendable (Change) -> Void) throws(SequencerError) {
        client = try SequencerClient(name: "Pianola port watcher")
        self.onChange = onChange
        let port = try client.makePort(name: "announcements", sending: false)
        try client.subscribe(from: (Int(SND_SEQ_CLIENT_SYSTEM), Int(SND_SEQ_PORT_SYSTEM_ANNOUNCE)), to: (client.clientID, port),
                             what: "ALSA sequencer: cannot watch for ports coming and going")
        watcher.start { self.client.readEvents(until: self.watcher, checkingEvery: 50) { self.take($0) } }
    }

    deinit { stop() }

    /// Stops watching and waits for the thread. Control thread.
    public func stop() { watcher.stop() }

    private func take(_ event: snd_seq_event_t) {
        let address = event.data.addr
        switch Int32(event.type) {
        case Int32(SND_SEQ_EVENT_PORT_START.rawValue):
            if let port = client.ports().first(where: { $0.client == Int(address.client) && $0.port == Int(address.port) }) {
                onChange(.appeared(port))
            }
        case Int32(SND_SEQ_EVENT_PORT_EXIT.rawValue):
            onChange(.vanished(client: Int(address.client), port: Int(address.port)))
        case Int32(SND_SEQ_EVENT_CLIENT_EXIT.rawValue):
            onChange(.vanished(client: Int(address.client), port: nil))
        default:
            break
        }
    }
}
