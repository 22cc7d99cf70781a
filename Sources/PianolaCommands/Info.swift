import ArgumentParser
import FoundationEssentials
import Glibc
import MIDI
import Sequencing

/// `pianola info`: what is in a MIDI file.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a MIDI file holds: tracks, notes, length, tempo, meter, markers.")

    @Argument(help: "The MIDI files (.mid, .smf, .kar, RIFF .rmi, Doom's .mus, Miles' .xmi, HMI's .hmp and .hmi), known by their content.")
    var files: [String]

    @Flag(help: "Print JSON instead of a summary.")
    var json = false

    @Flag(help: "Refuse any defect instead of recovering from it.")
    var strict = false

    @OptionGroup var choice: SongChoice

    func validate() throws {
        guard !files.isEmpty else { throw fail("give at least one MIDI file") }
    }

    /// Each file in turn (a blank line between); one that cannot be read is its one line, the
    /// others are still shown, and the exit status says so. With --json, one object for one
    /// file and an array of them for several.
    func run() throws {
        var summaries: [SongSummary] = []
        var failed = 0
        for file in files {
            let read: MIDIFile
            do {
                read = try MIDIFile(contentsOf: file, mode: strict ? .strict : .lenient)
            } catch {
                printError(error.description)
                failed += 1
                continue
            }
            guard let midi = try? choice.pick(read, path: file) else {   // its line is said
                failed += 1
                continue
            }
            let summary = SongSummary(file: midi)
            if json {
                summaries.append(summary)
            } else {
                print((summaries.isEmpty && failed == 0 ? "" : "\n") + Info.text(summary, title: file), terminator: "")
                summaries.append(summary)
            }
        }
        if json && !summaries.isEmpty {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = files.count == 1 ? try encoder.encode(summaries[0]) : try encoder.encode(summaries)
            print(String(decoding: data, as: UTF8.self))
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// The human summary.
    static func text(_ s: SongSummary, title: String) -> String {
        var out = ""
        let division: String
        switch s.division {
        case .ticksPerQuarter(let t): division = "\(t) ticks per quarter note"
        case .smpte(let fps, let tpf): division = "SMPTE \(fps.formatted2) fps × \(tpf) ticks per frame"
        }
        out += "\(title)\n"
        if s.origin != MIDIFile.Origin.standardMIDIFile.description { out += "  source: \(s.origin)\n" }
        out += "  format \(s.format), \(s.trackCount) track\(s.trackCount == 1 ? "" : "s"), \(division)\n"
        out += "  length \(clock(s.durationSeconds)) (\(s.durationSeconds.formatted2) s), \(s.noteCount) note\(s.noteCount == 1 ? "" : "s")\n"
        if let first = s.tempoChanges.first {
            let bpms = s.tempoChanges.map(\.bpm)
            let range = bpms.min() == bpms.max() ? "\(first.bpm.formatted2) bpm"
                : "\(first.bpm.formatted2) bpm at start, \(bpms.min()!.formatted2)–\(bpms.max()!.formatted2) bpm"
            out += "  tempo \(range), \(s.tempoChanges.count) change\(s.tempoChanges.count == 1 ? "" : "s")\n"
        } else {
            out += "  tempo 120 bpm (no tempo event)\n"
        }
        if !s.timeSignatures.isEmpty {
            let list = s.timeSignatures.prefix(8).map { "\($0.numerator)/\($0.denominator)" }.joined(separator: ", ")
            out += "  meter \(list)\(s.timeSignatures.count > 8 ? ", … (\(s.timeSignatures.count) in all)" : "")\n"
        }
        if s.songs.count > 1 {
            out += "  songs (one after another; --song n chooses one):\n"
            for (i, song) in s.songs.enumerated() {
                out += "    \(pad(String(i + 1), 3)) \(clock(song.durationSeconds))  \(song.noteCount) note\(song.noteCount == 1 ? "" : "s")\n"
            }
        }
        out += "  tracks:\n"
        for (i, t) in s.tracks.enumerated() {
            let channels = t.channels.isEmpty ? "-" : t.channels.map { String($0 + 1) }.joined(separator: ",")
            let name = t.name.map { "\"\($0)\"" } ?? "(no name)"
            out += "    \(pad(String(i + 1), 3)) \(pad(name, 28)) \(pad(String(t.eventCount), 6, right: true)) \(t.eventCount == 1 ? "event " : "events") "
                + "\(pad(String(t.noteCount), 6, right: true)) \(t.noteCount == 1 ? "note " : "notes")  channels \(channels)\n"
        }
        if !s.keySignatures.isEmpty {
            let keys = s.keySignatures.prefix(8).map(\.key).joined(separator: ", ")
            out += "  key \(keys)\(s.keySignatures.count > 8 ? ", … (\(s.keySignatures.count) in all)" : "")\n"
        }
        for notice in s.copyright { out += "  copyright \"\(notice)\"\n" }
        if !s.programs.isEmpty {
            out += "  programs:\n"
            for channel in s.programs { out += "    channel \(pad(String(channel.channel), 3)) \(channel.programs.joined(separator: ", "))\n" }
        }
        if !s.markers.isEmpty {
            out += "  markers:\n"
            for m in s.markers { out += "    \(clock(m.seconds))  \"\(m.text)\"\n" }
        }
        let lines = lyricLines(s.lyrics)
        if !lines.isEmpty {
            out += "  lyrics:\n"
            for line in lines { out += "    \(clock(line.seconds))  \(line.text)\n" }
        }
        if !s.warnings.isEmpty {
            out += "  warnings:\n"
            for w in s.warnings { out += "    \(w)\n" }
        }
        return out
    }

    /// The lyrics as lines, each with the time of its first syllable: a karaoke file's `/` and
    /// `\\` start a new line, as a line break in a Lyric event does; a line runs to at most 80
    /// characters.
    static func lyricLines(_ lyrics: [SongSummary.Lyric]) -> [(seconds: Double, text: String)] {
        var lines: [(seconds: Double, text: String)] = []
        var open = false
        for lyric in lyrics {
            var text = lyric.text
            var breakBefore = false, breakAfter = false
            if let first = text.first, first == "/" || first == "\\" { breakBefore = true; text.removeFirst() }
            if let last = text.last, last == "\r" || last == "\n" { breakAfter = true; text.removeLast() }
            if breakBefore || !open || lines[lines.count - 1].text.count + text.count > 80 {
                lines.append((lyric.seconds, text))
            } else {
                lines[lines.count - 1].text += text
            }
            open = !breakAfter
        }
        return lines.filter { !$0.text.allSatisfy { $0 == " " } }
    }

    static func clock(_ seconds: Double) -> String {
        let hundredths = Int((seconds * 100).rounded())
        let m = hundredths / 6000, sec = hundredths / 100 % 60, h = hundredths % 100
        return "\(m):\(sec < 10 ? "0" : "")\(sec).\(h < 10 ? "0" : "")\(h)"
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }
}

extension Double {
    /// At most two decimals, no trailing zeros: 120, 29.97, 193.29.
    var formatted2: String {
        let r = (self * 100).rounded() / 100
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// Exactly `decimals` decimals, rounded: 12.50, 0.345678.
    func fixed(_ decimals: Int) -> String {
        let scale = Double((0..<decimals).reduce(1) { product, _ in product * 10 })
        let scaled = (abs(self) * scale).rounded()
        let fraction = String(Int(scaled.truncatingRemainder(dividingBy: scale)))
        let sign = self < 0 && scaled != 0 ? "-" : ""
        return sign + String(Int(scaled / scale)) + (decimals > 0 ? "." + String(repeating: "0", count: decimals - fraction.count) + fraction : "")
    }
}

extension UInt8 {
    /// Two upper-case hex digits: 0A, F0.
    var hex: String { (self < 16 ? "0" : "") + String(self, radix: 16, uppercase: true) }
}
