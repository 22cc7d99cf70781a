import Foundation
@testable import MIDI

/// The shared corpus of real MIDI files (../shared/corpus beside the checkout, or
/// $PIANOLA_CORPUS) and its reference parses made by mido 1.3.3.
enum Corpus {
    static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["PIANOLA_CORPUS"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }()

    /// Every file name in corpus/midi, sorted (empty if the corpus is missing: the count test fails then).
    static let fileNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("midi").path)) ?? []
        return names.sorted()
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent("midi/\(name)")))
    }

    static func reference(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent("ref/\(name).json"))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }
}

/// mido's reading of one event, `[tick, type, fields…]`, as the reference JSON writes it.
enum MidoForm {
    static func event(_ e: MIDIEvent) -> [Any] {
        let fields: [Any]
        switch e.message {
        case .noteOff(let c, let n, let v): fields = ["note_off", c, n, v]
        case .noteOn(let c, let n, let v): fields = ["note_on", c, n, v]
        case .polyPressure(let c, let n, let p): fields = ["polytouch", c, n, p]
        case .controlChange(let c, let n, let v): fields = ["control_change", c, n, v]
        case .programChange(let c, let p): fields = ["program_change", c, p]
        case .channelPressure(let c, let p): fields = ["aftertouch", c, p]
        case .pitchBend(let c, let v): fields = ["pitchwheel", c, Int(v) - 8192]
        case .sysex(let d), .sysexEscape(let d): fields = ["sysex", d.last == 0xF7 ? Array(d.dropLast()) : d]
        case .system(let status, let d):
            switch status {
            case 0xF1: fields = ["quarter_frame", d[0] >> 4, d[0] & 0x0F]
            case 0xF2: fields = ["songpos", Int(d[0]) | Int(d[1]) << 7]
            case 0xF3: fields = ["song_select", d[0]]
            case 0xF6: fields = ["tune_request"]
            case 0xF8: fields = ["clock"]
            case 0xFA: fields = ["start"]
            case 0xFB: fields = ["continue"]
            case 0xFC: fields = ["stop"]
            case 0xFE: fields = ["active_sensing"]
            default: fields = ["undefined_system", status]
            }
        case .meta(let m): fields = meta(m)
        }
        return [e.tick] + fields
    }

    static func meta(_ m: MetaEvent) -> [Any] {
        switch m {
        case .sequenceNumber(let n): return ["sequence_number", Int(n ?? 0)]
        case .text(let kind, let bytes):
            let text = String(latin1: bytes)
            switch kind {
            case .text: return ["text", text]
            case .copyright: return ["copyright", text]
            case .trackName: return ["track_name", text]
            case .instrumentName: return ["instrument_name", text]
            case .lyric: return ["lyrics", text]
            case .marker: return ["marker", text]
            case .cuePoint: return ["cue_marker", text]
            case .deviceName: return ["device_name", text]
            default: return ["unknown_meta", kind.rawValue, bytes]
            }
        case .channelPrefix(let c): return ["channel_prefix", c]
        case .port(let p): return ["midi_port", p]
        case .endOfTrack: return ["end_of_track"]
        case .tempo(let t): return ["set_tempo", t]
        case .smpteOffset(let o):
            let rate: Any = [24, 25, 29.97, 30][SMPTERate.allCases.firstIndex(of: o.rate)!]
            return ["smpte_offset", rate, o.hours, o.minutes, o.seconds, o.frames, o.subframes]
        case .timeSignature(let s):
            return ["time_signature", s.numerator, s.denominator ?? 0, s.clocksPerClick, s.thirtySecondsPerQuarter]
        case .keySignature(let k): return ["key_signature", k.name ?? "?"]
        case .sequencerSpecific(let d): return ["sequencer_specific", d]
        case .unknown(let type, let d): return ["unknown_meta", type, d]
        }
    }

    /// A canonical JSON text for comparing our form with the reference's.
    static func canonical(_ value: Any) -> String {
        let data = try! JSONSerialization.data(withJSONObject: normalized(value), options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    private static func normalized(_ value: Any) -> Any {
        switch value {
        case let a as [Any]: return a.map(normalized)
        case let b as [UInt8]: return b.map { Int($0) }
        case let u as UInt8: return Int(u)
        case let u as UInt32: return Int(u)
        case let i as Int: return i
        case let d as Double: return d
        default: return value
        }
    }
}
