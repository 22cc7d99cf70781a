import Engine
import Sequencing
import Synchronization

/// Makes a player follow an external transport (JACK's, moved by a DAW or `jack_transport`):
/// while it rolls the player plays the song at the transport's frame, read as the song's time
/// at its written tempo; when it stops, the player pauses; when it is located elsewhere (its
/// frame not where the last cycle left it), the player moves there, between ticks too. A
/// graph scheduler before the player, asking the transport once a cycle. Render thread,
/// except as noted.
public final class TransportFollower: PlayerFollower, @unchecked Sendable {
    // @unchecked Sendable: the flags are atomic; the rest is the render thread's.

    private let player: MusicPlayer
    private let transport: any ExternalTransport
    private let standingDown = Atomic<Bool>(false)
    private let rollingFlag = Atomic<Bool>(false)
    private var following = false     // the player plays in step
    private var expected = ScoreFrame.start   // the transport's frame at the next cycle, if it rolls on

    /// Follows `transport` for `player`, which must not be started (the follower starts it
    /// when the transport rolls); both run at the same rate. Control thread.
    public init(player: MusicPlayer, transport: any ExternalTransport) {
        self.player = player
        self.transport = transport
    }

    /// Whether the transport rolls. Any thread.
    public var isRunning: Bool { rollingFlag.load(ordering: .relaxed) }
    /// The transport to roll. Any thread.
    public var waitingFor: String { "the transport to roll" }
    /// `nil`: the transport moves the position; the song keeps its own tempo. Any thread.
    public var followedTempo: (bpm: Double?, source: String)? { nil }

    /// Stops following for good. Control thread.
    public func standDown() { standingDown.store(true, ordering: .releasing) }

    /// Starts, pauses or moves the player for the cycle from `time`, as the transport says. Render thread only.
    public func willRender(from time: SampleTime, frames: Int) {
        guard !standingDown.load(ordering: .acquiring) else { return }
        let (rolling, transportFrame) = transport.transportState()
        let frame = ScoreFrame(transportFrame)
        rollingFlag.store(rolling, ordering: .relaxed)
        if rolling {
            if !following || frame != expected {
                player.playFollowing(fromFrame: frame, at: time)
                following = true
            }
            expected = frame + Int64(frames)
        } else if following {
            following = false
            player.pauseFollowing(at: time)
        }
    }
}
