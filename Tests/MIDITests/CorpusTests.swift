import Foundation
import Testing
import TestSupport
@testable import MIDI

/// The 154 real files of ../shared/corpus against mido 1.3.3's reference parses. Where mido
/// read a file strictly, every event must agree; where mido is wrong or fails (MANIFEST.md,
/// "Where mido's reading is debatable"), `RightReading` states the right reading.
@Suite("Corpus: real MIDI files against mido's reference parses", .cpuHeavy)
struct CorpusTests {
    @Test("the corpus is present: 154 files")
    func corpusPresent() {
        #expect(Corpus.fileNames.count == 154, "corpus not found at \(Corpus.directory.path)")
    }

    @Test("lenient reading agrees with the reference, or with the stated right reading", arguments: Corpus.fileNames)
    func lenientReading(name: String) throws {
        let bytes = try Corpus.bytes(name)
        let ref = try Corpus.reference(name)
        let mido = ref["mido"] as! [String: Any]
        let structure = ref["structure"] as! [String: Any]

        if let right = RightReading.table[name] {
            try right.check(bytes, name: name)
            return
        }
        try #require(mido["parsed_with"] as? String == "strict", "mido failed on \(name) and no right reading is stated")
        let file = try MIDIFile(bytes: bytes)
        #expect(file.format == mido["type"] as! Int)
        #expect(file.tracks.count == mido["n_tracks"] as! Int)
        #expect(file.noteCount == mido["note_on_count"] as! Int)

        // Duration: mido's length; for format 2 the sequences in turn (mido refuses), for
        // SMPTE division ticks over ticks per second (mido reads the header as a tempo).
        let expected: Double
        if file.format == 2 {
            expected = mido["format2_sequential_seconds"] as! Double
        } else if case .smpte = file.division {
            expected = structure["smpte_duration_seconds"] as! Double
        } else {
            expected = (mido["length_seconds"] as! NSNumber).doubleValue
        }
        #expect(abs(file.durationSeconds - expected) <= 0.001, "duration \(file.durationSeconds) vs \(expected)")

        let refTracks = mido["tracks"] as! [[String: Any]]
        for (index, (ours, theirs)) in zip(file.tracks, refTracks).enumerated() {
            let refEvents = theirs["events"] as! [Any]
            #expect(ours.events.count == refEvents.count, "track \(index + 1): event count")
            for (k, (event, refEvent)) in zip(ours.events, refEvents).enumerated() {
                let a = MidoForm.canonical(MidoForm.event(event)), b = MidoForm.canonical(refEvent)
                if a != b {
                    Issue.record("track \(index + 1), event \(k): ours \(a), mido \(b)")
                    break
                }
            }
        }
    }

    @Test("strict reading refuses exactly the files with structural defects", arguments: Corpus.fileNames)
    func strictReading(name: String) throws {
        let bytes = try Corpus.bytes(name)
        let structure = try Corpus.reference(name)["structure"] as! [String: Any]
        // F7 packets, unterminated F0 packets and unknown chunks are legal SMF; every other
        // listed issue, and an SMPTE frame rate that is not one, is a defect.
        var defects = (structure["issues"] as? [String] ?? []).filter { !$0.contains("F7") && !$0.contains("non-MTrk chunk") }
        if (structure["division"] as? [String: Any])?["valid_fps"] as? Bool == false { defects.append("SMPTE frame rate") }
        let strict = Result { try MIDIFile(bytes: bytes, mode: .strict) }
        if defects.isEmpty {
            let file = try strict.get()
            #expect(file.warnings.isEmpty)
            #expect(file == (try MIDIFile(bytes: bytes, mode: .lenient)))
        } else {
            #expect(throws: MIDIFileError.self, "defects: \(defects)") { try strict.get() }
        }
    }

    @Test("read(write(x)) == x for every file strict mode reads, with and without running status",
          arguments: Corpus.fileNames)
    func roundTrip(name: String) throws {
        guard let file = try? MIDIFile(bytes: try Corpus.bytes(name), mode: .strict) else { return }
        for runningStatus in [true, false] {
            let written = file.serialized(runningStatus: runningStatus)
            #expect(try MIDIFile(bytes: written, mode: .strict) == file)
        }
    }

    @Test("how many corpus files the round trip covers")
    func roundTripCoverage() throws {
        let strictOK = Corpus.fileNames.filter { (try? MIDIFile(bytes: try Corpus.bytes($0), mode: .strict)) != nil }
        // All but the 56 files with structural defects (mido and the MANIFEST list them).
        #expect(strictOK.count >= 98, "\(strictOK.count) files read strictly")
    }
}

/// The right reading of a corpus file where mido fails or is wrong.
struct RightReading {
    enum Outcome {
        /// Neither mode reads it: this error.
        case refused(MIDIFileProblem.Kind)
        /// Lenient reads these figures; strict refuses with `strictError`, or reads the same when nil.
        case reads(tracks: Int, notes: Int, seconds: Double, sameNotesAs: String?, strictError: MIDIFileProblem.Kind?)
    }

    let outcome: Outcome
    let why: String

    func check(_ bytes: [UInt8], name: String) throws {
        switch outcome {
        case .refused(let kind):
            for mode in [MIDIFile.ReadMode.strict, .lenient] {
                do {
                    _ = try MIDIFile(bytes: bytes, mode: mode)
                    Issue.record("\(name) read, expected \(kind): \(why)")
                } catch {
                    #expect(error.problem.kind == kind, "\(why)")
                }
            }
        case .reads(let tracks, let notes, let seconds, let sibling, let strictError):
            let file = try MIDIFile(bytes: bytes)
            #expect(file.tracks.count == tracks, "\(why)")
            #expect(file.noteCount == notes, "\(why)")
            #expect(abs(file.durationSeconds - seconds) <= 0.001, "\(why)")
            if let sibling {
                // The same notes starting and ending at the same ticks as mido's reading of the
                // clean sibling file (a note-on of velocity 0 ends a note as a note-off does).
                let ref = try Corpus.reference(sibling)["mido"] as! [String: Any]
                let refNotes = (ref["tracks"] as! [[String: Any]]).flatMap { $0["events"] as! [Any] }.compactMap(Self.noteEdge)
                let ours = file.tracks.flatMap(\.events).map { MidoForm.event($0) as Any }.compactMap(Self.noteEdge)
                #expect(ours == refNotes, "\(why)")
            }
            if let strictError {
                do {
                    _ = try MIDIFile(bytes: bytes, mode: .strict)
                    Issue.record("strict reading accepted \(name), expected \(strictError)")
                } catch {
                    #expect(error.problem.kind == strictError, "\(why)")
                }
            } else {
                #expect(try MIDIFile(bytes: bytes, mode: .strict) == file)
            }
        }
    }

    /// `tick on|off channel note` for a note event in mido's form, else nil.
    static func noteEdge(_ event: Any) -> String? {
        let e = event as! [Any]
        guard let type = e[1] as? String, type == "note_on" || type == "note_off" else { return nil }
        func int(_ v: Any) -> Int { (v as? Int) ?? Int(v as! UInt8) }
        let (tick, channel, note, velocity) = (int(e[0]), int(e[2]), int(e[3]), int(e[4]))
        return "\(tick) \(type == "note_on" && velocity > 0 ? "on" : "off") \(channel) \(note)"
    }

    static let scale = "jazzsoft__test-c-major-scale.mid"
    static let fourNotes = "nfroidure__MIDIOkFormat0.mid"

    static let table: [String: RightReading] = {
        var t: [String: RightReading] = [
            "jazzsoft__test-empty-file.mid": .init(outcome: .refused(.emptyFile), why: "0 bytes: not a MIDI file"),
            "jazzsoft__test-not-a-midi-file.mid": .init(outcome: .refused(.notAMIDIFile), why: "a text file"),
            "nfroidure__MIDIBadHeaderChunk.mid": .init(outcome: .refused(.notAMIDIFile), why: "header id is not MThd"),
            "jazzsoft__test-corrupt-file-missing-byte.mid": .init(
                outcome: .reads(tracks: 1, notes: 8, seconds: 4, sameNotesAs: scale,
                                strictError: .chunkRunsPastEnd(length: 246, fileSize: 267)),
                why: "only End of Track's last byte is cut: the whole scale is there (mido: EOFError)"),
            "jazzsoft__test-non-midi-track.mid": .init(
                outcome: .reads(tracks: 1, notes: 8, seconds: 4, sameNotesAs: scale, strictError: nil),
                why: "the SMF spec says skip unknown chunks ('Junk'); mido fails"),
            "jazzsoft__test-running-status-sysex.mid": .init(
                outcome: .reads(tracks: 1, notes: 8, seconds: 4, sameNotesAs: scale,
                                strictError: .runningStatusAfter(cancelledBy: 0xF0)),
                why: "the file's author expects the full scale: running status goes on after the sysex (mido: EOFError)"),
            "nfroidure__MIDIBadHeaderLength.mid": .init(
                outcome: .reads(tracks: 1, notes: 4, seconds: 2, sameNotesAs: fourNotes, strictError: .headerLength(22)),
                why: "a wrong header length over a normal header: the track follows at byte 14"),
            "nfroidure__MIDIBadHeaderTracksNum.mid": .init(
                outcome: .reads(tracks: 1, notes: 4, seconds: 2, sameNotesAs: fourNotes,
                                strictError: .trackCountMismatch(header: 2, found: 1)),
                why: "header claims 2 tracks, the one present is whole (mido: EOFError)"),
            "nfroidure__MIDIBadTrackHdr.mid": .init(
                outcome: .reads(tracks: 1, notes: 4, seconds: 2, sameNotesAs: fourNotes,
                                strictError: .trackCountMismatch(header: 1, found: 0)),
                why: "'mTrk' is a misspelt track: lenient reads it, strict skips it as an unknown chunk"),
            "nfroidure__MIDIBadTrackLength.mid": .init(
                outcome: .reads(tracks: 1, notes: 4, seconds: 2, sameNotesAs: fourNotes,
                                strictError: .chunkRunsPastEnd(length: 16_777_275, fileSize: 81)),
                why: "chunk length past the end: the events present are whole (mido: EOFError)"),
            "shky__empty-65535-tracks.mid": .init(
                outcome: .reads(tracks: 65_535, notes: 0, seconds: 64, sameNotesAs: nil, strictError: nil),
                why: "mido reads ntrks as signed (-1) and loads no track; the file holds 65,535, the longest 61,440 ticks"),
        ]
        for status in ["all", "f4", "f5", "f9", "fd"] {
            t["jazzsoft__test-illegal-message-\(status).mid"] = .init(
                outcome: .reads(tracks: 1, notes: 8, seconds: 4, sameNotesAs: scale,
                                strictError: .systemMessageInTrack(status: status == "all" ? 0xF1 : UInt8(status, radix: 16)!)),
                why: "undefined system bytes are skipped, the scale plays (mido raises)")
        }
        return t
    }()
}
