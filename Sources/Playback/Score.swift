import Engine
import Sequencing
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
        /// Index of its `AutomationStep` in `automation` when it is a parameter event, else -1. Any thread.
        public let automationIndex: Int32
    }

    /// A parameter event of the score, linked to the next event of its lane. Any thread.
    public struct AutomationStep: Sendable {
        /// The event. Any thread.
        public let event: ParameterEvent
        /// Its lane: one target's one parameter (`laneCount` of them). Any thread.
        public let lane: Int
        /// Index in `events` of the event itself. Any thread.
        public let index: Int
        /// Sample frame at rate 1 from the song's start. Any thread.
        public let frame: Int64
        /// Index in `automation` of the lane's next step, -1 at the lane's end. Any thread.
        public let next: Int
    }

    /// Lanes: 255 inputs and the output, two parameters each. Any thread.
    public static let laneCount = 512

    /// The parameter events, in score order. Any thread.
    public let automation: [AutomationStep]
    /// The lanes that have at least one event, ascending. Any thread.
    public let automatedLanes: [Int]

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
    public init(_ sequence: MusicSequence, sampleRate: Int) {
        let map = sequence.tempoMap
        var steps: [(event: ParameterEvent, lane: Int, index: Int, frame: Int64)] = []
        var scored: [Event] = []
        scored.reserveCapacity(sequence.tracks.reduce(0) { $0 + $1.events.count })
        for (index, (track, e)) in TimeOrderedEvents(tracks: sequence.tracks.map(\.events)).enumerated() {
            let frame = map.sampleFrame(atTick: e.tick, sampleRate: sampleRate)
            var automationIndex: Int32 = -1
            if let p = e.message.parameterEvent {
                automationIndex = Int32(steps.count)
                steps.append((p, Score.lane(of: p), index, frame))
            }
            scored.append(Event(tick: e.tick, frame: frame, track: track, message: e.message, automationIndex: automationIndex))
        }
        events = scored
        var next = Array(repeating: -1, count: steps.count)
        var laneLast = [Int: Int]()   // lane: its latest step so far
        for (i, step) in steps.enumerated() {
            if let last = laneLast[step.lane] { next[last] = i }
            laneLast[step.lane] = i
        }
        automation = steps.indices.map {
            AutomationStep(event: steps[$0].event, lane: steps[$0].lane, index: steps[$0].index, frame: steps[$0].frame, next: next[$0])
        }
        automatedLanes = laneLast.keys.sorted()
        endTick = sequence.length
        endFrame = map.sampleFrame(atTick: sequence.length, sampleRate: sampleRate)
        tempoMap = map
        meterMap = sequence.meterMap
        self.sampleRate = sampleRate
        trackCount = sequence.tracks.count
    }

    /// The lane of a parameter event: its target's parameter. Any thread.
    public static func lane(of event: ParameterEvent) -> Int {
        let target = switch event.target {
        case .output: 255
        case .input(let n): min(max(n, 0), 254)   // as the meta event stores it
        }
        return target * 2 + Int(event.parameter.rawValue)
    }

    /// The target and parameter of a lane. Any thread.
    public static func target(ofLane lane: Int) -> (ParameterEvent.Target, ParameterEvent.Parameter) {
        (lane / 2 == 255 ? .output : .input(lane / 2), ParameterEvent.Parameter(rawValue: UInt8(lane % 2))!)
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
