import Engine
import Sequencing

/// A graph scheduler that makes a player follow a master that owns the transport (an external
/// MIDI clock, JACK's transport): it starts, pauses and moves the player, so the control
/// thread leaves those to it. Render thread, except as noted.
package protocol PlayerFollower: RenderScheduler {
    /// Whether the master is running (the player plays in step with it). Any thread.
    var isRunning: Bool { get }
    /// What the player waits for while the master stands still, for a status line. Any thread.
    var waitingFor: String { get }
    /// The tempo the master sets, in quarter notes a minute, and where it comes from (e.g.
    /// "clock"); `nil` when the master moves the position only and the song's tempo stands. Any thread.
    var followedTempo: (bpm: Double?, source: String)? { get }
    /// Stops following for good: the player is left to the control thread. Control thread.
    func standDown()
}
