import DSP
import Synthesis
import ALSA
import Dispatch
import Engine
import FluidSynth
import MIDI
import Playback
import Sequencing
import Streaming
import Synchronization

// Events on the caller's side: polled, or delivered on a DispatchQueue, never on the audio thread.
extension Soundtrack {
    // MARK: Events

    /// Takes what happened since the last call, oldest first, at most `limit` events (the
    /// rest wait for the next call), and lets go of songs that have faded out. Call it often
    /// (each game frame), or use `deliverEvents`. Any thread.
    public func pollEvents(limit: Int = .max) -> [Event] {
        state.withLock { state in
            maintain(&state)
            var collected: [Event] = []
            for deck in state.fading + state.segments + (state.current.map { [$0] } ?? []) { collectEvents(of: deck, into: &collected, output: state.output) }
            // The players report up to a lookahead early: what the soundtrack scheduled for
            // the same moments comes out with them, so a song's start precedes its first beat.
            if let latest = collected.map(\.sampleTime).max() { releaseScheduled(before: latest + 1, state: &state) }
            state.events += collected
            state.events.sort { $0.sampleTime < $1.sampleTime }   // stable: same-time events keep their order
            let taken = Array(state.events.prefix(max(0, limit)))
            state.events.removeFirst(taken.count)
            return taken
        }
    }

    /// Moves what `deck`'s player has reported into `events`; `output` is the soundtrack's own.
    func collectEvents(of deck: Deck, into events: inout [Event], output: (any AudioOutput)?) {
        let song = deck.song
        for event in deck.node.player.pollEvents() {
            switch event {
            case .marker(let text, _, let time), .cuePoint(let text, _, let time): events.append(.marker(song: song, text: text, sampleTime: time))
            case .beat(let bar, let beat, let tick, let time, let rate):
                events.append(.beat(song: song, details(ofBeat: (bar, beat, tick, time, rate), deck: deck, output: output)))
            case .loopWrapped(let time): events.append(.loopWrapped(song: song, sampleTime: time))
            case .ended(let time): events.append(.songEnded(song: song, sampleTime: time))
            case .jumped(let tick, let time):
                let section = deck.song.sections.section(atTick: tick)?.name ?? ""
                events.append(.jumped(song: song, section: section, sampleTime: time))
            case .userEvent: break
            }
        }
    }

    /// A beat of `deck`'s song (its player's bar, beat, tick, time and rate) with its meter, tempo,
    /// section and, through `output`, the moment it is heard.
    func details(ofBeat beat: (bar: Int, beat: Int, tick: Int, time: SampleTime, rate: Int), deck: Deck, output: (any AudioOutput)?) -> Beat {
        let score = deck.node.player.score
        let meter = score.meterMap?.segments.last { $0.tick <= beat.tick }
        let written = score.tempoMap.segment(atTick: beat.tick).beatsPerMinute
        let heard = output?.frameZeroNanos.map { zero in
            zero + clock.graphTime(ofMusicTime: beat.time) * 1_000_000_000 / Int64(configuration.sampleRate)
        }
        return Beat(bar: beat.bar, beat: beat.beat, beatsPerBar: meter?.beatsPerBar ?? 4, beatUnit: meter?.beatUnit ?? 4,
                    bpm: written * Double(beat.rate) / 100, section: deck.song.sections.section(atTick: beat.tick)?.name,
                    tick: beat.tick, sampleTime: beat.time, heardAtNanos: heard)
    }

    /// Calls `handler` on `queue` with each event, polling every `interval` seconds; `nil`
    /// stops delivery. Any thread.
    public func deliverEvents(on queue: DispatchQueue?, every interval: Double = 0.01, _ handler: @escaping @Sendable (Event) -> Void = { _ in }) {
        let timer = queue.map { DispatchSource.makeTimerSource(queue: $0) }
        timer?.schedule(deadline: .now(), repeating: interval)
        timer?.setEventHandler { [weak self] in
            for event in self?.pollEvents() ?? [] { handler(event) }
        }
        let delivery = timer.map(Delivery.init)
        let previous = state.withLock { state in
            defer { state.delivery = delivery }
            return state.delivery
        }
        previous?.timer.cancel()
        timer?.resume()
    }
}
