import Testing
@testable import MIDI

@Suite("SMF reader: defects, strict and lenient")
struct SMFMalformedTests {
    /// Reads strictly expecting `kind` at `offset`/`track`, then leniently expecting the same
    /// problem as a warning; returns the lenient result.
    @discardableResult
    func expectDefect(_ bytes: [UInt8], _ kind: MIDIFileProblem.Kind, at offset: Int, track: Int?,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> MIDIFile {
        let problem = MIDIFileProblem(offset: offset, track: track, kind: kind)
        #expect(throws: MIDIFileError(problem), sourceLocation: sourceLocation) { try MIDIFile(bytes: bytes, mode: .strict) }
        let file = try MIDIFile(bytes: bytes, mode: .lenient)
        #expect(file.warnings.contains(problem), "warnings: \(file.warnings)", sourceLocation: sourceLocation)
        return file
    }

    func expectFatal(_ bytes: [UInt8], _ kind: MIDIFileProblem.Kind, at offset: Int, track: Int? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let error = MIDIFileError(MIDIFileProblem(offset: offset, track: track, kind: kind))
        for mode in [MIDIFile.ReadMode.strict, .lenient] {
            #expect(throws: error, sourceLocation: sourceLocation) { try MIDIFile(bytes: bytes, mode: mode) }
        }
    }

    static let scale: [UInt8] = [0x00, 0x90, 60, 100, 0x60, 0x80, 60, 0, 0x00, 0x90, 62, 100, 0x60, 0x80, 62, 0]

    @Test("files that are not MIDI at all are refused in both modes")
    func notMIDI() {
        expectFatal([], .emptyFile, at: 0)
        expectFatal(Array("Hello, world!\n".utf8), .notAMIDIFile, at: 0)
        expectFatal([0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 400), .notAMIDIFile, at: 0) // an MP3 frame
        expectFatal(Array("MThd".utf8) + [0, 0, 0, 6, 0, 1], .truncatedHeader(fileSize: 10), at: 0)
        expectFatal(Array("MThd".utf8) + [0, 0, 0, 4, 0, 1, 0, 1, 0, 96], .headerLength(4), at: 4)
        expectFatal(SMFBytes.header(tracks: 1, division: 0) + SMFBytes.track(SMFBytes.endOfTrack), .zeroDivision, at: 12)
        expectFatal(SMFBytes.header(tracks: 1, division: 0xE700) + SMFBytes.track(SMFBytes.endOfTrack),
                    .badSMPTEDivision(framesPerSecond: 25, ticksPerFrame: 0), at: 12)
    }

    @Test("a 10-byte header claiming 65,535 tracks and a 4 GB chunk are refused without allocating")
    func hostileLengths() throws {
        // 14-byte MThd claiming 65,535 tracks, then nothing.
        let many = SMFBytes.header(format: 1, tracks: 65_535)
        let file = try expectDefect(many, .trackCountMismatch(header: 65_535, found: 0), at: 10, track: nil)
        #expect(file.tracks.isEmpty)
        // A chunk claiming 4 GB: lenient reads what is there.
        let huge = SMFBytes.header(format: 0, tracks: 1) + SMFBytes.chunk("MTrk", Self.scale + SMFBytes.endOfTrack, length: 0xFFFF_FFFF)
        let read = try expectDefect(huge, .chunkRunsPastEnd(length: 0xFFFF_FFFF, fileSize: huge.count), at: 22, track: 1)
        #expect(read.noteCount == 2)
        #expect(MIDIFileError(MIDIFileProblem(offset: 22, track: 1, kind: .chunkRunsPastEnd(length: 4_294_967_295, fileSize: 348))).description
                == "byte 22, track 1: chunk length 4294967295 runs past the end of the file (size 348)")
    }

    @Test("a variable-length number that never ends")
    func endlessVLQ() throws {
        let bytes = SMFBytes.file(Self.scale + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        let file = try expectDefect(bytes, .vlqTooLong, at: 22 + Self.scale.count, track: 1)
        #expect(file.noteCount == 2)
        #expect(file.tracks[0].events.last == MIDIEvent(tick: 192, .meta(.endOfTrack)))
        // Also as a sysex length.
        try expectDefect(SMFBytes.file([0x00, 0xF0, 0x80, 0x80, 0x80, 0x80, 0x80]), .vlqTooLong, at: 22, track: 1)
    }

    @Test("truncated last chunk: lenient keeps every whole event before the cut")
    func truncated() throws {
        let whole = SMFBytes.file(Self.scale + SMFBytes.endOfTrack)
        let cut = Array(whole.dropLast(6))   // inside the last note-off
        let file = try expectDefect(cut, .chunkRunsPastEnd(length: UInt32(Self.scale.count + 4), fileSize: cut.count), at: 22, track: 1)
        #expect(file.warnings.map(\.kind).contains(.truncatedEvent))
        #expect(file.tracks[0].events.map(\.message) == [
            .noteOn(channel: 0, note: 60, velocity: 100), .noteOff(channel: 0, note: 60, velocity: 0),
            .noteOn(channel: 0, note: 62, velocity: 100), .meta(.endOfTrack),
        ])
        #expect(file.tracks[0].endTick == 96)
    }

    @Test("missing End of Track, bytes after it, junk after the end, count mismatches, format 0 with two tracks")
    func structuralDefects() throws {
        let noEnd = SMFBytes.file(Self.scale)
        let file = try expectDefect(noEnd, .missingEndOfTrack, at: 22 + Self.scale.count, track: 1)
        #expect(file.tracks[0].events.last == MIDIEvent(tick: 192, .meta(.endOfTrack)))
        #expect(file.warnings[0].description == "byte 38, track 1: missing End of Track; track ends at its last event")

        let after = SMFBytes.file(Self.scale + SMFBytes.endOfTrack + [0x00, 0x90, 70, 1])
        let a = try expectDefect(after, .bytesAfterEndOfTrack(4), at: 22 + Self.scale.count + 4, track: 1)
        #expect(a.noteCount == 2)

        let junk = SMFBytes.file(Self.scale + SMFBytes.endOfTrack) + [0x00, 0x0A, 0xFF]
        try expectDefect(junk, .junkAfterEnd(byteCount: 3), at: 22 + Self.scale.count + 4, track: nil)

        let twoInFormat0 = SMFBytes.header(format: 0, tracks: 2) + SMFBytes.track(SMFBytes.endOfTrack) + SMFBytes.track(SMFBytes.endOfTrack)
        try expectDefect(twoInFormat0, .formatZeroTrackCount(2), at: 8, track: nil)

        let fewer = SMFBytes.header(format: 1, tracks: 3) + SMFBytes.track(SMFBytes.endOfTrack)
        try expectDefect(fewer, .trackCountMismatch(header: 3, found: 1), at: 10, track: nil)

        let format3 = SMFBytes.header(format: 3, tracks: 1) + SMFBytes.track(SMFBytes.endOfTrack)
        #expect(try expectDefect(format3, .unknownFormat(3), at: 8, track: nil).format == 3)

        // Header length 22 over a normal 6-byte header: lenient finds the track at byte 14.
        var longHeader = SMFBytes.file(Self.scale + SMFBytes.endOfTrack)
        longHeader[7] = 22
        #expect(try expectDefect(longHeader, .headerLength(22), at: 4, track: nil).noteCount == 2)
    }

    @Test("bad bytes inside events")
    func badEventBytes() throws {
        // Data byte with no running status.
        let noStatus = SMFBytes.file([0x00, 0x3C, 0x40] + SMFBytes.endOfTrack)
        let a = try expectDefect(noStatus, .noRunningStatus(byte: 0x3C), at: 23, track: 1)
        #expect(a.tracks[0].events == [MIDIEvent(tick: 0, .meta(.endOfTrack))])

        // Data byte above 127: lenient clamps to 127 as mido's clip mode does.
        let high = SMFBytes.file([0x00, 0x90, 0x3C, 0xC8] + SMFBytes.endOfTrack)
        let b = try expectDefect(high, .dataByteOutOfRange(0xC8), at: 24, track: 1)
        #expect(b.tracks[0].events[0].message == .noteOn(channel: 0, note: 60, velocity: 127))

        // System messages in a track: lenient keeps them (typed, never sent), reads on.
        let system = SMFBytes.file([0x00, 0xF1, 0x7F, 0x00, 0xF2, 0x01, 0x02, 0x00, 0xF4, 0x00, 0xF8] + Self.scale + SMFBytes.endOfTrack)
        let c = try expectDefect(system, .systemMessageInTrack(status: 0xF1), at: 23, track: 1)
        #expect(c.tracks[0].events.prefix(4).map(\.message) == [
            .system(status: 0xF1, data: [0x7F]), .system(status: 0xF2, data: [1, 2]),
            .system(status: 0xF4, data: []), .system(status: 0xF8, data: []),
        ])
        #expect(c.noteCount == 2)

        // Running status after a meta event.
        let afterMeta = SMFBytes.file([0x00, 0x90, 60, 1, 0x00, 0xFF, 0x01, 0x01, 0x41, 0x10, 62, 1] + SMFBytes.endOfTrack)
        try expectDefect(afterMeta, .runningStatusAfter(cancelledBy: 0xFF), at: 32, track: 1)

        // Meta events with wrong lengths are kept raw; out-of-range values are kept typed.
        let shortTimeSig = SMFBytes.file([0x00, 0xFF, 0x58, 0x02, 0x04, 0x02] + SMFBytes.endOfTrack)
        let d = try expectDefect(shortTimeSig, .malformedMeta(type: 0x58, reason: "length 2, expected 4"), at: 22, track: 1)
        #expect(d.tracks[0].events[0].message == .meta(.unknown(type: 0x58, data: [4, 2])))
        let badKey = SMFBytes.file([0x00, 0xFF, 0x59, 0x02, 0x09, 0x00] + SMFBytes.endOfTrack)
        try expectDefect(badKey, .malformedMeta(type: 0x59, reason: "key signature 9 sharps, mode 0 is not a key"), at: 22, track: 1)
        let badOffset = SMFBytes.file([0x00, 0xFF, 0x54, 0x05, 0x60, 0x00, 0x00, 0x1E, 0x00] + SMFBytes.endOfTrack)
        try expectDefect(badOffset, .malformedMeta(type: 0x54, reason: "SMPTE offset field out of range"), at: 22, track: 1)
        let sysexTooLong = SMFBytes.file([0x00, 0xF0, 0x7F, 0x01])
        try expectDefect(sysexTooLong, .truncatedEvent, at: 22, track: 1)
    }

    @Test("file errors name the path")
    func fileErrors() throws {
        #expect(throws: MIDIFileError(MIDIFileProblem(offset: 0, track: nil, kind: .unreadable("No such file or directory")),
                                      path: "/nonexistent/song.mid")) {
            try MIDIFile(contentsOf: "/nonexistent/song.mid")
        }
        #expect(throws: MIDIFileError(MIDIFileProblem(offset: 0, track: nil, kind: .unreadable("is a directory")), path: "/")) {
            try MIDIFile(contentsOf: "/")
        }
        // An endless device is cut off at the size limit instead of filling memory.
        #expect(throws: MIDIFileError(MIDIFileProblem(offset: 0, track: nil, kind: .unreadable("larger than 64 MB, which no MIDI file is")),
                                      path: "/dev/zero")) {
            try MIDIFile(contentsOf: "/dev/zero")
        }
    }
}
