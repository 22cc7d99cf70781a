import Pianola

/// `--mute`, `--solo`, `--mute-channel` and `--solo-channel`: which tracks and channels the
/// user names, by number (from 1, as `info` lists them), range (`5-7`) or, for tracks, name
/// (`Drums`), comma-separated and repeatable. Main thread.
struct TrackSelection {
    let sequence: MusicSequence
    let song: String

    /// The 0-based tracks `values` name; one line for a track that does not exist.
    func tracks(_ values: [String]) throws -> Set<Int> {
        let count = sequence.tracks.count
        var chosen: Set<Int> = []
        for item in values.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }).map(String.init) {
            let text = item.trimmed
            if let range = Self.range(text) {
                guard range.lowerBound >= 1, range.upperBound <= count else {
                    throw fail("track \(text) does not exist: \(song) has \(count) track\(count == 1 ? "" : "s")")
                }
                chosen.formUnion(range.map { $0 - 1 })
            } else if let index = sequence.tracks.firstIndex(where: { ($0.name ?? "").trimmed.lowercased() == text.lowercased() && !text.isEmpty }) {
                chosen.insert(index)
            } else {
                throw fail("no track named '\(text)' in \(song); give a number or a name as 'pianola info' lists them")
            }
        }
        return chosen
    }

    /// The 0-based channels `values` name (1 to 16, ranges); one line for anything else.
    static func channels(_ values: [String], option: String) throws -> Set<Int> {
        var chosen: Set<Int> = []
        for item in values.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }).map(String.init) {
            guard let range = range(item.trimmed), range.lowerBound >= 1, range.upperBound <= 16 else {
                throw fail("\(option) \(item): give channels 1 to 16, or ranges such as 1-9")
            }
            chosen.formUnion(range.map { $0 - 1 })
        }
        return chosen
    }

    /// `N` or `N-M` (N ≤ M), `nil` for anything else.
    static func range(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let low = Int(parts[0]), let high = Int(parts.last!), low <= high else { return nil }
        return low...high
    }

    /// Whether any note of the song still sounds under the settings' mutes and solos.
    func anyNoteHeard(_ settings: SongGraph.Settings) -> Bool {
        let soloing = !settings.soloTracks.isEmpty || !settings.soloChannels.isEmpty
        for (index, track) in sequence.tracks.enumerated() where !settings.mutedTracks.contains(index) {
            for event in track.events where event.message.isSoundingNoteOn {
                guard let channel = event.message.channel.map(Int.init), !settings.mutedChannels.contains(channel) else { continue }
                if !soloing || settings.soloTracks.contains(index) || settings.soloChannels.contains(channel) { return true }
            }
        }
        return false
    }
}
