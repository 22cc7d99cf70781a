import Engine
import Playback
import Sequencing

/// What the game parameters do to one playing song, on the render thread: its layers' trims
/// along straight lines that break where a glide ends or a curve bends (so no frame steps
/// more than the curve's slope along the glide), its tempo and transposition each cycle, and
/// its controllers (a `ControllerSource` its player merges with the score, a change checked
/// every 64 frames). Render thread once connected (made on the control thread).
final class DeckModulation: ControllerSource, SectionChooser, @unchecked Sendable {
    // @unchecked Sendable: everything mutable is the render thread's.

    /// A mapping, resolved for this song.
    private struct Mapping {
        enum Target {
            case trim(input: Int)
            case tempo
            case transpose
            case controller(UInt8, channels: UInt16)
            case nextSection([Int])               // per name: the song's section, -1 none
        }
        let parameter: Int
        let curve: Soundtrack.ParameterCurve
        let target: Target
    }

    private let board: ParameterBoard
    private let mappings: [Mapping]
    private let trimInputs: [Int]                  // the inputs trimmed, each once
    private var trimmed: [Double]                  // per trim input: the trim last scheduled, -1 none
    private var breaks: [Int]                      // scratch: a cycle's break frames
    private var sent: [Int]                        // per mapping: the controller value last sent, -1 none
    private var scanned: [SampleTime]              // per mapping: no change before this but what is pending
    private var pending: [SampleTime]              // per mapping: a change found, not yet taken (.max none)
    private var pendingValue: [Int]
    private var lookedAt: SampleTime = .min        // the board's change last seen
    let owned: [(controller: UInt8, channels: UInt16)]
    let sectionStartTicks: [Int]
    /// Whether a mapping chooses the next section.
    let choosesSections: Bool

    /// Step between the times a controller's value is checked.
    static let controllerStep: SampleTime = 64

    /// The modulation `mappings` make of a song whose layers (lower-cased names) are `layers`
    /// inputs of its bus, and whose sections are `sections`; `nil` when none applies. Control thread.
    init?(_ mappings: [Soundtrack.ParameterMapping], layers: [String: Int], sections: [SongSection], board: ParameterBoard) {
        let resolved = mappings.compactMap { mapping -> Mapping? in
            let target: Mapping.Target
            switch mapping.target {
            case .layerVolume(let name):
                guard let input = layers[name.lowercased()] else { return nil }
                target = .trim(input: input)
            case .tempo: target = .tempo
            case .transpose: target = .transpose
            case .controller(let controller, let channels):
                target = .controller(UInt8(controller), channels: channels.reduce(0) { $0 | 1 << UInt16($1 - 1) })
            case .effect: return nil                  // the soundtrack's effect bindings drive it
            case .nextSection(let names):
                let indices = names.map { name in sections.firstIndex { $0.name.lowercased() == name.lowercased() } ?? -1 }
                guard indices.contains(where: { $0 >= 0 }) else { return nil }
                target = .nextSection(indices)
            }
            return Mapping(parameter: mapping.parameter, curve: mapping.curve, target: target)
        }
        guard !resolved.isEmpty else { return nil }
        self.mappings = resolved
        self.board = board
        var inputs: [Int] = []
        for case .trim(let input) in resolved.map(\.target) where !inputs.contains(input) { inputs.append(input) }
        trimInputs = inputs
        trimmed = Array(repeating: -1, count: inputs.count)
        breaks = Array(repeating: 0, count: 2 + resolved.reduce(0) { $0 + 1 + $1.curve.points.count })
        sent = Array(repeating: -1, count: resolved.count)
        scanned = Array(repeating: .min, count: resolved.count)
        pending = Array(repeating: .max, count: resolved.count)
        pendingValue = Array(repeating: 0, count: resolved.count)
        owned = resolved.compactMap { if case .controller(let c, let channels) = $0.target { (c, channels) } else { nil } }
        choosesSections = resolved.contains { if case .nextSection = $0.target { true } else { false } }
        sectionStartTicks = sections.map(\.startTick)
    }

    /// Mapping `m`'s curve at its parameter's value at `time`.
    @inline(__always) private func value(_ m: Int, at time: SampleTime) -> Double {
        mappings[m].curve.y(at: board.glide(mappings[m].parameter).value(at: time))
    }

    /// Sets the cycle's trims, tempo and transposition, before `player` schedules the cycle
    /// `time ..< time + frames` and `bus` renders it. Render thread only.
    func willRender(player: MusicPlayer, bus: MixerNode, from time: SampleTime, frames: Int) {
        var tempo = 1.0, transpose = 0.0, moves = false
        for m in 0..<mappings.count {
            switch mappings[m].target {
            case .tempo:
                tempo *= value(m, at: time) / 100
                moves = true
            case .transpose:
                transpose += value(m, at: time)
                moves = true
            case .trim, .controller, .nextSection: break
            }
        }
        if moves {
            // In whole percent: each change re-anchors the player, which a glide would do every cycle.
            player.modulateRate(scale: (tempo * 100).rounded() / 100, at: time)
            player.modulateTranspose(semitones: Int(transpose.rounded()))
        }
        for t in 0..<trimInputs.count { trim(t, bus: bus, from: time, frames: frames) }
        if board.changedAt != lookedAt {
            // New glides from this cycle on: what was found past its start is looked for again.
            lookedAt = board.changedAt
            for m in 0..<mappings.count {
                scanned[m] = min(scanned[m], time)
                pending[m] = .max
            }
        }
    }

    /// Schedules trim input `t`'s gain (the product of its mappings) through the cycle: a
    /// line between each two break frames (the cycle's ends, where a glide ends, where a
    /// glide crosses a curve's point), or nothing when it stands where it was.
    private func trim(_ t: Int, bus: MixerNode, from time: SampleTime, frames: Int) {
        let input = trimInputs[t]
        let end = time + SampleTime(frames)
        var count = 0, steady = true
        breaks[count] = 0
        count += 1
        for m in 0..<mappings.count {
            guard case .trim(let i) = mappings[m].target, i == input else { continue }
            let glide = board.glide(mappings[m].parameter)
            if glide.isSteady(from: time) { continue }
            steady = false
            let glideEnd = glide.start + glide.frames
            if glideEnd > time && glideEnd < end {
                breaks[count] = Int(glideEnd - time)
                count += 1
            }
            let points = mappings[m].curve.points
            for p in 0..<points.count {
                // Where the glide's line crosses the point's x.
                let fraction = (points[p].x - glide.from) / (glide.to - glide.from)
                guard fraction > 0 && fraction < 1 else { continue }
                let at = glide.start + SampleTime((fraction * Double(glide.frames)).rounded())
                if at > time && at < end {
                    breaks[count] = Int(at - time)
                    count += 1
                }
            }
        }
        let first = gain(input, at: time)
        if steady && first == trimmed[t] { return }
        breaks[count] = frames
        count += 1
        // Few breaks: an insertion sort, in place.
        for i in 1..<count {
            let b = breaks[i]
            var j = i
            while j > 0 && breaks[j - 1] > b {
                breaks[j] = breaks[j - 1]
                j -= 1
            }
            breaks[j] = b
        }
        if trimmed[t] < 0 { bus.scheduleTrim(ofInput: input, to: Float(first), at: time, rampFrames: 0) }
        for i in 1..<count where breaks[i] > breaks[i - 1] {
            let at = time + SampleTime(breaks[i])
            bus.scheduleTrim(ofInput: input, to: Float(gain(input, at: at)), at: time + SampleTime(breaks[i - 1]), rampFrames: breaks[i] - breaks[i - 1])
        }
        trimmed[t] = gain(input, at: end)
    }

    /// The trim of `input` at `time`: its mappings' gains multiplied.
    @inline(__always) private func gain(_ input: Int, at time: SampleTime) -> Double {
        var gain = 1.0
        for m in 0..<mappings.count {
            if case .trim(let i) = mappings[m].target, i == input { gain *= value(m, at: time) }
        }
        return gain
    }

    /// The next controller change due at or after `time` and before `limit`. Render thread only.
    func takeChange(from time: SampleTime, before limit: SampleTime) -> ControllerChange? {
        var best = -1
        for m in 0..<mappings.count {
            guard case .controller = mappings[m].target else { continue }
            if pending[m] == .max { look(m, from: max(scanned[m], time), before: limit) }
            if pending[m] < limit && (best < 0 || pending[m] < pending[best]) { best = m }
        }
        guard best >= 0, case .controller(let controller, let channels) = mappings[best].target else { return nil }
        let change = ControllerChange(time: pending[best], controller: controller, value: UInt8(pendingValue[best]), channels: channels)
        sent[best] = pendingValue[best]
        scanned[best] = pending[best] + 1
        pending[best] = .max
        return change
    }

    /// Looks for mapping `m`'s next change from `start` to `limit`, on the 64-frame grid.
    private func look(_ m: Int, from start: SampleTime, before limit: SampleTime) {
        var at = start
        let glide = board.glide(mappings[m].parameter)
        while at < limit {
            let v = min(127, max(0, Int(value(m, at: at).rounded())))
            if v != sent[m] {
                pending[m] = at
                pendingValue[m] = v
                return
            }
            if glide.isSteady(from: at) { break }
            at = (at / Self.controllerStep + 1) * Self.controllerStep
        }
        scanned[m] = max(scanned[m], limit)
    }

    /// The section the first next-section mapping picks at `time` (its curve's y rounded,
    /// into its list), if the song has it. Render thread only.
    func section(after ending: Int, at time: SampleTime) -> Int? {
        for m in 0..<mappings.count {
            guard case .nextSection(let indices) = mappings[m].target else { continue }
            let pick = min(indices.count - 1, max(0, Int(value(m, at: time).rounded())))
            return indices[pick] >= 0 ? indices[pick] : nil
        }
        return nil
    }

    /// What was sent from `time` on was dropped: sent again from there. Render thread only.
    func rewind(to time: SampleTime) {
        for m in 0..<mappings.count {
            scanned[m] = min(scanned[m], time)
            pending[m] = .max
            sent[m] = -1
        }
    }
}
