import MIDI

extension SongLoop {
    /// How a written file marks its loop (`pianola convert --loops`). Any thread.
    public enum Marking: String, Hashable, Sendable, CaseIterable {
        /// `loopStart` and `loopEnd` marker meta events (no `loopEnd` when the loop runs to the end).
        case markers
        /// RPG Maker's controller 111 at the loop's start; the loop runs to the song's end, so
        /// an earlier end is kept as a `loopEnd` marker too.
        case cc111
    }

    /// Whether `message` is one of the events by which `convention` marks a loop. Any thread.
    public static func marks(_ message: MIDIMessage, in convention: Convention) -> Bool {
        switch (convention, message) {
        case (.markers, .meta(.text(.marker, let bytes))):
            return isLoopMarker(String(latin1: bytes))
        case (.emidi, .controlChange(_, 116, _)), (.emidi, .controlChange(_, 117, _)),
             (.rpgMaker, .controlChange(_, 111, _)), (.descent, .controlChange(_, 110, _)), (.descent, .controlChange(_, 111, _)):
            return true
        default:
            return false
        }
    }

    /// Whether a marker's text is a loop marker, `loopStart` or `loopEnd` (any case, spaces
    /// aside). Any thread.
    public static func isLoopMarker(_ text: String) -> Bool {
        let name = text.filter { $0 != " " }.lowercased()
        return name == "loopstart" || name == "loopend"
    }

    /// `file` (a one-song file whose first track is `file.tracks[0]`, ending at `songEnd`)
    /// with this loop marked as `marking` asks, in place of the events of the convention it
    /// was found by. Any thread.
    public func marked(in file: MIDIFile, as marking: Marking, songEnd: Int) -> MIDIFile {
        var file = file
        for index in file.tracks.indices {
            file.tracks[index].events.removeAll { SongLoop.marks($0.message, in: convention) }
        }
        guard !file.tracks.isEmpty else { return file }
        func marker(_ name: String, at tick: Int) -> MIDIEvent { MIDIEvent(tick: tick, .meta(.text(.marker, Array(name.utf8)))) }
        var added: [MIDIEvent]
        switch marking {
        case .markers: added = [marker("loopStart", at: startTick)]
        case .cc111: added = [MIDIEvent(tick: startTick, .controlChange(channel: 0, controller: 111, value: 0))]
        }
        if endTick < songEnd { added.append(marker("loopEnd", at: endTick)) }
        var events = file.tracks[0].events
        var trackEnd = 0
        if let last = events.last, last.message == .meta(.endOfTrack) { trackEnd = events.removeLast().tick }
        events = (events + added).timeOrdered()
        events.append(MIDIEvent(tick: max(trackEnd, events.last?.tick ?? 0), .meta(.endOfTrack)))
        file.tracks[0].events = events
        return file
    }
}
