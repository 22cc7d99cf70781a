extension MIDIFile {
    /// How many songs the file holds: each sequence of a format 2 file (an XMI file's
    /// sequences among them) is one; any other file is one song. Any thread.
    public var songCount: Int { format == 2 ? max(tracks.count, 1) : 1 }

    /// Song `number` (counted from 1) on its own: a format 2 file's sequence as a format 0
    /// file, or the whole file as song 1 of any other; `nil` when there is no such song.
    /// The origin and the warnings stay the file's. Any thread.
    public func song(_ number: Int) -> MIDIFile? {
        guard (1...songCount).contains(number) else { return nil }
        guard format == 2, tracks.count > 1 else { return self }
        var one = MIDIFile(format: 0, division: division, tracks: [tracks[number - 1]], warnings: warnings)
        one.origin = origin
        return one
    }
}
