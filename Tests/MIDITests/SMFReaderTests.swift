import Testing
@testable import MIDI

@Suite("SMF reader: what well-formed files hold")
struct SMFReaderTests {
    @Test("format 0 with running status, note-on velocity 0, every channel message kind")
    func channelMessagesAndRunningStatus() throws {
        let bytes = SMFBytes.file([
            0x00, 0x90, 60, 100,        // note on ch1
            0x60, 62, 90,               // running status: note on
            0x00, 60, 0,                // running status: velocity 0
            0x10, 0x80, 62, 64,         // note off
            0x00, 0xA3, 40, 11,         // poly pressure ch4
            0x00, 0xB9, 7, 100,         // control change ch10
            0x00, 0xC2, 5,              // program change ch3
            0x00, 0xD2, 77,             // channel pressure ch3
            0x00, 0xEF, 0x01, 0x40,     // pitch bend ch16: 0x40<<7 | 1
            0x05, 0x01, 0x00,           // running status pitch bend, 1 byte per 7 bits
        ] + SMFBytes.endOfTrack)
        let file = try MIDIFile(bytes: bytes, mode: .strict)
        #expect(file.format == 0)
        #expect(file.division == .ticksPerQuarter(96))
        #expect(file.warnings.isEmpty)
        #expect(file.tracks[0].events == [
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 100)),
            MIDIEvent(tick: 96, .noteOn(channel: 0, note: 62, velocity: 90)),
            MIDIEvent(tick: 96, .noteOn(channel: 0, note: 60, velocity: 0)),
            MIDIEvent(tick: 112, .noteOff(channel: 0, note: 62, velocity: 64)),
            MIDIEvent(tick: 112, .polyPressure(channel: 3, note: 40, pressure: 11)),
            MIDIEvent(tick: 112, .controlChange(channel: 9, controller: 7, value: 100)),
            MIDIEvent(tick: 112, .programChange(channel: 2, program: 5)),
            MIDIEvent(tick: 112, .channelPressure(channel: 2, pressure: 77)),
            MIDIEvent(tick: 112, .pitchBend(channel: 15, value: 0x2001)),
            MIDIEvent(tick: 117, .pitchBend(channel: 15, value: 1)),
            MIDIEvent(tick: 117, .meta(.endOfTrack)),
        ])
        #expect(file.noteCount == 2)
    }

    @Test("variable-length quantities of 1 to 4 bytes")
    func variableLengthQuantities() throws {
        let bytes = SMFBytes.file([
            0x7F, 0x90, 60, 1,
            0x81, 0x00, 0x90, 61, 1,                 // 128
            0xC0, 0x80, 0x00, 0x90, 62, 1,           // 2^20
            0xFF, 0xFF, 0xFF, 0x7F, 0x90, 63, 1,     // 2^28 - 1
        ] + SMFBytes.endOfTrack)
        let ticks = try MIDIFile(bytes: bytes, mode: .strict).tracks[0].events.map(\.tick)
        #expect(ticks == [127, 255, 255 + (1 << 20), 255 + (1 << 20) + (1 << 28) - 1, 255 + (1 << 20) + (1 << 28) - 1])
    }

    @Test("every meta event kind is typed; unknown metas are kept raw")
    func metaEvents() throws {
        var data: [UInt8] = [0x00, 0xFF, 0x00, 0x02, 0x00, 0x07]   // sequence number 7
        data += [0x00, 0xFF, 0x00, 0x00]                            // sequence number, no data
        for kind in MetaEvent.TextKind.allCases {
            data += [0x00, 0xFF, kind.rawValue, 0x02, 0x41, 0xE9]   // "Aé" in Latin-1
        }
        data += [0x00, 0xFF, 0x20, 0x01, 0x09]                      // channel prefix 9
        data += [0x00, 0xFF, 0x21, 0x01, 0x02]                      // port 2
        data += [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]          // tempo 500000
        data += [0x00, 0xFF, 0x54, 0x05, 0x61, 0x02, 0x03, 0x04, 0x05] // SMPTE offset 30 fps 1:02:03:04.05
        data += [0x00, 0xFF, 0x58, 0x04, 0x07, 0x03, 0x0C, 0x08]    // 7/8
        data += [0x00, 0xFF, 0x59, 0x02, 0xFE, 0x01]                // 2 flats minor
        data += [0x00, 0xFF, 0x7F, 0x03, 0x00, 0x00, 0x41]          // sequencer specific
        data += [0x00, 0xFF, 0x60, 0x01, 0x55]                      // unknown type 0x60
        let file = try MIDIFile(bytes: SMFBytes.file(data + SMFBytes.endOfTrack), mode: .strict)
        let metas = file.tracks[0].events.map { event -> MetaEvent in
            guard case .meta(let meta) = event.message else { Issue.record("not a meta: \(event)"); return .endOfTrack }
            return meta
        }
        var expected: [MetaEvent] = [.sequenceNumber(7), .sequenceNumber(nil)]
        expected += MetaEvent.TextKind.allCases.map { .text($0, [0x41, 0xE9]) }
        expected += [
            .channelPrefix(9), .port(2), .tempo(microsecondsPerQuarter: 500_000),
            .smpteOffset(SMPTEOffset(hoursByte: 0x61, minutes: 2, seconds: 3, frames: 4, subframes: 5)),
            .timeSignature(TimeSignature(7, 8, clocksPerClick: 12)),
            .keySignature(KeySignature(sharps: -2, isMinor: true)),
            .sequencerSpecific([0, 0, 0x41]), .unknown(type: 0x60, data: [0x55]), .endOfTrack,
        ]
        #expect(metas == expected)
        #expect(metas[2].text == "Aé")
        if case .smpteOffset(let o) = metas[2 + 15 + 3] {
            #expect(o.rate == .fps30)
            #expect(o.hours == 1)
        } else { Issue.record("SMPTE offset not where expected") }
        #expect(KeySignature(sharps: -2, isMinor: true).name == "Gm")
        #expect(KeySignature(sharps: 3, isMinor: false).name == "A")
    }

    @Test("sysex F0 packets and F7 escapes keep their bytes; both cancel running status in strict mode")
    func sysex() throws {
        let data: [UInt8] = [
            0x00, 0xF0, 0x05, 0x7E, 0x7F, 0x09, 0x01, 0xF7,   // GM on, complete
            0x00, 0xF0, 0x02, 0x43, 0x12,                     // first packet, no F7
            0x10, 0xF7, 0x03, 0x00, 0x01, 0xF7,               // continuation
            0x00, 0xF7, 0x01, 0xF8,                           // escaped real-time byte
        ] + SMFBytes.endOfTrack
        let file = try MIDIFile(bytes: SMFBytes.file(data), mode: .strict)
        #expect(file.tracks[0].events.map(\.message) == [
            .sysex([0x7E, 0x7F, 0x09, 0x01, 0xF7]), .sysex([0x43, 0x12]),
            .sysexEscape([0x00, 0x01, 0xF7]), .sysexEscape([0xF8]), .meta(.endOfTrack),
        ])
        // Running status right after a sysex: strict refuses, lenient keeps the previous status.
        let afterSysex = SMFBytes.file([0x00, 0x90, 60, 1, 0x00, 0xF0, 0x01, 0xF7, 0x10, 62, 1] + SMFBytes.endOfTrack)
        #expect(throws: MIDIFileError.self) { try MIDIFile(bytes: afterSysex, mode: .strict) }
        let lenient = try MIDIFile(bytes: afterSysex)
        #expect(lenient.tracks[0].events[2] == MIDIEvent(tick: 16, .noteOn(channel: 0, note: 62, velocity: 1)))
        #expect(lenient.warnings.map(\.kind) == [.runningStatusAfter(cancelledBy: 0xF0)])
        #expect(lenient.warnings[0].offset == 22 + 9)
    }

    @Test("format 1 with several tracks, format 2, unknown chunks skipped")
    func formatsAndUnknownChunks() throws {
        let t1 = SMFBytes.track([0x00, 0xFF, 0x51, 0x03, 0x0F, 0x42, 0x40] + SMFBytes.endOfTrack)
        let junk = SMFBytes.chunk("XFIH", [1, 2, 3, 4, 5])
        let t2 = SMFBytes.track([0x00, 0x91, 64, 80, 0x60, 0x81, 64, 0] + SMFBytes.endOfTrack)
        let file = try MIDIFile(bytes: SMFBytes.header(format: 1, tracks: 2) + t1 + junk + t2, mode: .strict)
        #expect(file.tracks.count == 2)
        #expect(file.tracks[1].channels == [1])
        #expect(abs(file.durationSeconds - 1.0) < 1e-12)   // 96 ticks at 1,000,000 µs per quarter

        // Format 2: two sequences of one quarter each, the second at 60 bpm: 0.5 s + 1 s.
        let a = SMFBytes.track([0x60, 0x90, 60, 1] + SMFBytes.endOfTrack)
        let b = SMFBytes.track([0x00, 0xFF, 0x51, 0x03, 0x0F, 0x42, 0x40, 0x60, 0x90, 60, 1] + SMFBytes.endOfTrack)
        let f2 = try MIDIFile(bytes: SMFBytes.header(format: 2, tracks: 2) + a + b, mode: .strict)
        #expect(abs(f2.durationSeconds - 1.5) < 1e-12)
    }

    @Test("SMPTE division: 25 fps × 40 ticks per frame is 1000 ticks per second; 29.97 drop-frame")
    func smpteDivision() throws {
        let bytes = SMFBytes.file(division: 0xE728, [0x81, 0x80, 0x7D, 0x90, 60, 1] + SMFBytes.endOfTrack) // -25 fps, 40; 2^14 + 125 ticks
        let file = try MIDIFile(bytes: bytes, mode: .strict)
        #expect(file.division == .smpte(.fps25, ticksPerFrame: 40))
        let ticks = (1 << 14) + 125
        #expect(file.tracks[0].events[0].tick == ticks)
        #expect(abs(file.durationSeconds - Double(ticks) / 1000) < 1e-12)

        let drop = try MIDIFile(bytes: SMFBytes.file(division: 0xE302, [0x83, 0x60] + [0xFF, 0x2F, 0x00]), mode: .strict)
        #expect(drop.division == .smpte(.fps29_97Drop, ticksPerFrame: 2))
        #expect(abs(drop.durationSeconds - 480.0 * 1001 / 60000) < 1e-12)
        #expect(Division.smpte(.fps29_97Drop, ticksPerFrame: 2).headerValue == 0xE302)
    }

    @Test("RIFF RMID wrapper")
    func rmid() throws {
        let smf = SMFBytes.file([0x00, 0x90, 60, 1] + SMFBytes.endOfTrack)
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        let list = Array("LIST".utf8) + le32(3) + [1, 2, 3, 0]   // odd size, padded
        let data = Array("data".utf8) + le32(smf.count) + smf
        let body = Array("RMID".utf8) + list + data
        let riff = Array("RIFF".utf8) + le32(body.count) + body
        let file = try MIDIFile(bytes: riff, mode: .strict)
        #expect(file.noteCount == 1)
        let notRMID = Array("RIFF".utf8) + le32(4) + Array("WAVE".utf8)
        #expect(throws: MIDIFileError(MIDIFileProblem(offset: 8, track: nil, kind: .badRIFF("form type is not 'RMID'")))) {
            try MIDIFile(bytes: notRMID)
        }
    }

    @Test("a gap longer than a delta time can hold is written, bridged by empty text events")
    func longGap() throws {
        // Found by the sequence fuzz target: tempo events gathered from several tracks made a
        // tempo track with a 2^30-tick gap, and the writer trapped on the delta.
        let far = 1 << 30 + 5
        let track = MIDIFile.Track(events: [
            MIDIEvent(tick: 0, .noteOn(channel: 0, note: 60, velocity: 100)),
            MIDIEvent(tick: far, .noteOff(channel: 0, note: 60, velocity: 0)),
        ])
        let file = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [track])
        let read = try MIDIFile(bytes: file.serialized(runningStatus: true), mode: .strict)
        let events = read.tracks[0].events
        #expect(events.first?.message == .noteOn(channel: 0, note: 60, velocity: 100))
        #expect(events.filter { $0.message == .noteOff(channel: 0, note: 60, velocity: 0) }.map(\.tick) == [far])
        #expect(events.count(where: { $0.message == .meta(.text(.text, [])) }) == far / 0x0FFF_FFFF)
    }
}
