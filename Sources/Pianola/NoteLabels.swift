import Engine
import Synthesis

/// A note as a render played it: channel, key, velocity, the channel's program and bank, and
/// the frames where the synthesizer pressed and released its key, which are the 64-frame block
/// edges Pianola actually used. What machine-learning users of a render need to match the audio
/// to the sample. Any thread.
public struct NoteLabel: Hashable, Sendable {
    /// Channel, 0-based. Any thread.
    public var channel: Int
    /// Key, 0...127. Any thread.
    public var key: Int
    /// Velocity, 1...127. Any thread.
    public var velocity: Int
    /// The channel's program when the key was pressed. Any thread.
    public var program: Int
    /// The channel's bank (CC0 × 128 + CC32) when the key was pressed. Any thread.
    public var bank: Int
    /// The frame the key was pressed on. Any thread.
    public var startFrame: SampleTime
    /// The frame the key was released on (the render's end for a key never released). Any thread.
    public var endFrame: SampleTime
}

/// Pairs a sampler's key presses and releases into labels: a release ends the earliest press
/// of its key on its channel still open. Control thread.
struct NoteLabeller {
    private var open: [Int: [NoteEdge]] = [:]       // channel × 128 + key → presses not yet released
    private var done: [NoteLabel] = []

    /// Takes edges in the order they were applied.
    mutating func add(_ edges: [NoteEdge]) {
        for edge in edges {
            let slot = Int(edge.channel) * 128 + Int(edge.key)
            if edge.pressed {
                open[slot, default: []].append(edge)
            } else if let press = open[slot]?.first {
                open[slot]!.removeFirst()
                done.append(label(press, end: edge.frame))
            }
        }
    }

    /// Every label, keys still held ending at `end`, in order of their start (then channel and key).
    func labels(endingOpenNotesAt end: SampleTime) -> [NoteLabel] {
        let held = open.values.flatMap { $0 }.map { label($0, end: end) }
        return (done + held).sorted { ($0.startFrame, $0.channel, $0.key) < ($1.startFrame, $1.channel, $1.key) }
    }

    private func label(_ press: NoteEdge, end: SampleTime) -> NoteLabel {
        NoteLabel(channel: Int(press.channel), key: Int(press.key), velocity: Int(press.velocity), program: Int(press.program),
                  bank: Int(press.bank), startFrame: press.frame, endFrame: end)
    }
}
