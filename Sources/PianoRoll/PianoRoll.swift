import CCairo
import MIDI
import Sequencing

/// A song drawn as a piano roll with cairo: each track's notes in its own colour with a legend
/// (track name and programs), bar lines and numbers, the tempo curve, markers and lyrics along
/// the time axis. PNG, SVG or PDF. Control thread.
public enum PianoRoll {
    /// The picture formats. Any thread.
    public enum Format: String, Sendable, CaseIterable {
        /// A PNG image. Any thread.
        case png
        /// SVG, scalable. Any thread.
        case svg
        /// PDF, for print. Any thread.
        case pdf

        /// The format of a path's extension, `nil` for another. Any thread.
        public init?(path: String) {
            guard let ext = path.split(separator: ".").last, path.contains(".") else { return nil }
            self.init(rawValue: ext.lowercased())
        }
    }

    /// The tracks' colours, in track order (the first track with notes takes the first), as
    /// red, green, blue from 0 to 1. Any thread.
    public static let palette: [(Double, Double, Double)] = [
        (0.90, 0.30, 0.24), (0.20, 0.47, 0.84), (0.24, 0.70, 0.35), (0.95, 0.61, 0.07), (0.58, 0.33, 0.80), (0.09, 0.70, 0.72),
        (0.91, 0.36, 0.62), (0.55, 0.55, 0.20), (0.36, 0.42, 0.55), (0.80, 0.45, 0.25), (0.30, 0.75, 0.90), (0.60, 0.20, 0.30),
    ]

    /// A note drawn: its track, key and time. Any thread.
    struct Note {
        let track: Int, key: Int, start: Double, end: Double
    }

    /// The layout for `sequence` between `start` and `end` seconds (the whole song when `nil`)
    /// at `width` × `height`: keys from two below the lowest note to two above the highest.
    public static func layout(of sequence: MusicSequence, width: Int, height: Int, start: Double = 0, end: Double? = nil) -> RollLayout {
        let shown = notes(of: sequence).filter { $0.end > start && $0.start < (end ?? .infinity) }
        let low = shown.map(\.key).min() ?? 60, high = shown.map(\.key).max() ?? 60
        return RollLayout(width: width, height: height, start: start, end: end ?? sequence.durationSeconds,
                          lowKey: max(0, low - 2), highKey: min(127, high + 2))
    }

    /// Every note of `sequence` with its track and times (a note still held ends with the song).
    static func notes(of sequence: MusicSequence) -> [Note] {
        let map = sequence.tempoMap
        return sequence.tracks.enumerated().flatMap { index, track in
            track.notes.map { note in
                Note(track: index, key: note.key, start: map.seconds(atTick: note.start),
                     end: note.end.map(map.seconds(atTick:)) ?? sequence.durationSeconds)
            }
        }
    }

    /// Draws `sequence` (whose tempos, markers, lyrics and programs `summary` lists) into a new
    /// file at `path` as `format` with `layout`, titled `title`; returns a one-line reason if
    /// cairo cannot write it, `nil` when written.
    public static func draw(_ sequence: MusicSequence, summary: SongSummary, title: String, layout: RollLayout, format: Format, to path: String) -> String? {
        if let missing = ccairo_open() { return String(cString: missing) }
        let width = Double(layout.width), height = Double(layout.height)
        let surface: OpaquePointer? = switch format {
        case .png: cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(layout.width), Int32(layout.height))
        case .svg: cairo_svg_surface_create(path, width, height)
        case .pdf: cairo_pdf_surface_create(path, width, height)
        }
        guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            return surface.map { String(cString: cairo_status_to_string(cairo_surface_status($0))) } ?? "cairo made no surface"
        }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { return "cairo made no context" }
        defer { cairo_destroy(cr) }
        paint(sequence, summary: summary, title: title, layout: layout, on: cr)
        cairo_surface_flush(surface)
        if format == .png {
            let status = cairo_surface_write_to_png(surface, path)
            if status != CAIRO_STATUS_SUCCESS { return String(cString: cairo_status_to_string(status)) }
        }
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        return status == CAIRO_STATUS_SUCCESS ? nil : String(cString: cairo_status_to_string(status))
    }

    private static func paint(_ sequence: MusicSequence, summary: SongSummary, title: String, layout l: RollLayout, on cr: OpaquePointer) {
        func color(_ c: (Double, Double, Double), _ alpha: Double = 1) { cairo_set_source_rgba(cr, c.0, c.1, c.2, alpha) }
        func text(_ s: String, x: Double, y: Double, size: Double = 11, bold: Bool = false) {
            cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
            cairo_set_font_size(cr, size)
            cairo_move_to(cr, x, y)
            cairo_show_text(cr, s)
        }
        func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
            cairo_move_to(cr, x0, y0)
            cairo_line_to(cr, x1, y1)
            cairo_stroke(cr)
        }
        // Background, title, the key rows (black keys shaded) and C names.
        color((1, 1, 1)); cairo_paint(cr)
        color((0.1, 0.1, 0.1)); text(title, x: l.left, y: 24, size: 15, bold: true)
        for key in l.lowKey...l.highKey {
            let black = [1, 3, 6, 8, 10].contains(key % 12)
            color(black ? (0.93, 0.94, 0.96) : (0.985, 0.985, 0.99))
            cairo_rectangle(cr, l.left, l.y(key: key), l.right - l.left, l.rowHeight)
            cairo_fill(cr)
            if key % 12 == 0 && l.rowHeight * 12 >= 14 {
                color((0.35, 0.35, 0.4)); text("C\(key / 12 - 1)", x: 8, y: l.y(key: key) + l.rowHeight - 1, size: 10)
            }
        }
        // Bar lines and numbers, every bar or as often as they fit.
        cairo_set_line_width(cr, 1)
        if let meter = sequence.meterMap {
            let map = sequence.tempoMap
            let firstBar = meter.position(atTick: map.tick(atSeconds: l.start)).bar
            var bar = firstBar, lastLabel = -Double.infinity
            while true {
                let x = l.x(seconds: map.seconds(atTick: meter.tick(at: BarBeatTick(bar: bar, beat: 1, tick: 0))))
                if x > l.right + 0.5 || bar > firstBar + 100_000 { break }
                if x >= l.left - 0.5 {
                    color((0.75, 0.77, 0.82)); line(x.rounded() + 0.5, l.top, x.rounded() + 0.5, l.bottom)
                    if x - lastLabel >= 28 {
                        color((0.3, 0.3, 0.35)); text(String(bar), x: x + 2, y: l.bottom + 12, size: 10)
                        lastLabel = x
                    }
                }
                bar += 1
            }
        }
        // The notes, each track in its colour.
        let notes = notes(of: sequence)
        let tracksWithNotes = Array(Set(notes.map(\.track))).sorted()
        for note in notes where note.end > l.start && note.start < l.end && (l.lowKey...l.highKey).contains(note.key) {
            let index = tracksWithNotes.firstIndex(of: note.track) ?? 0
            color(palette[index % palette.count])
            let x0 = max(l.left, l.x(seconds: note.start)), x1 = min(l.right, l.x(seconds: note.end))
            cairo_rectangle(cr, x0, l.y(key: note.key), max(1.5, x1 - x0), max(1, l.rowHeight - 0.5))
            cairo_fill(cr)
        }
        color((0.5, 0.5, 0.55)); cairo_rectangle(cr, l.left + 0.5, l.top + 0.5, l.right - l.left - 1, l.bottom - l.top - 1); cairo_stroke(cr)
        // The tempo curve under the time axis, labelled with its range.
        let tempoTop = l.bottom + 20, tempoBottom = l.bottom + 52
        let tempos: [(seconds: Double, bpm: Double)] = summary.tempoChanges.isEmpty ? [(0, 120)] : summary.tempoChanges.map { ($0.seconds, $0.bpm) }
        let low = tempos.map { $0.bpm }.min()!, high = tempos.map { $0.bpm }.max()!
        func tempoY(_ bpm: Double) -> Double {
            guard high > low else { return (tempoTop + tempoBottom) / 2 }
            let share = (bpm - low) / (high - low)
            return tempoBottom - share * (tempoBottom - tempoTop)
        }
        color((0.85, 0.35, 0.1)); cairo_set_line_width(cr, 1.5)
        var bpm = tempos.last { $0.seconds <= l.start }?.bpm ?? tempos[0].bpm
        cairo_move_to(cr, l.left, tempoY(bpm))
        for change in tempos where change.seconds > l.start && change.seconds < l.end {
            cairo_line_to(cr, l.x(seconds: change.seconds), tempoY(bpm))
            bpm = change.bpm
            cairo_line_to(cr, l.x(seconds: change.seconds), tempoY(bpm))
        }
        cairo_line_to(cr, l.right, tempoY(bpm))
        cairo_stroke(cr)
        text(high == low ? "\(format(low)) bpm" : "\(format(low))–\(format(high)) bpm", x: 4, y: tempoBottom - 8, size: 10)
        // Markers and lyric lines along the time axis.
        color((0.2, 0.2, 0.25))
        for marker in summary.markers where marker.seconds >= l.start && marker.seconds < l.end {
            text("▸ " + marker.text, x: l.x(seconds: marker.seconds), y: tempoBottom + 14, size: 10)
        }
        color((0.35, 0.3, 0.5))
        var lyricEnd = -Double.infinity
        for lyric in summary.lyrics where lyric.seconds >= l.start && lyric.seconds < l.end {
            let x = l.x(seconds: lyric.seconds)
            guard x >= lyricEnd else { continue }
            text(lyric.text, x: x, y: tempoBottom + 28, size: 9)
            var extents = cairo_text_extents_t()
            cairo_text_extents(cr, lyric.text, &extents)
            lyricEnd = x + extents.x_advance + 2
        }
        // The legend: each track with notes, its colour, name and programs.
        var x = l.left
        for (index, track) in tracksWithNotes.enumerated() {
            let name = sequence.tracks[track].name.map { "\($0)" } ?? "track \(track + 1)"
            let programs = summary.programs.filter { program in sequence.tracks[track].events.contains { $0.message.channel.map(Int.init) == program.channel - 1 } }
                .flatMap(\.programs)
            let label = "\(track + 1) \(name)" + (programs.isEmpty ? "" : " (\(programs.prefix(2).joined(separator: ", ")))")
            var extents = cairo_text_extents_t()
            cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
            cairo_set_font_size(cr, 10)
            cairo_text_extents(cr, label, &extents)
            if x + 14 + extents.x_advance > l.right { break }
            color(palette[index % palette.count]); cairo_rectangle(cr, x, Double(l.height) - 18, 10, 10); cairo_fill(cr)
            color((0.2, 0.2, 0.25)); text(label, x: x + 14, y: Double(l.height) - 9, size: 10)
            x += 14 + extents.x_advance + 16
        }
    }

    private static func format(_ bpm: Double) -> String {
        let rounded = (bpm * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
