import Engine
import Sequencing
import MIDI

extension MusicPlayer {
    /// A sequence made ready for the render thread: every track's events merged in time order,
    /// each with its score frame (its sample frame at the written tempo) computed once from the tempo map (exact, no
    /// accumulated error), plus the song's end. Immutable. Any thread.
    public final class Score: Sendable {
        /// One event of the merged score, read from its track. Any thread.
        public struct Event: Sendable {
            /// Tick in the sequence. Any thread.
            public let tick: Int
            /// Where it stands in the score. Any thread.
            public let frame: ScoreFrame
            /// Index of the track it comes from. Any thread.
            public let track: Int
            /// The message. Any thread.
            public let message: MIDIMessage
        }

        /// Where one event of the merged score stands and where it is kept: 16 bytes, where a copy
        /// of the event would be 48 (the concerto's 68,575 events, 1.1 MB instead of 3.3). Any thread.
        struct Entry: Sendable {
            let frame: ScoreFrame
            let track: UInt32
            let position: UInt32
        }

        /// The merged events in score order, each read from its track when asked for. Any thread.
        public struct Events: RandomAccessCollection, Sendable {
            let entries: [Entry]
            let tracks: [[MIDIEvent]]

            /// 0. Any thread.
            public var startIndex: Int { 0 }
            /// The number of events. Any thread.
            public var endIndex: Int { entries.count }

            /// The event at `index`. Any thread.
            public subscript(index: Int) -> Event {
                let entry = entries[index]
                let event = tracks[Int(entry.track)][Int(entry.position)]
                return Event(tick: event.tick, frame: entry.frame, track: Int(entry.track), message: event.message)
            }

            /// Where the event at `index` stands in the score, without reading it. Any thread.
            public func frame(at index: Int) -> ScoreFrame { entries[index].frame }
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
        public let events: Events
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
            let tracks = sequence.tracks.map(\.events)
            var entries: [Entry] = []
            entries.reserveCapacity(tracks.reduce(0) { $0 + $1.count })
            var positions = [UInt32](repeating: 0, count: tracks.count)
            for (index, (track, e)) in TimeOrderedEvents(tracks: tracks).enumerated() {
                let frame = ScoreFrame(map.sampleFrame(atTick: e.tick, sampleRate: sampleRate))
                if let p = e.message.parameterEvent {
                    let key = Lane(target: p.target.stored, parameter: p.parameter, first: 0)
                    let lane = laneNumbers[key] ?? laneNumbers.count
                    if lane == laneNumbers.count {
                        laneNumbers[key] = lane
                        lanes.append(Lane(target: key.target, parameter: key.parameter, first: steps.count))
                    }
                    steps.append((p, lane, index, frame))
                }
                entries.append(Entry(frame: frame, track: UInt32(track), position: positions[track]))
                positions[track] += 1
            }
            events = Events(entries: entries, tracks: tracks)
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
        public func firstIndex(atOrAfterTick tick: Int) -> Int { Self.partitionPoint(events.count) { events[$0].tick < tick } }

        /// Index of the first event at or after `frame`. Any thread.
        public func firstIndex(atOrAfter frame: ScoreFrame) -> Int { Self.partitionPoint(events.count) { events.frame(at: $0) < frame } }

        /// Index in `automation` of the step that is the event at `index`, `nil` when that event
        /// is not a parameter event. Any thread.
        public func automationStep(atEvent index: Int) -> Int? {
            let step = Self.partitionPoint(automation.count) { automation[$0].index < index }
            return step < automation.count && automation[step].index == index ? step : nil
        }

        /// The first of `0..<count` for which `before` is false (it holds for a prefix).
        private static func partitionPoint(_ count: Int, _ before: (Int) -> Bool) -> Int {
            var low = 0, high = count
            while low < high {
                let mid = (low + high) / 2
                if before(mid) { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }
}
