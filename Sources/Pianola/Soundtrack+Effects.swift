import DSP
import Engine

extension Soundtrack {
    /// A bus of the soundtrack's mix, each with its insert chain: the sound effects and the
    /// songs are summed into the master, which the output (and the limiter) takes. Any thread.
    public enum Bus: String, Hashable, Sendable, CaseIterable {
        /// Everything, after the two below (before the master volume and the limiter).
        case master
        /// Every song, layers and stems included.
        case music
        /// The sound effects (`playSoundEffect`): dialogue and one-shots.
        case sounds
        /// The return bus: what the music and sounds send to it (`setSend`), through its
        /// effects (a reverb with `dry=0`, a delay), into the master after them.
        case aux
    }

    /// An effect on a bus, as `addEffect` made it. Any thread.
    public struct BusEffect: Hashable, Sendable, CustomStringConvertible {
        /// The bus it is on. Any thread.
        public let bus: Bus
        /// Its number on the bus: 0 for the first added there, then counting up, kept while
        /// others are removed and never reused. Any thread.
        public let id: Int
        /// The spec it was made from. Any thread.
        public let spec: EffectSpec
        /// `music: lowpass,cutoff=800` (the bus and the spec). Any thread.
        public var description: String { "\(bus.rawValue): \(spec)" }
        /// Its identity in the bus's insert chain.
        var chainID: EffectChain.ID { EffectChain.ID(id) }
    }

    /// The mixer of `bus`.
    func mixer(_ bus: Bus) -> MixerNode {
        switch bus {
        case .master: master
        case .music: music
        case .sounds: sounds
        case .aux: aux
        }
    }

    /// Adds the effect `spec` at the end of `bus`'s chain, sounding from the next render
    /// cycle. A compressor given `keyedBy` turns `bus` down by that bus's level instead of its
    /// own (the music ducking under dialogue: on `.music`, keyed by `.sounds`), and an LV2
    /// plugin with side-chain inputs hears that bus on them (else silence); a key must be
    /// summed before the bus it drives (sounds before music, both before master). Throws for
    /// a spec the sample rate cannot play, a key for another effect or a bus that comes later,
    /// or a full chain (16 effects). Any thread.
    @discardableResult
    public func addEffect(_ spec: EffectSpec, on bus: Bus, keyedBy key: Bus? = nil) throws(SoundtrackError) -> BusEffect {
        if let problem = spec.problem(atSampleRate: configuration.sampleRate, secondsPerQuarter: 0.5) {
            throw SoundtrackError(.argument, "effect \(problem)")
        }
        guard spec.isHardRealTime else {
            throw SoundtrackError(.argument, "effect '\(spec)': LV2 plugin '\(spec.name)' does not say it is hard real-time capable (lv2:hardRTCapable), and a soundtrack plays live")
        }
        if let key {
            guard spec.name == "compressor" || spec.plugin.map({ !$0.sideChainInputs.isEmpty }) == true else {
                throw SoundtrackError(.argument, "effect '\(spec)': only a compressor or an LV2 plugin with side-chain inputs is keyed by another bus")
            }
            guard Self.rendersBefore(key, bus) else {
                throw SoundtrackError(.argument, "effect '\(spec)' on \(bus.rawValue) keyed by \(key.rawValue): the key must be summed before the bus it drives (sounds, then music, then master)")
            }
        }
        return try state.withLock { state throws(SoundtrackError) in
            let chain = mixer(bus).inserts
            guard chain.units.count < EffectChain.capacity else {
                throw SoundtrackError(.argument, "effect '\(spec)': the \(bus.rawValue) bus already has \(EffectChain.capacity) effects")
            }
            let unit: any EffectUnit
            if let key, spec.plugin == nil {
                unit = spec.configure(CompressorEffect(sideChain: taps[key]!))
            } else {
                do throws(EffectSpecError) { unit = try spec.makeUnit(sampleRate: configuration.sampleRate, maxFrames: configuration.maxFrames) } catch {
                    throw SoundtrackError(error.kind, "effect \(error)")
                }
                if let key, let plugin = unit as? LV2EffectUnit { plugin.key = taps[key]! }   // its side chains hear the key bus
            }
            let effect = BusEffect(bus: bus, id: chain.append(unit).value, spec: spec)
            state.busEffects[bus, default: []].append(effect)
            return effect
        }
    }

    /// Sends `bus` (the music or the sounds, after their effects) into the aux return bus at
    /// `level` (linear gain, 0 to 16; 0 sends nothing), from the next render slice, gliding
    /// over it. Throws for another bus or a level out of range. Any thread.
    public func setSend(from bus: Bus, level: Float) throws(SoundtrackError) {
        guard let index = [Bus.music, .sounds].firstIndex(of: bus) else {
            throw SoundtrackError(.argument, "send from \(bus.rawValue): only the music and the sounds send to the aux bus")
        }
        let level = try Self.gain(level, "send level")
        returns.setLevel(level, source: index)
    }

    /// The effects on `bus`, in order. Any thread.
    public func effects(on bus: Bus) -> [BusEffect] { state.withLock { $0.busEffects[bus] ?? [] } }

    /// Moves parameter `name` of `effect` to `value` from the next render cycle, gliding over
    /// `seconds` (at least `configuration.parameterGlideSeconds`, so nothing steps). Throws
    /// for an effect not on its bus, a parameter it has not, or a value out of its range. Any thread.
    public func setEffectParameter(_ effect: BusEffect, _ name: String, to value: Double, seconds: Double = 0) throws(SoundtrackError) {
        let glide = try frames(max(seconds, configuration.parameterGlideSeconds), "glide")
        let index = try parameterIndex(of: effect, name, value: value)
        state.withLock { _ in mixer(effect.bus).inserts.set(parameter: index, ofEffect: effect.chainID, to: value, rampFrames: glide) }
    }

    /// Bypasses `effect` (or brings it back) from the next render cycle, fading over 5 ms.
    /// Throws for an effect not on its bus. Any thread.
    public func setEffectBypassed(_ effect: BusEffect, _ bypassed: Bool) throws(SoundtrackError) {
        try state.withLock { state throws(SoundtrackError) in
            guard state.busEffects[effect.bus]?.contains(effect) == true else { throw Self.noEffect(effect) }
            mixer(effect.bus).inserts.setBypassed(bypassed, effect: effect.chainID)
        }
    }

    /// Takes `effect` off its bus from the next render cycle, fading it out over 5 ms; the
    /// game parameters bound to it let go of it. Throws for an effect not on its bus. Any thread.
    public func removeEffect(_ effect: BusEffect) throws(SoundtrackError) {
        try state.withLock { state throws(SoundtrackError) in
            guard state.busEffects[effect.bus]?.contains(effect) == true else { throw Self.noEffect(effect) }
            effectBindings.remove(chain: mixer(effect.bus).inserts, effect: effect.chainID)
            mixer(effect.bus).inserts.remove(effect.chainID)
            state.busEffects[effect.bus]?.removeAll { $0 == effect }
        }
    }

    /// The index of `effect`'s parameter `name`, checking `value` (when given) against its range.
    func parameterIndex(of effect: BusEffect, _ name: String, value: Double? = nil) throws(SoundtrackError) -> Int {
        guard state.withLock({ $0.busEffects[effect.bus]?.contains(effect) == true }) else { throw Self.noEffect(effect) }
        let parameters = effect.spec.parameters
        guard let index = parameters.firstIndex(where: { $0.name == name }) ?? parameters.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw SoundtrackError(.argument, "effect \(effect): no parameter '\(name)' (it has \(parameters.map(\.name).joined(separator: ", ")))")
        }
        if let value {
            let parameter = parameters[index]
            guard value.isFinite, value >= parameter.minimum, value <= parameter.maximum else {
                throw SoundtrackError(.argument, "effect \(effect): \(name) \(value) is out of range: use \(parameter.minimum) to \(parameter.maximum)\(parameter.unit.isEmpty ? "" : " \(parameter.unit)")")
            }
        }
        return index
    }

    /// Whether `key` is summed before `bus` is processed.
    private static func rendersBefore(_ key: Bus, _ bus: Bus) -> Bool {
        switch (key, bus) {
        case (.sounds, .music), (.sounds, .master), (.music, .master), (.sounds, .aux), (.music, .aux), (.aux, .master): true
        default: false
        }
    }

    private static func noEffect(_ effect: BusEffect) -> SoundtrackError {
        SoundtrackError(.argument, "effect \(effect) is not on the \(effect.bus.rawValue) bus of this soundtrack")
    }
}
