import SoundFontModel
#if canImport(Glibc)
import Glibc
#endif

/// One sounding note of one region: its sample played at the note's pitch (four-point
/// interpolation), shaped by the volume envelope, attenuated and panned as libfluidsynth does
/// it, through its resonant low-pass filter; the modulation envelope and the two LFOs move its
/// pitch, cutoff and volume once per control block. Its blocks are counted from the note's own
/// first frame so that it starts on the exact frame it is given; its mix's ramps and its cutoff
/// move on the synthesizer's blocks, which every voice shares, so that four voices filter and
/// mix side by side (`VoiceQuad`). Its modulators are read when
/// it starts and again whenever its channel's controllers move. Made on any thread; rendered on
/// the render thread only, where it allocates nothing.
struct Voice {
    private var player: SamplePlayer
    private var envelope: Envelope
    private var modulationEnvelope: Envelope
    private var modulationLFO: LFO, vibratoLFO: LFO
    /// Frames played before the current control block (the LFOs' delays count them).
    private var elapsed = 0
    /// Its filter, which `LowPassFilter.Lanes` runs with three other voices'.
    private var filter: LowPassFilter
    /// The pitch in cents and the cutoff in absolute cents before the envelope and the LFOs
    /// move them; the filter's Q in centibels.
    private var pitch: Double = 0, cutoff: Float = 0
    /// Portamento: cents the pitch is still away from the note's, and the step a block takes toward it.
    private var glide: Double = 0, glideStep: Double = 0
    private var glided = false   // the glide moved since the pitch was last worked out
    private var resonance: Int32 = 0
    /// How far the modulation LFO, the vibrato LFO and the modulation envelope move the pitch
    /// (cents at full scale), the modulation LFO and envelope the cutoff (cents), and the
    /// modulation LFO the volume (centibels).
    private var modLFOToPitch: Float = 0, vibLFOToPitch: Float = 0, modEnvToPitch: Float = 0
    private var modLFOToCutoff: Float = 0, modEnvToCutoff: Float = 0, modLFOToVolume: Float = 0
    /// The voice's attenuation in centibels (the generator with libfluidsynth's EMU factor).
    private var attenuation: Float = 0
    /// libfluidsynth ends a voice past its attack once it cannot be heard: when the gain of
    /// the least attenuation the channel's controllers could still give it (`loudest`, worked
    /// out at the start), times the envelope's value, falls below its noise floor over the
    /// output gain (`silentBelow`), or, once a continuous loop inside the sample's own has gone
    /// round, below that over the loop's peak (`silentBelowInLoop`). A decay to a sustain of
    /// 100 dB or more ends the note there.
    private var loudest: Float = 1
    private let silentBelow: Float, silentBelowInLoop: Float
    /// What a controller change needs to work the voice out again: its key and velocity, the
    /// key's pitch in cents before the tunings, the sample's root pitch, its rate over the
    /// output's, the output rate and gain.
    private var key: Int, velocity: Int
    /// The key whose pitch it plays (the zone's key number, else the note's) and the zone's
    /// scale tuning (cents a key), which place it in its channel's key tuning.
    private var playedKey: Int
    private let scaleTuning: Int32
    private var keyPitch: Double
    private let rootPitch: Double, rateRatio: Double, sampleRate: Double
    private let gain: Float
    /// The channel's tuning in cents (RPN 1 and 2).
    private var tuning: Double
    /// The mix's gains, lanes (left, right, reverb send, chorus send): output gain and pan on
    /// each side, and the sends' (the output gain times generators 16 and 15, unpanned, as
    /// libfluidsynth feeds its effects); where the mix is at the start of the synthesizer's
    /// block, and its step a frame: like libfluidsynth's mixer, each change (the voice's start
    /// from silence included) ramps over one block (over the rest of it when the voice starts
    /// inside one), a frame's gains worked out from its place in the block (so that where a
    /// render call splits a block changes nothing): `mixOrigin` plus the step times the place.
    private var mixTarget = SIMD4<Float>(), mix = SIMD4<Float>(), mixStep = SIMD4<Float>(), mixOrigin = SIMD4<Float>()
    /// Whether it has yet to take its first of the synthesizer's blocks.
    private var sharedBlockPending = true
    /// The envelope gain reached at the end of the last block.
    private var amplitude: Float = 0
    /// Its place in its own control block (counted from its first frame, as libfluidsynth
    /// counts a note's: the envelopes, the LFOs and the pitch move there), and whether the
    /// next frame starts one.
    private var frameInBlock = 0, blockPending = true
    /// The envelope's ramp a frame through this block. Not beside `amplitude`: the optimizer
    /// read both in one load, which right after `startBlock` stores this one waited for the
    /// store to reach the cache (a store forwards only to a load no wider than itself).
    private var step: Float = 0
    /// The interpolation's coefficients, the gain table and the pitch ratios, kept here: each
    /// read of the lazy globals goes through `swift_once`, and a block read them three times.
    private let coefficients = Interpolation.coefficients, gains = Units.gains, ratios = Units.centsRatios
    /// Whether it has nothing more to play.
    private var isFinished = false
    /// Its exclusive class (generator 57): a note of the same class on its channel cuts it; 0 for none.
    private(set) var exclusiveClass: Int32

    /// libfluidsynth scales the attenuation generators of a file by this (what EMU's hardware
    /// did, and what fonts are made for).
    static let attenuationFactor: Float = 0.4

    /// A voice of `region` in `font` for `key` at `velocity` on a channel at `controllers`, at
    /// `sampleRate`, `gain` the synthesizer's output gain (libfluidsynth's default is 0.2),
    /// the keys pitched by the channel's MTS `tuning` (128 cents) if it has one, `loopPeak` the
    /// sample's `loopPeak` if known (0 if not), `cutoffs` the rate's `CutoffTable`. Nil when
    /// the region's sample holds no data Pianola can play (compressed, or out of the file's bounds).
    init?(region: Region, font: SoundFont, key: Int, velocity: Int, controllers: ChannelControllers = ChannelControllers(),
          tuning: UnsafePointer<Double>? = nil, sampleRate: Double, cutoffs: UnsafePointer<SIMD2<Double>>, gain: Float, loopPeak: Int = 0) {
        let header = font.samples[region.sample]
        let data = font.data(of: header)
        guard let base = data.baseAddress, !data.isEmpty else { return nil }
        Self.prepareTables()
        let (heardKey, heardVelocity) = Self.heard(key: key, velocity: velocity, region)
        let modulated = ModulatorSources.contributions(region.modulators, key: heardKey, velocity: heardVelocity, controllers: controllers)
        /// A generator's value with what the modulators add, in whole units.
        func value(_ generator: Generator) -> Int32 { region[generator] &+ Int32(modulated[Int(generator.rawValue)].rounded(.towardZero)) }
        // Points counted from the sample's start, moved by the address offsets (what modulators
        // add included: a key or a velocity may move where a sample starts, as libfluidsynth
        // lets them), then made sane as libfluidsynth's voice makes them: the first and the
        // last point each kept inside the sample and swapped when out of order (a voice of one
        // point is silent); the loop's ends each kept inside it and swapped, the loop dropped
        // when shorter than two points. The loop need not lie between the first and the last.
        let origin = Int(header.start), count = data.count
        let start = Int(value(.startAddressOffset)) + 32_768 * Int(value(.startAddressCoarseOffset))
        let end = count + Int(value(.endAddressOffset)) + 32_768 * Int(value(.endAddressCoarseOffset))
        var first = min(max(start, 0), count - 1), lastPoint = min(max(end - 1, 0), count - 1)
        if first > lastPoint { swap(&first, &lastPoint) }
        let silent = first == lastPoint, last = silent ? first : lastPoint + 1
        var loopStart = Int(header.loopStart) - origin + Int(value(.startLoopAddressOffset)) + 32_768 * Int(value(.startLoopAddressCoarseOffset))
        var loopEnd = Int(header.loopEnd) - origin + Int(value(.endLoopAddressOffset)) + 32_768 * Int(value(.endLoopAddressCoarseOffset))
        (loopStart, loopEnd) = (min(max(loopStart, 0), count), min(max(loopEnd, 0), count))
        if loopStart > loopEnd { swap(&loopStart, &loopEnd) }
        // Pitch in cents: the sample's own from its root key (the zone's, else the sample's)
        // less its correction; the key's scaled by the scale tuning about that.
        playedKey = region[.keyNumber] >= 0 ? Int(region[.keyNumber]) : key
        // Not held to the generator's range: libfluidsynth plays a preset's and an instrument's
        // sum as it is, so a negative one turns the keyboard round (FluidR3_GS's sound effects).
        scaleTuning = region[.scaleTuning]
        let rootKey = region[.overridingRootKey] >= 0 ? Int(min(region[.overridingRootKey], 127)) : header.originalPitch > 127 ? 60 : Int(header.originalPitch)
        rootPitch = Double(rootKey) * 100 - Double(header.pitchCorrection)
        keyPitch = Self.keyPitch(playedKey, scaleTuning: scaleTuning, rootPitch: rootPitch, tuning: tuning)
        rateRatio = Double(max(header.sampleRate, 1)) / sampleRate
        self.key = key
        self.velocity = velocity
        exclusiveClass = region[.exclusiveClass]
        self.tuning = controllers.tuning
        self.sampleRate = sampleRate
        self.gain = gain
        silentBelow = Self.noiseFloor / max(gain, 1e-7)
        // (A header whose loop ends before it starts has no loop for the region's to be inside.)
        let headerLoopStart = Int(header.loopStart) - origin, headerLoopEnd = Int(header.loopEnd) - origin
        let inSampleLoop = region[.sampleModes] == 1 && headerLoopStart <= loopStart && loopStart <= headerLoopEnd
            && headerLoopStart <= loopEnd && loopEnd <= headerLoopEnd
        silentBelowInLoop = loopPeak > 0 && inSampleLoop ? silentBelow * 32_768 / Float(loopPeak) : silentBelow
        player = SamplePlayer(data: base, readable: font.sampleDataCount - origin, start: first, end: last, loopStart: loopStart, loopEnd: loopEnd,
                              mode: silent ? 0 : region[.sampleModes], increment: 0)
        envelope = Envelope(.volume, Self.volumeTimes(value), key: heardKey, sampleRate: sampleRate)
        modulationEnvelope = Envelope(.modulation, Self.modulationTimes(value), key: heardKey, sampleRate: sampleRate)
        modulationLFO = LFO(delay: value(.modLFODelay), frequency: value(.modLFOFrequency), sampleRate: sampleRate)
        vibratoLFO = LFO(delay: value(.vibLFODelay), frequency: value(.vibLFOFrequency), sampleRate: sampleRate)
        filter = LowPassFilter(cutoff: value(.initialFilterCutoff), q: value(.initialFilterQ), cutoffs: cutoffs)
        apply(region, modulated)
        let reduction = ModulatorSources.attenuationReduction(region.modulators, key: heardKey, velocity: heardVelocity, controllers: controllers)
        loudest = Units.gain(centibels: max(attenuation - reduction, 0))
    }

    /// The key and velocity the zone's modulators and key-scaled envelopes hear: those its
    /// key number and velocity generators (46, 47) force, as libfluidsynth's voice takes them
    /// (a key number from 0, a velocity from 1), else the note's.
    private static func heard(key: Int, velocity: Int, _ region: Region) -> (key: Int, velocity: Int) {
        (region[.keyNumber] >= 0 ? Int(min(region[.keyNumber], 127)) : key, region[.velocity] > 0 ? Int(min(region[.velocity], 127)) : velocity)
    }

    /// libfluidsynth's noise floor: 2·10⁻⁷ of full scale (a 24-bit synthesizer's).
    static let noiseFloor: Float = 2e-7

    /// The largest magnitude of sample `index`'s points inside its own loop (1 for a silent
    /// loop), which libfluidsynth measures once to end looping voices early. Reads the loop's
    /// points: control thread.
    static func loopPeak(ofSample index: Int, in font: SoundFont) -> Int {
        let header = font.samples[index]
        let data = font.data(of: header)
        let from = max(Int(header.loopStart) - Int(header.start), 0), to = min(Int(header.loopEnd) - Int(header.start), data.count)
        var peak = 1
        if from < to { for i in from..<to { peak = max(peak, abs(Int(data[i]))) } }
        return peak
    }

    /// The volume envelope's generators, each as `value` gives it (the region's plus its modulators').
    private static func volumeTimes(_ value: (Generator) -> Int32) -> Envelope.Times {
        Envelope.Times(delay: value(.volEnvDelay), attack: value(.volEnvAttack), hold: value(.volEnvHold), decay: value(.volEnvDecay),
                       sustain: value(.volEnvSustain), release: value(.volEnvRelease), keyToHold: value(.keyToVolEnvHold), keyToDecay: value(.keyToVolEnvDecay))
    }

    /// The modulation envelope's generators, as `volumeTimes`.
    private static func modulationTimes(_ value: (Generator) -> Int32) -> Envelope.Times {
        Envelope.Times(delay: value(.modEnvDelay), attack: value(.modEnvAttack), hold: value(.modEnvHold), decay: value(.modEnvDecay),
                       sustain: value(.modEnvSustain), release: value(.modEnvRelease), keyToHold: value(.keyToModEnvHold), keyToDecay: value(.keyToModEnvDecay))
    }

    /// A legato note in mono mode takes the voice over, as libfluidsynth's multi-retrigger
    /// legato does: the sample plays on from where it is at `newKey`'s pitch, the modulators
    /// are worked out for `newKey` and `newVelocity`, the envelopes' key-scaled hold and decay
    /// for the new key, and both envelopes go back to their attack from where they are, the
    /// volume with no jump. Render thread only.
    mutating func legato(toKey newKey: Int, velocity newVelocity: Int, region: Region, tuning keyTuning: UnsafePointer<Double>?,
                         controllers: ChannelControllers) {
        let before = attenuation
        (key, velocity) = (newKey, newVelocity)
        playedKey = region[.keyNumber] >= 0 ? Int(region[.keyNumber]) : newKey
        keyPitch = Self.keyPitch(playedKey, scaleTuning: scaleTuning, rootPitch: rootPitch, tuning: keyTuning)
        tuning = controllers.tuning
        let (heardKey, heardVelocity) = Self.heard(key: newKey, velocity: newVelocity, region)
        let modulated = ModulatorSources.contributions(region.modulators, key: heardKey, velocity: heardVelocity, controllers: controllers)
        func value(_ generator: Generator) -> Int32 { region[generator] &+ Int32(modulated[Int(generator.rawValue)].rounded(.towardZero)) }
        envelope.setHoldAndDecay(Self.volumeTimes(value), key: heardKey, sampleRate: sampleRate)
        modulationEnvelope.setHoldAndDecay(Self.modulationTimes(value), key: heardKey, sampleRate: sampleRate)
        apply(region, modulated)
        envelope.retriggerAttack(scale: Units.gain(centibels: before) / max(Units.gain(centibels: attenuation), .leastNormalMagnitude))
        modulationEnvelope.retriggerAttack()
    }

    /// Sets what the controllers move while the note sounds (pitch, attenuation, pan, the
    /// filter) from `region`'s generators and what its modulators make of `controllers` now,
    /// as libfluidsynth updates a sounding voice. Render thread only.
    mutating func update(_ region: Region, controllers: ChannelControllers) {
        tuning = controllers.tuning
        let (heardKey, heardVelocity) = Self.heard(key: key, velocity: velocity, region)
        apply(region, ModulatorSources.contributions(region.modulators, key: heardKey, velocity: heardVelocity, controllers: controllers))
    }

    /// Plays the note in its channel's new MTS `tuning` (nil for none), worked out again as
    /// `update` does. Render thread only.
    mutating func retune(_ tuning: UnsafePointer<Double>?, region: Region, controllers: ChannelControllers) {
        keyPitch = Self.keyPitch(playedKey, scaleTuning: scaleTuning, rootPitch: rootPitch, tuning: tuning)
        update(region, controllers: controllers)
    }

    /// The pitch in cents of `key` before the tunings: `scaleTuning` cents a key about the
    /// sample's `rootPitch` (its root key less its correction), which keeps its own pitch, or
    /// in an MTS `tuning` the scale tuning's share of the key's distance from the root key
    /// there. libfluidsynth 2.3's arithmetic, to the last bit: its fraction decides the whole
    /// cent a pitch is played at. (Its issue 1773 leaves the correction out of the pivot in
    /// later versions, which moves a corrected sample under a scale tuning other than 100.)
    private static func keyPitch(_ key: Int, scaleTuning: Int32, rootPitch: Double, tuning: UnsafePointer<Double>?) -> Double {
        guard let tuning else { return Double(scaleTuning) * (Double(key) - rootPitch / 100) + rootPitch }
        let rootKey = min(max(Int(rootPitch / 100), 0), 127)
        return Double(scaleTuning) / 100 * (tuning[min(key, 127)] - tuning[rootKey]) + tuning[rootKey]
    }

    /// Pitch, attenuation, pan, filter and what the envelope and LFOs move from the region's
    /// generators plus `modulated`.
    private mutating func apply(_ region: Region, _ modulated: SIMD64<Float>) {
        func value(_ generator: Generator) -> Int32 { region[generator] &+ Int32(modulated[Int(generator.rawValue)].rounded(.towardZero)) }
        /// A generator's value with what the modulators add, unrounded and kept in its range.
        func amount(_ generator: Generator) -> Float {
            let sum = Float(region[generator]) + modulated[Int(generator.rawValue)]
            guard let range = generator.range else { return sum }
            return min(max(sum, Float(range.lowerBound)), Float(range.upperBound))
        }
        // As libfluidsynth sums them: the tunings with what their modulators add, fractions
        // and all, not held to their ranges (its sum's fraction decides the whole cent played).
        func unrounded(_ generator: Generator) -> Double { Double(region[generator]) + Double(modulated[Int(generator.rawValue)]) }
        pitch = keyPitch + 100 * unrounded(.coarseTune) + unrounded(.fineTune)
            + Double(modulated[59])   // the pitch wheel's modulator
            + tuning
        cutoff = Float(value(.initialFilterCutoff))
        resonance = value(.initialFilterQ)
        modLFOToPitch = amount(.modLFOToPitch)
        vibLFOToPitch = amount(.vibLFOToPitch)
        modEnvToPitch = amount(.modEnvToPitch)
        modLFOToCutoff = amount(.modLFOToFilterCutoff)
        modEnvToCutoff = amount(.modEnvToFilterCutoff)
        modLFOToVolume = amount(.modLFOToVolume)
        modulate()
        // The file's attenuation takes the EMU factor; what modulators add does not.
        attenuation = min(max(Float(region[.initialAttenuation]) * Self.attenuationFactor + modulated[Int(Generator.initialAttenuation.rawValue)], 0), 1_440)
        let pan = min(max(value(.pan), -500), 500)
        mixTarget = SIMD4(gain * Self.panGain(-pan), gain * Self.panGain(pan), gain * amount(.reverbSend) / 1_000, gain * amount(.chorusSend) / 1_000)
    }

    /// The pitch and the cutoff where the modulation envelope and the LFOs put them now.
    private mutating func modulate() {
        modulatePitch(moved: true)
        modulateCutoff()
    }

    /// The pitch where the modulation envelope and the LFOs put it now, worked out again only
    /// when `moved` (the generators or the glide have) or something moves it.
    private mutating func modulatePitch(moved: Bool) {
        guard moved || glide != 0 || modLFOToPitch != 0 || vibLFOToPitch != 0 || modEnvToPitch != 0 else { return }
        let swing = modLFOToPitch * modulationLFO.value + vibLFOToPitch * vibratoLFO.value + modEnvToPitch * modulationEnvelope.modulation
        let cents = pitch + glide + Double(swing)
        // libfluidsynth turns cents into hertz by a table of whole cents: the pitch's
        // fraction is dropped; below 0 cents (8.18 Hz) it works the hertz out whole. (The
        // root pitch is whole cents too, so the whole cents' ratio comes from a table.)
        let ratio = cents >= 0 && cents < 1e15 ? Units.ratio(wholeCents: Int(cents) - Int(rootPitch), in: ratios) : exp2((cents - rootPitch) / 1_200)
        player.increment = SamplePlayer.fixedPoint(ratio * rateRatio)
    }

    /// The filter's cutoff where the modulation envelope and the modulation LFO put it now.
    private mutating func modulateCutoff() {
        let cutoffCents = cutoff + modLFOToCutoff * modulationLFO.value + modEnvToCutoff * modulationEnvelope.modulation
        filter.set(cutoff: Units.floor(cutoffCents), q: resonance)
    }

    /// Makes the tables voices read (interpolation, the curves, the modulator left out), so that
    /// no render thread is the first to ask. Control thread.
    static func prepareTables() {
        _ = (Interpolation.coefficients, ModulatorSources.concave, ModulatorSources.convex, ModulatorSources.velocityToFilter, Units.gains, Units.centsRatios)
    }

    /// libfluidsynth's pan law: a quarter sine over 1,002 steps from hard left to hard right.
    static func panGain(_ pan: Int32) -> Float {
        if pan <= -500 { return 0 }
        if pan >= 500 { return 1 }
        return Float(sin(Double(pan + 500) * Double.pi / 2 / 1_001))
    }

    /// How many of the next `frames` frames, the first at `place` in the synthesizer's
    /// block, its filter and mix run alike: all of them when nothing moves them (its gains
    /// steady, its cutoff unmodulated and not gliding), else up to the block's end or the
    /// end of a glide a controller started inside the block. Render thread only.
    func alike(frames: Int, place: Int) -> Int {
        if filter.gliding > 0 { return min(filter.gliding, frames, Units.controlBlock - place) }
        let steady = !sharedBlockPending && mixStep == .zero && mix == mixTarget && modLFOToCutoff == 0 && modEnvToCutoff == 0
        return steady ? frames : min(frames, Units.controlBlock - place)
    }

    /// The start of a stretch of frames at `place` in the synthesizer's control block: at the
    /// block's start (or the voice's first), the mix's ramp over it and the cutoff, from the
    /// modulation of its own block there (started now when it has played nothing ahead,
    /// `caughtUp`, and its block starts here). Render thread only.
    private mutating func startStretch(place: Int, caughtUp: Bool) {
        if caughtUp, blockPending { startBlock() }
        guard place == 0 || sharedBlockPending else { return }
        sharedBlockPending = false
        if mixTarget == mix {   // (what the ramp below gives, without its division)
            (mixStep, mixOrigin) = (.zero, mix)
        } else {
            mixStep = (mixTarget - mix) / Float(Units.controlBlock - place)
            mixOrigin = mix - mixStep * Float(place)
        }
        if modLFOToCutoff != 0 || modEnvToCutoff != 0 { modulateCutoff() }   // (else it stays where the generators put it)
    }

    /// Plays the rest of its own control block, up to `limit` frames, into `output`: its
    /// sample times the envelope's gain (`span` room for `SamplePlayer.spanCapacity` points;
    /// zeros while the envelope's delay lasts, when it has ended and past the sample's end),
    /// the block's envelopes, LFOs and pitch worked out at its start. Returns the frames it
    /// wrote and how many it played before it ended (fewer than it wrote, or none at all,
    /// once it has; nil while delayed).
    private mutating func playBlock(into output: UnsafeMutablePointer<Float>, limit: Int, span: UnsafeMutablePointer<Float>) -> (frames: Int, played: Int?) {
        if blockPending { startBlock() }
        guard !isFinished else { return (0, 0) }
        let count = min(Units.controlBlock - frameInBlock, limit)
        guard envelope.stage != .delay else {   // a delayed voice does not move through its sample yet
            output.update(repeating: 0, count: count)
            moveOn(count)
            return (count, nil)
        }
        let played = player.render(into: output, frames: count, table: coefficients, span: span, ramp: GainRamp(start: amplitude, step: step, frame: frameInBlock))
        if player.finished { isFinished = true } else { moveOn(count) }
        return (count, played)
    }

    /// Its lane of a `VoiceQuad` for a stretch of `stretch` frames at `place` in the
    /// synthesizer's block: the stretch started (`startStretch`), its blocks played
    /// (`playBlock`) into `buffer` until they cover the stretch, it ends or `limit` frames
    /// (the render call's rest) are played, `progress` moved on; then, when it is heard in
    /// the stretch, its filter and its gains for the mix put in `lane` of `filters`, and true.
    /// Render thread only.
    mutating func fill(_ buffer: UnsafeMutablePointer<Float>, progress p: UnsafeMutablePointer<LaneProgress>, stretch: Int, limit: Int, place: Int,
                       span: UnsafeMutablePointer<Float>, filters: inout LowPassFilter.Lanes, lane: Int) -> Bool {
        startStretch(place: place, caughtUp: p.pointee.filled == 0)
        while p.pointee.filled < stretch, p.pointee.ended == .max {
            let (written, played) = playBlock(into: buffer + p.pointee.filled, limit: limit - p.pointee.filled, span: span)
            if let played {
                p.pointee.heard = min(p.pointee.heard, p.pointee.filled)
                if played < written || written == 0 { p.pointee.ended = p.pointee.filled + played }
            }
            p.pointee.filled += written
        }
        if p.pointee.filled < stretch {   // ended: silence after it (a lane's frames are always numbers)
            (buffer + p.pointee.filled).update(repeating: 0, count: stretch - p.pointee.filled)
            p.pointee.filled = stretch
        }
        guard p.pointee.heard < stretch else { return false }
        filters.load(filter, lane: lane, gains: (mixOrigin, mixStep))
        p.pointee.end = min(p.pointee.ended, stretch)
        return true
    }

    /// The end of a stretch of `frames` frames that ends `place` frames after the start of
    /// the synthesizer's block it began in: its filter taken back from `lane` of `filters`
    /// when it ran (`filtered`), and its mix where the block's ramp took it. Render thread only.
    mutating func endStretch(frames: Int, place: Int, filters: LowPassFilter.Lanes, lane: Int, filtered: Bool) {
        if filtered { filters.store(lane: lane, into: &filter, frames: frames) }
        if place >= Units.controlBlock { mix = mixTarget }
    }

    /// Moves on `frames` frames through its own control block.
    private mutating func moveOn(_ frames: Int) {
        frameInBlock += frames
        if frameInBlock == Units.controlBlock {
            frameInBlock = 0
            blockPending = true
            elapsed += Units.controlBlock
            amplitude += step * Float(Units.controlBlock)
        }
    }

    /// The start of one of its own control blocks: the envelopes and the LFOs step, the pitch
    /// and the envelope's ramp for the block are worked out, and the voice ends when its
    /// envelope is done or it can no longer be heard.
    private mutating func startBlock() {
        blockPending = false
        envelope.step()
        modulationEnvelope.step()
        modulationLFO.step(elapsed: elapsed)
        vibratoLFO.step(elapsed: elapsed)
        let target = envelope.gain(attenuation: attenuation, tremolo: -modLFOToVolume * modulationLFO.value, gains: gains)
        modulatePitch(moved: glided)
        // The glide moves on after the block's pitch is set, as libfluidsynth's does
        // (measured: a block earlier ran 4 cents ahead of it all the way).
        glided = glide != 0
        if glided {
            glide += glideStep
            if (glideStep > 0) == (glide > 0) { (glide, glideStep) = (0, 0) }   // arrived
        }
        step = (target - amplitude) / Float(Units.controlBlock)
        if envelope.stage == .finished || (envelope.stage.rawValue >= Envelope.Stage.hold.rawValue && loudest * envelope.value < (player.hasLooped ? silentBelowInLoop : silentBelow)) {
            isFinished = true
        }
    }

    /// Glides from `fromKey`'s pitch to the note's over `milliseconds` (portamento, as
    /// libfluidsynth does it: in whole control blocks, a straight line in cents, the key's
    /// pitch scaled by the zone's scale tuning). Before the voice renders. Control or render thread.
    mutating func glide(fromKey: Int, milliseconds: Int, scaleTuning: Int32) {
        let blocks = Int(sampleRate * 0.001 * Double(milliseconds) / Double(Units.controlBlock) + 0.5)
        guard blocks > 0 else { return }
        glide = Double(scaleTuning) * Double(fromKey - key)
        glideStep = -glide / Double(blocks)
    }

    /// Cut by a note of its exclusive class: released over −200 timecents (0.9 s from full
    /// scale, as libfluidsynth does for hi-hats), and never cut again. Render thread only.
    mutating func cut() {
        exclusiveClass = 0
        envelope.setRelease(-200, sampleRate: sampleRate)
        modulationEnvelope.setRelease(-200, sampleRate: sampleRate)
        release()
    }

    /// Note-off: the envelope's release, and a sample that loops until release plays on. Render thread only.
    mutating func release() {
        envelope.release()
        modulationEnvelope.release()
        player.release()
    }
}
