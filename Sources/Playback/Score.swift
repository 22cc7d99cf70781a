import Engine
import Sequencing
import MIDI

/// A sequence made ready for the render thread: every track's events merged in time order,
/// each with its score frame (its sample frame at the written tempo) computed once from the tempo map (exact, no
/// accumulated error), plus the song's end. Immutable. Any thread.
public final class Score: Sendable {
    /// One event of the merged score. Any thread.
    public struct Event: Sendable {
        /// Tick in the sequence. Any thread.
        public let tick: Int
        /// Where it stands in the score. Any thread.
        public let frame: ScoreFrame
        /// Index of the track it comes from. Any thread.
        public let track: Int
        /// The message. Any thread.
        public let message: MIDIMessage
        /// Index of its `AutomationStep` in `automation` when it is a parameter event, else -1. Any thread.
        public let automationIndex: Int32
    }

    /// A parameter event of the score, linked to the next event of its lane. Any thread.
    public struct AutomationStep: Sendable {
        /// The event. Any thread.
        public let event: ParameterEvent
        /// Its lane (an index in `lanes`): one target's one parameter. Any thread.
        public let lane: Int
        /// Index in `events` of the event itself. Any thread.
        public let index: Int
        /// Where it stands in the score. Any thread.
        public let frame: ScoreFrame
        /// Index in `automation` of the lane's next step, -1 at the lane's end. Any thread.
        public let next: Int
    }

    /// One target's one parameter, set by the events of its lane. Any thread.
    public struct Lane: Hashable, Sendable {
        /// The input or output. Any thread.
        public let target: ParameterEvent.Target
        /// The parameter. Any thread.
        public let parameter: ParameterEvent.Parameter
        /// Index in `automation` of the lane's first step. Any thread.
        public let first: Int
    }

    /// The parameter events, in score order. Any thread.
    public let automation: [AutomationStep]
    /// The lanes that have at least one event, in the order their first events come. Any thread.
    public let lanes: [Lane]

    /// The events, by frame, then by track, then in track order. Any thread.
    public let events: [Event]
    /// The song's end (its longest track) in ticks. Any thread.
    public let endTick: Int
    /// The song's end in the score. Any thread.
    public let endFrame: ScoreFrame
    /// The tempo map the frames come from. Any thread.
    public let tempoMap: TempoMap
    /// The bar:beat map, `nil` for SMPTE time. Any thread.
    public let meterMap: MeterMap?
    /// The sample rate of the frames. Any thread.
    public let sampleRate: Int
    /// Number of tracks. Any thread.
    public let trackCount: Int

    /// Prepares `sequence` for playing at `sampleRate`. Control thread.
    public init(_ sequence: MusicSequence, sampleRate: Int) {
        let map = sequence.tempoMap
        var steps: [(event: ParameterEvent, lane: Int, index: Int, frame: ScoreFrame)] = []
        var lanes: [Lane] = [], laneNumbers: [Lane: Int] = [:]
        var scored: [Event] = []
        scored.reserveCapacity(sequence.tracks.reduce(0) { $0 + $1.events.count })
        for (index, (track, e)) in TimeOrderedEvents(tracks: sequence.tracks.map(\.events)).enumerated() {
            let frame = ScoreFrame(map.sampleFrame(atTick: e.tick, sampleRate: sampleRate))
            var automationIndex: Int32 = -1
            if let p = e.message.parameterEvent {
                automationIndex = Int32(steps.count)
                let key = Lane(target: p.target.stored, parameter: p.parameter, first: 0)
                let lane = laneNumbers[key] ?? laneNumbers.count
                if lane == laneNumbers.count {
                    laneNumbers[key] = lane
                    lanes.append(Lane(target: key.target, parameter: key.parameter, first: steps.count))
                }
                steps.append((p, lane, index, frame))
            }
            scored.append(Event(tick: e.tick, frame: frame, track: track, message: e.message, automationIndex: automationIndex))
        }
        events = scored
        var next = Array(repeating: -1, count: steps.count)
        var laneLast = [Int](repeating: -1, count: lanes.count)   // lane: its latest step so far
        for (i, step) in steps.enumerated() {
            if laneLast[step.lane] >= 0 { next[laneLast[step.lane]] = i }
            laneLast[step.lane] = i
        }
        automation = steps.indices.map {
            AutomationStep(event: steps[$0].event, lane: steps[$0].lane, index: steps[$0].index, frame: steps[$0].frame, next: next[$0])
        }
        self.lanes = lanes
        endTick = sequence.length
        endFrame = ScoreFrame(map.sampleFrame(atTick: sequence.length, sampleRate: sampleRate))
        tempoMap = map
        meterMap = sequence.meterMap
        self.sampleRate = sampleRate
        trackCount = sequence.tracks.count
    }

    /// Index of the first event at or after `tick`. Any thread.
    public func firstIndex(atOrAfterTick tick: Int) -> Int { partitionPoint { $0.tick < tick } }

    /// Index of the first event at or after `frame`. Any thread.
    public func firstIndex(atOrAfter frame: ScoreFrame) -> Int { partitionPoint { $0.frame < frame } }

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
