import Engine
import MIDI

/// A sequence made ready for the render thread: every track's events merged in time order,
/// each with its sample frame at normal speed computed once from the tempo map (exact, no
/// accumulated error), plus the song's end. Immutable. Any thread.
public final class Score: Sendable {
    /// One event of the merged score. Any thread.
    public struct Event: Sendable {
        /// Tick in the sequence. Any thread.
        public let tick: Int
        /// Sample frame at rate 1 from the song's start. Any thread.
        public let frame: Int64
        /// Index of the track it comes from. Any thread.
        public let track: Int
        /// The message. Any thread.
        public let message: MIDIMessage
    }

    /// The events, by frame, then by track, then in track order. Any thread.
    public let events: [Event]
    /// The song's end (its longest track) in ticks. Any thread.
    public let endTick: Int
    /// The song's end in frames. Any thread.
    public let endFrame: Int64
    /// The tempo map the frames come from. Any thread.
    public let tempoMap: TempoMap
    /// The bar:beat map, `nil` for SMPTE time. Any thread.
    public let meterMap: MeterMap?
    /// The sample rate of the frames. Any thread.
    public let sampleRate: Int
    /// Number of tracks. Any thread.
    public let trackCount: Int

    /// Prepares `sequence` for playing at `sampleRate`. Control thread.
    public init(_ sequence: Sequence, sampleRate: Int) {
        let map = sequence.tempoMap
        var merged: [(tick: Int, track: Int, order: Int, message: MIDIMessage)] = []
        for (t, track) in sequence.tracks.enumerated() {
            for (i, e) in track.events.enumerated() { merged.append((e.tick, t, i, e.message)) }
        }
        merged.sort { ($0.tick, $0.track, $0.order) < ($1.tick, $1.track, $1.order) }
        events = merged.map { Event(tick: $0.tick, frame: map.sampleFrame(atTick: $0.tick, sampleRate: sampleRate), track: $0.track, message: $0.message) }
        endTick = sequence.length
        endFrame = map.sampleFrame(atTick: sequence.length, sampleRate: sampleRate)
        tempoMap = map
        meterMap = sequence.meterMap
        self.sampleRate = sampleRate
        trackCount = sequence.tracks.count
    }

    /// Index of the first event at or after `tick`. Any thread.
    public func firstIndex(atOrAfterTick tick: Int) -> Int { partitionPoint { $0.tick < tick } }

    /// Index of the first event at or after `frame`. Any thread.
    public func firstIndex(atOrAfterFrame frame: Int64) -> Int { partitionPoint { $0.frame < frame } }

    /// The first index whose event is not `before` (events are in time order, so `before`
    /// holds for a prefix).
    private func partitionPoint(_ before: (Event) -> Bool) -> Int {
        var low = 0, high = events.count
        while low < high {
            let mid = (low + high) / 2
            if before(events[mid]) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
