import MIDI

/// A small text form for entering music in code. Tokens are separated by spaces; `|` marks
/// bar lines and is ignored:
/// - a note: letter, optional `#` or `b`, octave (`C4` is middle C, 60), then optionally
///   `:` and a length — 1, 2, 4, 8, 16 (whole to sixteenth), `.` to dot it; a token without
///   a length keeps the previous one;
/// - a rest: `r` with an optional length;
/// - a chord: notes in brackets, `[C3 E3 G3]:2`;
/// - on a drum part, drum names stand for notes: `kick`, `snare`, `hat`, `openhat`, `crash`,
///   `ride`, `tom`.
/// Any thread.
public struct Notation: Sendable {
    /// A sounding step: its start tick, length in ticks and the keys it strikes. Any thread.
    public struct Step: Hashable, Sendable {
        /// Start, in ticks from the beginning of the part. Any thread.
        public var tick: Int
        /// Length in ticks. Any thread.
        public var length: Int
        /// MIDI keys (60 = middle C). Any thread.
        public var keys: [UInt8]
    }

    /// General MIDI percussion keys by the names the notation accepts. Any thread.
    public static let drumKeys: [String: UInt8] = [
        "kick": 36, "snare": 38, "hat": 42, "openhat": 46, "crash": 49, "ride": 51, "tom": 45,
    ]

    /// The steps, in order. Any thread.
    public let steps: [Step]
    /// Where the part ends, in ticks. Any thread.
    public let length: Int

    /// Parses `text` at `ticksPerQuarter`; a malformed token is a programming error in the
    /// song's source and stops the program with its position. Any thread.
    public init(_ text: String, ticksPerQuarter: Int, drums: Bool = false) {
        var steps: [Step] = []
        var tick = 0
        var length = ticksPerQuarter
        var chord: [UInt8]? = nil
        for raw in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            var token = Substring(raw)
            if token == "|" { continue }
            var closesChord = false
            if token.hasPrefix("[") { chord = []; token = token.dropFirst() }
            if let close = token.firstIndex(of: "]") {
                closesChord = true
                token = token[..<close] + token[token.index(after: close)...]
            }
            var name = token
            if let colon = token.firstIndex(of: ":") {
                name = token[..<colon]
                length = Notation.ticks(String(token[token.index(after: colon)...]), ticksPerQuarter: ticksPerQuarter, in: text)
            }
            let key: UInt8? = name == "r" ? nil : (drums ? Notation.drumKeys[String(name)] : Notation.key(String(name)))
            precondition(name == "r" || key != nil, "notation: '\(raw)' is not a \(drums ? "drum" : "note") name in: \(text)")
            if chord != nil {
                if let key { chord!.append(key) }
                if closesChord {
                    steps.append(Step(tick: tick, length: length, keys: chord!))
                    tick += length
                    chord = nil
                }
            } else {
                if let key { steps.append(Step(tick: tick, length: length, keys: [key])) }
                tick += length
            }
        }
        precondition(chord == nil, "notation: unclosed chord in: \(text)")
        self.steps = steps
        self.length = tick
    }

    /// The MIDI key of a note name such as `C4`, `F#3`, `Bb2`; `nil` if it is not one.
    static func key(_ name: String) -> UInt8? {
        var chars = Array(name)
        guard let letter = chars.first, let base = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11][String(letter)] else {
            return nil
        }
        chars.removeFirst()
        var semitone = base
        if chars.first == "#" { semitone += 1; chars.removeFirst() } else if chars.first == "b" { semitone -= 1; chars.removeFirst() }
        guard let octave = Int(String(chars)), (-1...9).contains(octave) else { return nil }
        let key = (octave + 1) * 12 + semitone
        return (0...127).contains(key) ? UInt8(key) : nil
    }

    /// Ticks of a length such as `4`, `8.`, `2.`.
    static func ticks(_ text: String, ticksPerQuarter: Int, in source: String) -> Int {
        let dotted = text.hasSuffix(".")
        guard let value = Int(dotted ? String(text.dropLast()) : text), [1, 2, 4, 8, 16].contains(value) else {
            preconditionFailure("notation: length ':\(text)' is not 1, 2, 4, 8 or 16 in: \(source)")
        }
        let plain = ticksPerQuarter * 4 / value
        return dotted ? plain * 3 / 2 : plain
    }
}
