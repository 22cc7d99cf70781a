import DSP
import Engine
import Sequencing

extension Soundtrack {
    /// A curve from a game parameter's value to what it drives: straight lines through its
    /// points (x in the parameter's range, y in the target's unit), flat before the first and
    /// after the last. Any thread.
    public struct ParameterCurve: Hashable, Sendable {
        /// A point of the curve. Any thread.
        public struct Point: Hashable, Sendable {
            /// The parameter's value. Any thread.
            public var x: Double
            /// What the target gets there. Any thread.
            public var y: Double
        }

        /// The points, in order of `x`. Any thread.
        public let points: [Point]

        /// Straight lines through `points` (put in order of x). Any thread.
        public init(_ points: [(x: Double, y: Double)]) {
            self.points = points.map { Point(x: $0.x, y: $0.y) }.sorted { $0.x < $1.x }
        }

        /// A straight line from `from` at x = 0 to `to` at x = 1 (a parameter of range 0...1). Any thread.
        public static func linear(from: Double, to: Double) -> ParameterCurve { ParameterCurve([(0, from), (1, to)]) }

        /// The curve's value at `x`. Any thread (plain index loops: no allocation on the render thread).
        func y(at x: Double) -> Double {
            let count = points.count
            if x <= points[0].x { return points[0].y }
            for i in 1..<count where x < points[i].x {
                let a = points[i - 1], b = points[i]
                return a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x)
            }
            return points[count - 1].y
        }
    }

    /// What a game parameter drives in the songs that play. Any thread.
    public enum ParameterTarget: Hashable, Sendable {
        /// A layer's volume (a track layer or a stem, by name, any case), linear gain 0...16,
        /// on top of `setLayer`'s; songs without the layer are left alone. Any thread.
        case layerVolume(String)
        /// The tempo, in percent (1...1000) of the tempo `setTempo` sets; notes sounding go on. Any thread.
        case tempo
        /// A controller (0...119) on channels as musicians count them (1...16), its value
        /// 0...127 rounded; the song's own messages for it on those channels are dropped. Any thread.
        case controller(Int, channels: [Int])
        /// A transposition in semitones (−48...48, rounded) added to `setTranspose`'s, from the next note. Any thread.
        case transpose
        /// Which section plays when one ends: the curve's y, rounded, picks a name from the
        /// list (0 the first); that section follows, on the boundary's frame, as a jump
        /// (repeating the one ending, or skipping ahead), in songs that have it. Any thread.
        case nextSection([String])
        /// A parameter of an effect on a bus (`addEffect`), by name, in its own unit and
        /// range; it glides there with the game parameter (a low-pass opening as the player
        /// surfaces). Any thread.
        case effect(BusEffect, parameter: String)
    }

    /// A parameter as the control side knows it.
    struct GameParameter {
        let index: Int                   // on the board
        let range: ClosedRange<Double>
        var glide: ParameterBoard.Glide  // the last one sent, in music time
    }

    /// A mapping as the soundtrack keeps it.
    struct ParameterMapping {
        let parameter: Int
        let target: ParameterTarget
        let curve: ParameterCurve
    }

    /// Parameters a soundtrack can have.
    static let maxParameters = 32

    /// Makes the game parameter `name` (any case) with values in `range`, standing at `value`
    /// (the range's low end when `nil`). Throws for a name already made, a range or value
    /// that is not finite or not in the range, or more than 32 parameters. Any thread.
    public func defineParameter(_ name: String, range: ClosedRange<Double> = 0...1, value: Double? = nil) throws(SoundtrackError) {
        let start = value ?? range.lowerBound
        guard range.lowerBound.isFinite, range.upperBound.isFinite, range.lowerBound < range.upperBound else {
            throw SoundtrackError(.argument, "parameter '\(name)': range \(range) must be finite and wider than a point")
        }
        guard range.contains(start) else { throw SoundtrackError(.argument, "parameter '\(name)': value \(start) is outside its range \(range)") }
        try state.withLock { state throws(SoundtrackError) in
            guard state.parameters[name.lowercased()] == nil else { throw SoundtrackError(.argument, "parameter '\(name)' is already defined") }
            guard state.parameters.count < Self.maxParameters else { throw SoundtrackError(.argument, "parameter '\(name)': a soundtrack has at most \(Self.maxParameters) parameters") }
            let index = state.parameters.count
            let glide = ParameterBoard.Glide(from: start, to: start, start: 0, frames: 0)
            state.parameters[name.lowercased()] = GameParameter(index: index, range: range, glide: glide)
            parameterBoard.send(index, glide)
        }
    }

    /// Makes parameter `name` drive `target` along `curve` (x in the parameter's range, y in
    /// the target's unit) in every song played from now on. Throws for a parameter not
    /// defined, a curve with no point or one out of the target's range, or a channel or
    /// controller that is not there. Any thread.
    public func mapParameter(_ name: String, to target: ParameterTarget, curve: ParameterCurve) throws(SoundtrackError) {
        let limits: ClosedRange<Double>
        var effectParameter: Int?
        switch target {
        case .effect(let effect, let parameter):
            let index = try parameterIndex(of: effect, parameter)
            let described = effect.spec.parameters[index]
            limits = described.minimum...described.maximum
            effectParameter = index
        case .layerVolume: limits = 0...16
        case .tempo: limits = 1...1000
        case .transpose: limits = -48...48
        case .nextSection(let names):
            guard !names.isEmpty else { throw SoundtrackError(.argument, "parameter '\(name)': give the sections it chooses among") }
            limits = 0...Double(names.count - 1)
        case .controller(let controller, let channels):
            guard (0...119).contains(controller) else { throw SoundtrackError(.argument, "controller \(controller): use 0 to 119 (120 and up are channel mode messages)") }
            guard !channels.isEmpty, channels.allSatisfy({ (1...16).contains($0) }) else {
                throw SoundtrackError(.argument, "controller \(controller) on channels \(channels): give channels 1 to 16")
            }
            limits = 0...127
        }
        guard !curve.points.isEmpty, curve.points.allSatisfy({ $0.x.isFinite && limits.contains($0.y) }) else {
            throw SoundtrackError(.argument, "parameter '\(name)': the curve for \(target) needs points with finite x and y in \(limits)")
        }
        guard zip(curve.points, curve.points.dropFirst()).allSatisfy({ $0.x < $1.x }) else {
            throw SoundtrackError(.argument, "parameter '\(name)': the curve for \(target) has two points at one x")
        }
        try state.withLock { state throws(SoundtrackError) in
            guard let parameter = state.parameters[name.lowercased()] else { throw Self.noParameter(name, state) }
            if case .effect(let effect, _) = target, let effectParameter {
                guard effectBindings.count < EffectBindings.capacity else {
                    throw SoundtrackError(.argument, "parameter '\(name)': a soundtrack drives at most \(EffectBindings.capacity) effect parameters")
                }
                effectBindings.add(EffectBindings.Binding(parameter: parameter.index, curve: curve, chain: mixer(effect.bus).inserts,
                                                          effect: effect.chainID, effectParameter: effectParameter))
                return
            }
            state.mappings.append(ParameterMapping(parameter: parameter.index, target: target, curve: curve))
        }
    }

    /// Moves parameter `name` to `value` from where it stands, along a straight line over
    /// `seconds` (at least `configuration.parameterGlideSeconds`, so nothing steps),
    /// smoothed on the render thread. Throws for a parameter not defined, or a value outside
    /// its range. Any thread.
    public func setParameter(_ name: String, to value: Double, seconds: Double = 0) throws(SoundtrackError) {
        let glideFrames = try frames(max(seconds, configuration.parameterGlideSeconds), "glide")
        try state.withLock { state throws(SoundtrackError) in
            guard var parameter = state.parameters[name.lowercased()] else { throw Self.noParameter(name, state) }
            guard value.isFinite, parameter.range.contains(value) else {
                throw SoundtrackError(.argument, "parameter '\(name)': value \(value) is outside its range \(parameter.range)")
            }
            let now = clock.earliestUnrenderedTime
            parameter.glide = ParameterBoard.Glide(from: parameter.glide.value(at: now), to: value, start: now, frames: Int64(glideFrames))
            state.parameters[name.lowercased()] = parameter
            parameterBoard.send(parameter.index, parameter.glide)
        }
    }

    /// Where parameter `name` stands now (along its glide), `nil` if it is not defined. Any thread.
    public func parameter(_ name: String) -> Double? {
        state.withLock { state in state.parameters[name.lowercased()]?.glide.value(at: clock.earliestUnrenderedTime) }
    }

    /// The line for a parameter `name` that is not defined.
    private static func noParameter(_ name: String, _ state: State) -> SoundtrackError {
        let names = state.parameters.keys.sorted()
        return SoundtrackError(.argument, "no parameter '\(name)' (parameters: \(names.isEmpty ? "none; defineParameter makes them" : names.joined(separator: ", ")))")
    }
}

/// The game parameters as the render thread moves them: each along its latest glide, which
/// the control side sends through a queue and the render thread takes at the start of a
/// cycle. Render thread once rendering (but `send`).
final class ParameterBoard: @unchecked Sendable {
    // @unchecked Sendable: `glides` is the render thread's; the control side only pushes.

    /// A straight line from `from` at `start` to `to` `frames` later, then `to`. Any thread.
    struct Glide {
        var from: Double
        var to: Double
        var start: SampleTime
        var frames: Int64

        /// Its value at `time`.
        @inline(__always) func value(at time: SampleTime) -> Double {
            guard time < start + frames else { return to }
            guard time > start else { return from }
            return from + (to - from) * Double(time - start) / Double(frames)
        }

        /// Whether it stands still from `time` on.
        @inline(__always) func isSteady(from time: SampleTime) -> Bool { time >= start + frames || from == to }
    }

    private var glides: [Glide]
    private let changes = SPSCQueue<(index: Int, glide: Glide)>(capacity: 1024)
    /// The cycle in which a glide last changed (the decks then look again at what they sent).
    private(set) var changedAt: SampleTime = .min

    /// Room for `capacity` parameters. Control thread.
    init(capacity: Int) {
        glides = Array(repeating: Glide(from: 0, to: 0, start: 0, frames: 0), count: capacity)
    }

    /// Sends parameter `index` its new glide. Control thread (under the soundtrack's lock).
    func send(_ index: Int, _ glide: Glide) {
        while !changes.push((index, glide)) { sched_yield() }
    }

    /// Takes the glides sent, at the start of the cycle at `time`. Render thread only.
    func advance(at time: SampleTime) {
        while let change = changes.pop() {
            glides[change.index] = change.glide
            changedAt = time
        }
    }

    /// Parameter `index`'s glide. Render thread only.
    @inline(__always) func glide(_ index: Int) -> Glide { glides[index] }
}

/// Game parameters bound to effects' parameters: each cycle in which a parameter glides (or
/// its glide changed), the effect is sent where the curve puts the parameter at the cycle's
/// end, gliding there over the cycle. Render thread once rendering (but `add` and `remove`).
final class EffectBindings: @unchecked Sendable {
    // @unchecked Sendable: `bindings` is the render thread's; the control side talks through
    // the queues, and takes back the bindings let go of, to release them off the render thread.

    /// A game parameter driving an effect's parameter.
    struct Binding {
        let parameter: Int
        let curve: Soundtrack.ParameterCurve
        let chain: EffectChain
        let effect: EffectChain.ID
        let effectParameter: Int
        var sent = false
    }

    /// Most bindings a soundtrack has.
    static let capacity = 64
    private var bindings: [Binding] = []
    private let added = SPSCQueue<Binding>(capacity: EffectBindings.capacity)
    private let removed = SPSCQueue<(EffectChain, EffectChain.ID)>(capacity: EffectBindings.capacity)
    private let released = SPSCQueue<Binding>(capacity: EffectBindings.capacity)
    private var targets: [(chain: EffectChain, effect: EffectChain.ID)] = []

    /// No bindings. Control thread.
    init() { bindings.reserveCapacity(Self.capacity) }

    /// Bindings in place. Control thread (under the soundtrack's lock).
    var count: Int { targets.count }

    /// Adds `binding` from the next cycle (at most `capacity` in all). Control thread (under
    /// the soundtrack's lock).
    func add(_ binding: Binding) {
        precondition(count < Self.capacity, "at most \(Self.capacity) effect bindings")
        while released.pop() != nil {}
        targets.append((binding.chain, binding.effect))
        _ = added.push(binding)
    }

    /// Drops every binding to unit `effect` of `chain` from the next cycle. Control thread
    /// (under the soundtrack's lock).
    func remove(chain: EffectChain, effect: EffectChain.ID) {
        while released.pop() != nil {}
        guard targets.contains(where: { $0.chain === chain && $0.effect == effect }) else { return }
        targets.removeAll { $0.chain === chain && $0.effect == effect }
        while !removed.push((chain, effect)) { sched_yield() }
    }

    /// Sends the bound effects their values for the cycle `time ..< time + frames`. Render thread only.
    func apply(_ board: ParameterBoard, at time: SampleTime, frames: Int) {
        while let binding = added.pop() { bindings.append(binding) }   // within the capacity reserved: no allocation
        while let gone = removed.pop() {
            var kept = 0
            for i in bindings.indices {
                if bindings[i].chain === gone.0 && bindings[i].effect == gone.1 {
                    _ = released.push(bindings[i])
                } else {
                    bindings.swapAt(kept, i)
                    kept += 1
                }
            }
            bindings.removeLast(bindings.count - kept)   // the ones left there were pushed back: no release here
        }
        for i in bindings.indices {
            let glide = board.glide(bindings[i].parameter)
            if bindings[i].sent && glide.isSteady(from: time) && board.changedAt != time { continue }
            let value = bindings[i].curve.y(at: glide.value(at: time + SampleTime(frames)))
            bindings[i].chain.scheduleParameter(bindings[i].effectParameter, ofEffect: bindings[i].effect, to: value, at: time, rampFrames: frames)
            bindings[i].sent = true
        }
    }
}

/// Takes the game parameters' glides, and sends the effects bound to them, before the music
/// renders. Render thread once connected.
final class ParametersNode: AudioNode, @unchecked Sendable {
    // @unchecked Sendable: rendering is the render thread's.
    let board: ParameterBoard
    let bindings: EffectBindings
    let inner: any AudioNode

    init(board: ParameterBoard, bindings: EffectBindings, inner: any AudioNode) {
        self.board = board
        self.bindings = bindings
        self.inner = inner
    }

    func prepare(format: AudioFormat, maxFrames: Int) { inner.prepare(format: format, maxFrames: maxFrames) }

    /// The parameters' new glides, then the music. Render thread only.
    func render(_ output: StereoSlice, at time: SampleTime) {
        board.advance(at: time)
        bindings.apply(board, at: time, frames: output.frames)
        inner.render(output, at: time)
    }
}

#if canImport(Glibc)
import Glibc
#endif
