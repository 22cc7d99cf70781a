import DSP

/// A bus's insert chain: effect units that process its audio in place, one after another,
/// before its fader. Units are added and removed while rendering (a removed unit fades out
/// over 5 ms as a bypass does, then leaves); their parameters change on the exact frame given,
/// at once or gliding, and bypassing one (or bringing it back) fades over 5 ms instead of
/// clicking. Each unit keeps the `ID` it was added with while others come and go. Changes
/// travel to the render thread through a lock-free queue, and a removed unit comes back
/// through another to be released off it (`collectRemoved`). Control thread for the changes,
/// render thread for `process`.
public final class EffectChain: @unchecked Sendable {
    // @unchecked Sendable: `slots`, `pending` and `dry` belong to the render thread once
    // rendering starts; the control thread keeps its own list (`entries`) and talks through the queues.

    /// A unit's identity in its chain: 0 for the first added, then counting up, never reused. Any thread.
    public struct ID: Hashable, Sendable, Comparable {
        /// The number. Any thread.
        public let value: Int
        /// The unit numbered `value`. Any thread.
        public init(_ value: Int) { self.value = value }
        /// In the order added. Any thread.
        public static func < (a: ID, b: ID) -> Bool { a.value < b.value }
    }

    private enum Change {
        case feed(SideChain?)
        case append(ID, any EffectUnit)
        case remove(ID)
        case timed(Timed)
    }

    /// A change that waits for its frame: a parameter's new value, or a bypass.
    private struct Timed: Engine.Timed {
        var time: SampleTime
        var effect: ID
        var parameter: Int              // -1: the bypass (value 1 bypassed, 0 in use)
        var value: Double
        var ramp: Int
    }

    private struct Slot {
        var unit: (any EffectUnit)?
        var id = ID(-1)
        var wet: Float = 1              // 1 in use, 0 bypassed, between while fading
        var target: Float = 1
        var leaving = false             // removed: fading out, then gone
    }

    /// Most units in one chain. Any thread.
    public static let capacity = 16
    // Room for units still fading out after their removal beside a full chain.
    private var slots = [Slot](repeating: Slot(), count: 2 * EffectChain.capacity)
    private var count = 0
    private var pending: TimedQueue<Timed>
    private let changes = SPSCQueue<Change>(capacity: 256)
    private let released = SPSCQueue<any EffectUnit>(capacity: 2 * EffectChain.capacity + 256)
    private var dry: AudioBuffer?
    private var tap: SideChain?
    private var fadeStep: Float = 1.0 / 240
    private var sampleRate: Int?
    private var maxFrames = 0
    private var entries: [(id: ID, unit: any EffectUnit, bypassed: Bool)] = []
    private var nextID = 0

    /// The units in order, as the control thread last set them. Control thread.
    public var units: [any EffectUnit] { entries.map(\.unit) }
    /// The units' identities, in order. Control thread.
    public var ids: [ID] { entries.map(\.id) }

    /// An empty chain. Control thread.
    public init() {
        pending = TimedQueue(capacity: 64, filler: Timed(time: 0, effect: ID(0), parameter: 0, value: 0, ramp: 0))
    }

    /// Gets its units ready for `format` in slices of at most `maxFrames`. Control thread, before rendering.
    public func prepare(format: AudioFormat, maxFrames: Int) {
        sampleRate = format.sampleRate
        self.maxFrames = maxFrames
        dry = AudioBuffer(capacity: maxFrames)
        fadeStep = 1 / Float(max(1, format.sampleRate / 200))
        for entry in entries { entry.unit.prepare(sampleRate: format.sampleRate, maxFrames: maxFrames) }
    }

    /// Frames the units in use delay the bus by. Control thread.
    public var latencyFrames: Int { entries.reduce(0) { $0 + ($1.bypassed ? 0 : $1.unit.latencyFrames) } }

    /// Frames the units in use may sound after the bus falls silent. Control thread.
    public var tailFrames: Int { entries.reduce(0) { $0 + ($1.bypassed ? 0 : $1.unit.tailFrames) } }

    /// Frames the units in use delay the bus by, as they report it now. Render thread only.
    public var renderLatency: Int {
        var sum = 0
        for index in 0..<count where slots[index].target > 0 { sum += slots[index].unit?.latencyFrames ?? 0 }
        return sum
    }

    /// Adds `unit` (prepared here if the chain is) at the end, from the next render cycle,
    /// and returns its identity. Control thread.
    @discardableResult
    public func append(_ unit: any EffectUnit) -> ID {
        precondition(entries.count < Self.capacity, "at most \(Self.capacity) effects in one chain")
        if let sampleRate { unit.prepare(sampleRate: sampleRate, maxFrames: maxFrames) }
        let id = ID(nextID)
        nextID += 1
        entries.append((id, unit, false))
        send(.append(id, unit))
        return id
    }

    /// Hands the chain's output, slice by slice, to `sideChain` (a compressor keyed by this
    /// bus), or to nothing; from the next render cycle. Control thread.
    public func feed(_ sideChain: SideChain?) { send(.feed(sideChain)) }

    /// Removes unit `id` from the next render cycle, fading it out over 5 ms (at once if it
    /// is bypassed); changes still waiting for it are dropped. Control thread.
    public func remove(_ id: ID) {
        entries.removeAll { $0.id == id }
        send(.remove(id))
    }

    /// Moves parameter `parameter` of unit `effect` to `value` at sample time `time` (`nil`:
    /// the start of the next render cycle), at once or gliding over `rampFrames`. Control thread.
    public func set(parameter: Int, ofEffect effect: ID, to value: Double, at time: SampleTime? = nil, rampFrames: Int = 0) {
        precondition(entries.contains { $0.id == effect }, "no effect \(effect.value) in the chain")
        send(.timed(Timed(time: time ?? .min, effect: effect, parameter: parameter, value: value, ramp: max(0, rampFrames))))
    }

    /// Moves parameter `parameter` of unit `effect` to `value` at sample time `time`, at once
    /// or gliding over `rampFrames`: a game parameter bound to it, from the render side.
    /// Render thread only (before the chain processes the cycle).
    public func scheduleParameter(_ parameter: Int, ofEffect effect: ID, to value: Double, at time: SampleTime, rampFrames: Int) {
        while let change = changes.pop() { take(change) }
        take(.timed(Timed(time: time, effect: effect, parameter: parameter, value: value, ramp: max(0, rampFrames))))
    }

    /// Bypasses unit `effect` (or brings it back) at sample time `time` (`nil`: the next
    /// render cycle), fading over 5 ms; a unit brought back starts from silence. Control thread.
    public func setBypassed(_ bypass: Bool, effect: ID, at time: SampleTime? = nil) {
        guard let index = entries.firstIndex(where: { $0.id == effect }) else { preconditionFailure("no effect \(effect.value) in the chain") }
        entries[index].bypassed = bypass
        send(.timed(Timed(time: time ?? .min, effect: effect, parameter: -1, value: bypass ? 1 : 0, ramp: 0)))
    }

    /// Releases the units the render thread has let go of. Control thread.
    public func collectRemoved() {
        while released.pop() != nil {}
    }

    private func send(_ change: Change) {
        while !changes.push(change) {
            collectRemoved()
            sched_yield()
        }
    }

    /// Processes `audio`, frames `time ..< time + audio.frames`, through the units in turn,
    /// each change landing on its frame. Render thread only.
    public func process(_ audio: StereoSlice, at time: SampleTime) {
        while let change = changes.pop() { take(change) }
        defer { tap?.write(audio) }
        guard count > 0 || pending.count > 0 else { return }
        var done = 0
        while done < audio.frames {
            while let timed = pending.popFirst(before: time + SampleTime(done) + 1) { apply(timed) }
            let next = pending.first.map { Int(min($0.time - time, SampleTime(audio.frames))) } ?? audio.frames
            let segment = audio.dropFirst(done, count: next - done)
            for index in 0..<count { run(index, on: segment) }
            done = next
        }
        var index = 0
        while index < count {
            if slots[index].leaving && slots[index].wet == 0 { release(index) } else { index += 1 }
        }
    }

    /// The slot of unit `id` still in the chain (not leaving), nil if there is none.
    private func slot(of id: ID) -> Int? {
        for index in 0..<count where slots[index].id == id && !slots[index].leaving { return index }
        return nil
    }

    /// Hands slot `index`'s unit back to the control thread and closes the gap.
    private func release(_ index: Int) {
        if let unit = slots[index].unit { _ = released.push(unit) }
        for k in index..<count - 1 { slots[k] = slots[k + 1] }
        count -= 1
        slots[count] = Slot()
    }

    private func take(_ change: Change) {
        switch change {
        case .feed(let sideChain):
            tap = sideChain
        case .append(let id, let unit):
            if count == slots.count, let leaving = (0..<count).first(where: { slots[$0].leaving }) { release(leaving) }
            guard count < slots.count else { return }
            slots[count] = Slot(unit: unit, id: id)
            count += 1
        case .remove(let id):
            guard let index = slot(of: id) else { return }
            if slots[index].wet == 0 { return release(index) }
            slots[index].leaving = true
            slots[index].target = 0
        case .timed(let timed):
            // Kept in time order, a later change of the same time after an earlier one; when
            // the list is full the change is applied at once rather than lost.
            if !pending.insert(timed) { apply(timed) }
        }
    }

    private func apply(_ timed: Timed) {
        guard let index = slot(of: timed.effect), let unit = slots[index].unit else { return }
        if timed.parameter >= 0 {
            unit.setParameter(timed.parameter, to: timed.value, rampFrames: timed.ramp)
            return
        }
        let target: Float = timed.value > 0 ? 0 : 1
        if target == 1 && slots[index].wet == 0 { unit.reset() }
        slots[index].target = target
    }

    /// Runs unit `index` over `audio`, crossfading with the dry signal while a bypass fades.
    private func run(_ index: Int, on audio: StereoSlice) {
        let slot = slots[index]
        guard let unit = slot.unit, audio.frames > 0 else { return }
        if slot.wet == slot.target {
            if slot.wet == 1 { unit.process(audio) }
            return
        }
        guard let dry else { return }
        let copy = dry.slice(frames: audio.frames)
        copy.left.update(from: audio.left, count: audio.frames)
        copy.right.update(from: audio.right, count: audio.frames)
        unit.process(audio)
        var wet = slot.wet
        let step = slot.target > wet ? fadeStep : -fadeStep
        for i in 0..<audio.frames {
            wet = min(1, max(0, wet + step))
            audio.left[i] = copy.left[i] + wet * (audio.left[i] - copy.left[i])
            audio.right[i] = copy.right[i] + wet * (audio.right[i] - copy.right[i])
        }
        slots[index].wet = wet
    }
}

#if canImport(Glibc)
import Glibc
#endif
