import ALSA
import ArgumentParser
import Dispatch
import FoundationEssentials
import Synchronization
import Glibc
import MIDI
import Pianola

/// SIGINT and SIGTERM, caught so that play can stop cleanly.
final class Interruption: @unchecked Sendable {
    // @unchecked Sendable: `received` is a Mutex, written by the signal sources' handlers (a
    // global queue) and read by the main thread; `sources` is set in init only.
    private let received = Mutex<Int32?>(nil)
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                self?.received.withLock { if $0 == nil { $0 = number } }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal received, if any.
    var signal: Int32? { received.withLock { $0 } }
}
