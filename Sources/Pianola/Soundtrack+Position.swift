import Engine
import MIDI
import Playback

// Where the music is: the playing song and its place in it at the frame last rendered.
extension Soundtrack {
    /// The playing song at the end of the audio rendered so far: where it is in seconds,
    /// ticks and bar:beat, its tempo and meter. Any thread.
    public struct Position: Hashable, Sendable {
        /// The song sounding (the one played last that has started), `nil` when none. Any thread.
        public var song: Song?
        /// The music clock's frame this is for: every frame before it has been rendered. Any thread.
        public var sampleTime: SampleTime
        /// Frames into the song as written (its tempo map at the soundtrack's rate; a loop's
        /// wrap or a jump moves it back). Any thread.
        public var songFrame: Int64 = 0
        /// `songFrame` in seconds. Any thread.
        public var seconds: Double = 0
        /// The song's tick there. Any thread.
        public var tick: Int = 0
        /// The bar, from 1; 0 for a song without bars (SMPTE time) or none playing. Any thread.
        public var bar: Int = 0
        /// The beat of the bar, from 1; 0 as for `bar`. Any thread.
        public var beat: Int = 0
        /// How far into the beat, 0 up to 1, by frames. Any thread.
        public var beatFraction: Double = 0
        /// Beats in the bar: 3 in 3/4 (4 when the song has no meter). Any thread.
        public var beatsPerBar: Int = 4
        /// The beat's note value: 4 in 3/4. Any thread.
        public var beatUnit: Int = 4
        /// The tempo it plays at, in quarter notes a minute: the written tempo there times the
        /// rate played (`setTempo`, game parameters). Any thread.
        public var bpm: Double = 0
        /// The section it is in (`Song.sections`), `nil` before the first. Any thread.
        public var section: String?
    }

    /// Where the music is at the end of the audio rendered so far, exact to the frame: the
    /// song played last that has started sounding (a song fading out until the one after it
    /// starts), or none. Stingers and transition segments are not the playing song. Any thread.
    public var position: Position {
        state.withLock { state in
            var found: (deck: Deck, time: SampleTime, frame: ScoreFrame, rate: Double)?
            for deck in (state.current.map { [$0] } ?? []) + state.fading.reversed() {
                let p = deck.node.player.renderedPosition
                guard let frame = p.frame, found.map({ p.time > $0.time }) ?? true else { continue }
                found = (deck, p.time, frame, p.rate)
            }
            guard let (deck, time, frame, rate) = found else { return Position(song: nil, sampleTime: clock.renderedTime) }
            return Self.position(of: deck.song, playing: frame, rate: rate, at: time, score: deck.node.player.score)
        }
    }

    /// `song`'s position at score frame `frame` of `score`, played at `rate` times its tempo,
    /// for music time `time`.
    static func position(of song: Song, playing frame: ScoreFrame, rate: Double, at time: SampleTime, score: MusicPlayer.Score) -> Position {
        let map = score.tempoMap
        let tick = score.tick(at: frame)
        var p = Position(song: song, sampleTime: time, songFrame: frame.frames, seconds: Double(frame.frames) / Double(score.sampleRate), tick: tick,
                         bpm: map.segment(atTick: tick).beatsPerMinute * rate, section: song.sections.section(atTick: tick)?.name)
        guard let meter = score.meterMap else { return p }
        let at = meter.position(atTick: tick)
        let segment = meter.segments.last { $0.tick <= tick }
        p.bar = at.bar
        p.beat = at.beat
        p.beatsPerBar = segment?.beatsPerBar ?? 4
        p.beatUnit = segment?.beatUnit ?? 4
        let beatStart = score.frame(atTick: tick - at.tick)
        let beatEnd = score.frame(atTick: meter.nextTick(on: .beat, atOrAfter: tick - at.tick + 1))
        p.beatFraction = beatEnd > beatStart ? Double(frame - beatStart) / Double(beatEnd - beatStart) : 0
        return p
    }
}
