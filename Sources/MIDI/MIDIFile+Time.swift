extension MIDIFile {
    /// The tempo map of a format 0 or 1 file: tempo events from all tracks apply to all.
    /// (For format 2 each track has its own: `tempoMap(forTrack:)`.) Any thread.
    public var tempoMap: TempoMap { TempoMap(division: division, tracks: tracks) }

    /// The tempo map of one track on its own, as a format 2 sequence is timed. Any thread.
    public func tempoMap(forTrack index: Int) -> TempoMap {
        TempoMap(division: division, tracks: [tracks[index]])
    }

    /// Seconds until the last event (End of Track included) of any track. Formats 0 and 1 use
    /// the tempo events of all tracks; format 2 plays its sequences one after another, each
    /// from 120 bpm with its own tempo events; SMPTE division counts ticks per second. Any thread.
    public var durationSeconds: Double {
        if format == 2 {
            return tracks.indices.reduce(0) { $0 + tempoMap(forTrack: $1).seconds(atTick: tracks[$1].endTick) }
        }
        return tempoMap.seconds(atTick: tracks.map(\.endTick).max() ?? 0)
    }

    /// Note-ons with velocity above 0, over all tracks. Any thread.
    public var noteCount: Int { tracks.reduce(0) { $0 + $1.noteCount } }
}

extension MIDIFile.Track {
    /// Note-ons with velocity above 0. Any thread.
    public var noteCount: Int { events.reduce(0) { $0 + ($1.message.isSoundingNoteOn ? 1 : 0) } }

    /// The channels its channel messages use, ascending. Any thread.
    public var channels: [MIDIChannel] {
        var used = [Bool](repeating: false, count: 16)
        for event in events { if let c = event.message.channel { used[Int(c)] = true } }
        return (0..<16).filter { used[$0] }.map { MIDIChannel($0) }
    }
}
