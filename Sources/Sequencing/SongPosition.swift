import Faults
import MIDI

extension MusicSequence {
    /// The tick of a position written as seconds (`12.5`) or bar:beat (`3:1`, `3:1:240`,
    /// counted from 1, in the song's meter); throws a reason saying what to give instead. Any thread.
    public func tick(atPosition text: String) throws(SongPositionError) -> Int {
        if let seconds = Double(text), seconds >= 0, seconds.isFinite { return tempoMap.tick(atSeconds: seconds) }
        guard let position = BarBeatTick(text) else { throw SongPositionError("give seconds (12.5) or bar:beat (3:1), counted from 1") }
        guard let meter = meterMap else { throw SongPositionError("this song counts SMPTE time, which has no bars; give seconds") }
        if let problem = meter.problem(with: position) { throw SongPositionError(problem) }
        return meter.tick(at: position)
    }
}

/// Why a position cannot be read, to follow the position itself in a message. Any thread.
public struct SongPositionError: Fault, Hashable, Sendable {
    /// A position is an argument. Any thread.
    public var kind: FaultKind { .argument }
    /// The reason. Any thread.
    public let description: String

    init(_ description: String) { self.description = description }
}
