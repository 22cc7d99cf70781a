import Engine
import Sequencing

/// A controller change a player merges with its score: `controller` set to `value` on the
/// channels whose bits `channels` holds (bit n: channel n), at `time`. Any thread.
public struct ControllerChange: Hashable, Sendable {
    /// When it is due. Any thread.
    public var time: SampleTime
    /// The controller, 0...127. Any thread.
    public var controller: UInt8
    /// Its value, 0...127. Any thread.
    public var value: UInt8
    /// The channels it goes to, bit n for channel n (0-based). Any thread.
    public var channels: UInt16

    /// A change. Any thread.
    public init(time: SampleTime, controller: UInt8, value: UInt8, channels: UInt16) {
        self.time = time
        self.controller = controller
        self.value = value
        self.channels = channels
    }
}

/// Controller changes from outside the score (a game parameter moving a filter), which a
/// player sends to every destination in time order with its own events. The controllers it
/// drives are its own on their channels: the score's messages for them are dropped. Render
/// thread only, but `owned` (read once, when the player is made).
public protocol ControllerSource: AnyObject, Sendable {
    /// The controllers it drives, each with the channels (bit n: channel n). Control thread.
    var owned: [(controller: UInt8, channels: UInt16)] { get }
    /// The next change due at or after `time` and before `limit`, taken (the next call gives
    /// the one after), `nil` if none. Render thread only.
    func takeChange(from time: SampleTime, before limit: SampleTime) -> ControllerChange?
    /// What was taken from `time` on was dropped (a transport jump): the changes from then
    /// on, and the values standing then, are to be given again. Render thread only.
    func rewind(to time: SampleTime)
}

/// Chooses, where a section of the song ends, which section plays next (a game parameter
/// re-sequencing the song): the player goes there on the boundary's frame, as a jump. Render
/// thread only, but `sectionStartTicks` (read once, when the player is made).
public protocol SectionChooser: AnyObject, Sendable {
    /// Where the song's sections start, in order (a section runs to the next one's start). Control thread.
    var sectionStartTicks: [Int] { get }
    /// The section (an index into `sectionStartTicks`) to play when section `ending` ends at
    /// `time`; `nil` for the one that follows. Render thread only.
    func section(after ending: Int, at time: SampleTime) -> Int?
}
