import DSP
import SoundFontModel

/// Pianola's own SoundFont synthesizer: sixteen MIDI channels playing a `SoundFont`'s presets
/// through a fixed pool of voices. Events take effect where they are given between render
/// calls, so a caller that renders up to each event's frame and then gives it puts every note
/// on its exact frame (each voice counts its control blocks from its own first frame). Made on
/// the control thread, which also reads every preset's regions; everything else is render
/// thread only and allocates nothing.
public final class SoundFontSynthesizer {
    /// A voice slot: the voice, and what it is playing.
    private struct Slot {
        var voice: Voice?
        var channel = 0, key = 0
        var preset = 0, region = 0   // where its region is in `regionsByPreset`
        var started = 0          // the note-on's serial number: the oldest is stolen first
        var released = false
        var sustained = false    // its key released while a pedal held it
        var sostenuto = false    // held by the sostenuto pedal (its key was down when the pedal went down)
    }

    /// A channel's program, controllers and pedal.
    private struct Channel {
        var bank = 0, program = 0
        var drums = false        // plays bank 128 (channel 10, or a GS rhythm part)
        var portamentoControl: Int?   // CC84: the key the next note glides from, once
        var preset: Int?         // index into `regionsByPreset`
        var controllers = ChannelControllers()
        /// The registered parameter data entry goes to (CC101 × 128 + CC100), 16383 for none.
        var parameter = 16_383
        /// The MTS tuning its notes play in (a slot of `tunings`), if any, and the tuning bank
        /// RPN 4 chose for RPN 3's program.
        var keyTuning: Int?
        var tuningBank = 0
        /// Mono mode (CC126 on its basic channel sets it, CC127 clears it): one note at a
        /// time, a key pressed while another is down played legato.
        var mono = false
        /// Omni off (CC124; CC125 is omni on), as its basic channel's mode says.
        var omniOff = false
        /// A basic channel's group: the channels from it its mode messages set (0: not a basic channel).
        var basicGroup = 0
        /// In a basic channel's group: a channel in none plays no new note, as in libfluidsynth.
        var enabled = true
        /// The keys held while playing mono.
        var held = MonoKeys()
        /// A mono note let go while a pedal held it: released when the next staccato note starts.
        var monoSustained: Int?
        /// Whether notes play one at a time now: mono mode, or the legato pedal (CC68) down.
        var playsMono: Bool { mono || controllers[68] >= 64 }
    }

    private let font: SoundFont
    private let sampleRate: Double
    private let gain: Float
    /// Every preset's regions, read once: a note-on only picks the ones its key and velocity fall in.
    private let regionsByPreset: [[Region]]
    private let presetIndex: [Int: Int]      // bank << 8 | program → preset
    private var channels: [Channel]
    private let slots: UnsafeMutablePointer<Slot>
    private let polyphony: Int
    private var serial = 0
    /// The presets whose sample pages `touchSamples` has read. Control thread.
    private var touched = Set<Int>()
    /// What `touchSamples` read, kept so that the reads are not optimized away.
    private var touchedSum = 0
    private let scratch: UnsafeMutablePointer<Float>
    private let tunings = KeyTunings()
    /// The reverb and the chorus the voices' sends feed (one each for the whole synthesizer,
    /// as a General MIDI player has; nil when off), and the sends' mono buffers (an effect
    /// that is off has its send added up and dropped).
    private let reverb: Reverb?, chorus: Chorus?
    private let reverbSend: UnsafeMutablePointer<Float>, chorusSend: UnsafeMutablePointer<Float>
    private static let sendCapacity = 1_024

    /// A synthesizer of `font` at `sampleRate` with `polyphony` voices and output `gain`
    /// (libfluidsynth's default 0.2), a reverb with `reverb`'s settings for the notes'
    /// reverb sends (CC91 and generator 16) and a chorus with `chorus`'s for their chorus
    /// sends (CC93 and generator 15), or none. Channel 10 plays bank 128 (percussion).
    /// Control thread.
    public init(font: SoundFont, sampleRate: Double, polyphony: Int = 256, gain: Float = 0.2,
                reverb: Reverb.Settings? = nil, chorus: Chorus.Settings? = nil) {
        Voice.prepareTables()
        self.font = font
        self.sampleRate = sampleRate
        self.gain = gain
        self.polyphony = max(1, polyphony)
        regionsByPreset = font.presets.map { font.allRegions(of: $0) }
        var index: [Int: Int] = [:]
        for (i, preset) in font.presets.enumerated() where index[Int(preset.bank) << 8 | Int(preset.program)] == nil {
            index[Int(preset.bank) << 8 | Int(preset.program)] = i
        }
        presetIndex = index
        channels = Self.freshChannels()
        slots = .allocate(capacity: self.polyphony)
        slots.initialize(repeating: Slot(), count: self.polyphony)
        scratch = .allocate(capacity: Units.controlBlock)
        self.reverb = reverb.map { Reverb(sampleRate: sampleRate, settings: $0) }
        self.chorus = chorus.map { Chorus(sampleRate: sampleRate, settings: $0) }
        reverbSend = .allocate(capacity: Self.sendCapacity)
        chorusSend = .allocate(capacity: Self.sendCapacity)
        for channel in 0..<16 { select(channel) }
        warmUp()
    }

    /// Sixteen channels as a reset leaves them: channel 10 the drums, channel 1 the basic
    /// channel of all sixteen in omni-on poly mode, as libfluidsynth starts.
    private static func freshChannels() -> [Channel] {
        (0..<16).map { var channel = Channel(drums: $0 == 9); channel.basicGroup = $0 == 0 ? 16 : 0; return channel }
    }

    /// Renders one block of a voice (and of the effects) into a throw-away buffer and takes
    /// a tuning message of each kind that changes nothing (tuning 0 of bank 0 in equal
    /// temperament, for no channel), here on the control thread, so that whatever the Swift
    /// runtime does the first time (type metadata for the SIMD arithmetic, in a debug build)
    /// is not done on the render thread.
    private func warmUp() {
        let left = UnsafeMutablePointer<Float>.allocate(capacity: Units.controlBlock), right = UnsafeMutablePointer<Float>.allocate(capacity: Units.controlBlock)
        defer { left.deallocate(); right.deallocate() }
        left.initialize(repeating: 0, count: Units.controlBlock)
        right.initialize(repeating: 0, count: Units.controlBlock)
        reverbSend.initialize(repeating: 0, count: Units.controlBlock)
        chorusSend.initialize(repeating: 0, count: Units.controlBlock)
        let sends = reverb == nil && chorus == nil ? nil : (reverb: reverbSend, chorus: chorusSend)
        if let preset = regionsByPreset.firstIndex(where: { !$0.isEmpty }), let region = regionsByPreset[preset].first,
           var voice = Voice(region: region, font: font, key: Int(region.keyRange.lowerBound), velocity: 64, sampleRate: sampleRate, gain: 0) {
            voice.render(left: left, right: right, sends: sends, frames: Units.controlBlock, scratch: scratch)
            voice.release()
            voice.render(left: left, right: right, sends: sends, frames: Units.controlBlock, scratch: scratch)
        }
        if let reverb {
            reverb.process(reverbSend, addingTo: left, right, frames: Units.controlBlock)
            reverb.clear()
        }
        if let chorus {
            chorus.process(chorusSend, addingTo: left, right, frames: Units.controlBlock)
            chorus.clear()
        }
        let octave: [UInt8] = [0x7F, 0x7F, 0x08, 0x08, 0x00, 0x00, 0x00] + Array(repeating: 0x40, count: 12)
        let note: [UInt8] = [0x7F, 0x7F, 0x08, 0x02, 0x00, 0x01, 0x00, 0x7F, 0x7F, 0x7F]
        for message in [octave, note] { message.withUnsafeBufferPointer { _ = systemExclusive($0) } }
    }

    deinit {
        slots.deinitialize(count: polyphony)
        slots.deallocate()
        scratch.deallocate()
        tunings.deallocate()
        reverbSend.deallocate()
        chorusSend.deallocate()
    }

    /// Reads a byte of every page of the samples the channel's preset plays, so that the
    /// render thread never waits for the font file when it starts one of its notes (the
    /// samples are mapped from the file, read as they are first touched). Control thread,
    /// before rendering.
    public func touchSamples(ofChannel channel: Int) {
        guard (0..<16).contains(channel), let preset = channels[channel].preset, touched.insert(preset).inserted else { return }
        let page = 4_096 / MemoryLayout<Int16>.size
        for region in regionsByPreset[preset] {
            let data = font.data(of: font.samples[region.sample])
            for i in stride(from: 0, to: data.count, by: page) { touchedSum &+= Int(data[i]) }
            if let last = data.last { touchedSum &+= Int(last) }
        }
    }

    /// How many voices sound. Render thread only.
    public var activeVoices: Int { (0..<polyphony).reduce(0) { $0 + (slots[$1].voice == nil ? 0 : 1) } }

    /// Points `channel` at the preset its bank and program name: bank 128 on a drum channel; a
    /// program the bank lacks falls back to bank 0's (or 128's program 0 for drums), as
    /// libfluidsynth does.
    private func select(_ channel: Int) {
        let bank = channels[channel].drums ? 128 : channels[channel].bank
        let program = channels[channel].program
        channels[channel].preset = presetIndex[bank << 8 | program]
            ?? presetIndex[(bank == 128 ? 128 : 0) << 8 | (bank == 128 ? 0 : program)]
    }

    /// Starts `key` at `velocity` on `channel` (velocity 0 is a note-off). Playing mono, a
    /// key pressed while another is down takes the sounding note's voices over legato
    /// (libfluidsynth's default, multi-retrigger). Render thread only.
    public func noteOn(channel: Int, key: Int, velocity: Int) {
        guard (0..<16).contains(channel), (0..<128).contains(key) else { return }
        guard velocity > 0 else { noteOff(channel: channel, key: key); return }
        guard channels[channel].preset != nil, channels[channel].enabled else { return }
        let velocity = min(velocity, 127)
        guard channels[channel].playsMono else { start(channel: channel, key: key, velocity: velocity); return }
        let sounding = channels[channel].held.last
        channels[channel].held.press(key, velocity: velocity)
        if let sounding, sounding.key != key {
            legato(channel: channel, from: sounding.key, to: key, velocity: velocity)
            return
        }
        // Staccato: a mono note a pedal still holds gives way first.
        if let sustained = channels[channel].monoSustained {
            releaseVoices(channel: channel, key: sustained)
            channels[channel].monoSustained = nil
        }
        start(channel: channel, key: key, velocity: velocity)
    }

    /// Starts voices for `key` on `channel` in the regions of its preset that `key` and
    /// `velocity` fall in, but those `skipping` (regions whose voice a legato took over).
    /// A note on its own first releases the same key still sounding, as libfluidsynth does;
    /// a `legato` note does not, and glides as its legato said.
    private func start(channel: Int, key: Int, velocity: Int, skipping: SIMD16<Int32> = SIMD16(repeating: -1),
                       legato: (glideFrom: Int?, milliseconds: Int)? = nil) {
        guard let preset = channels[channel].preset else { return }
        if legato == nil { releaseVoices(channel: channel, key: key) }
        serial += 1
        let (glideFrom, glideTime) = legato ?? glideStart(channel: channel, legatoFrom: nil)
        let regions = regionsByPreset[preset]
        let tuning = keyTuning(of: channel)
        let zoneKey = zoneKey(key, tuning: tuning)
        for index in 0..<regions.count {   // by index: a debug build's array iterator allocates
            let region = regions[index]
            guard region.keyRange.contains(UInt8(zoneKey)), region.velocityRange.contains(UInt8(velocity)),
                  !any(skipping .== SIMD16(repeating: Int32(index))) else { continue }
            guard var voice = Voice(region: region, font: font, key: key, velocity: velocity, controllers: channels[channel].controllers,
                                    tuning: tuning, sampleRate: sampleRate, gain: gain) else { continue }
            if let glideFrom { voice.glide(fromKey: glideFrom, milliseconds: glideTime, scaleTuning: region[.scaleTuning]) }
            if voice.exclusiveClass != 0 { cutExclusiveClass(voice.exclusiveClass, channel: channel) }
            let slot = freeSlot()
            slots[slot] = Slot(voice: voice, channel: channel, key: key, preset: preset, region: index, started: serial)
        }
    }

    /// The key a new note glides from and over how many milliseconds (CC5 × 128 + CC37), as
    /// libfluidsynth plays portamento: from CC84's key once it is sent, else, with the
    /// portamento switch (CC65) on, from the note a legato note follows (libfluidsynth's
    /// default mode glides only between legato notes: measured, the switch does nothing to
    /// notes played one after another).
    private func glideStart(channel: Int, legatoFrom: Int?) -> (key: Int?, milliseconds: Int) {
        let control = channels[channel].portamentoControl
        channels[channel].portamentoControl = nil
        let milliseconds = Int(channels[channel].controllers[5]) * 128 + Int(channels[channel].controllers[37])
        return (control ?? (channels[channel].controllers[65] >= 64 ? legatoFrom : nil), milliseconds)
    }

    /// The key whose zones a note plays: in an MTS tuning the key nearest the tuned pitch
    /// (measured: libfluidsynth plays a D tuned 62 cents sharp with the zone of D#), else its own.
    private func zoneKey(_ key: Int, tuning: UnsafePointer<Double>?) -> Int {
        tuning.map { min(max(Int(($0[key] / 100).rounded()), 0), 127) } ?? key
    }

    /// `to` played legato after `from` on `channel`: each voice of `from` whose region also
    /// takes `to` and `velocity` goes on as `to` (Voice.legato), the others are released, and
    /// the regions of `to` no voice went on in start new voices, as libfluidsynth's
    /// multi-retrigger legato does.
    private func legato(channel: Int, from: Int, to: Int, velocity: Int) {
        let tuning = keyTuning(of: channel)
        let zoneKey = zoneKey(to, tuning: tuning)
        let (glideFrom, glideTime) = glideStart(channel: channel, legatoFrom: from)
        var kept = SIMD16<Int32>(repeating: -1), keptCount = 0
        for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel && slots[i].key == from && !slots[i].released {
            let region = regionsByPreset[slots[i].preset][slots[i].region]
            guard slots[i].preset == channels[channel].preset, region.keyRange.contains(UInt8(zoneKey)), region.velocityRange.contains(UInt8(velocity)) else {
                slots[i].voice!.release()
                slots[i].released = true
                continue
            }
            slots[i].voice!.legato(toKey: to, velocity: velocity, region: region, tuning: tuning, controllers: channels[channel].controllers)
            if let glideFrom { slots[i].voice!.glide(fromKey: glideFrom, milliseconds: glideTime, scaleTuning: region[.scaleTuning]) }
            slots[i].key = to
            if keptCount < 16 {
                kept[keptCount] = Int32(slots[i].region)
                keptCount += 1
            }
        }
        start(channel: channel, key: to, velocity: velocity, skipping: kept, legato: (glideFrom, glideTime))
    }

    /// Cuts the voices of `channel` in `exclusiveClass` that earlier note-ons started (a
    /// closed hi-hat cuts the open one), as libfluidsynth does.
    private func cutExclusiveClass(_ exclusiveClass: Int32, channel: Int) {
        for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel && slots[i].started != serial
            && slots[i].voice!.exclusiveClass == exclusiveClass {
            slots[i].voice!.cut()
            slots[i].released = true
        }
    }

    /// A free slot, or the one to steal: the oldest released voice, else the oldest.
    private func freeSlot() -> Int {
        var oldest = 0, oldestReleased = -1
        for i in 0..<polyphony {
            guard slots[i].voice != nil else { return i }
            if slots[i].started < slots[oldest].started { oldest = i }
            if slots[i].released, oldestReleased < 0 || slots[i].started < slots[oldestReleased].started { oldestReleased = i }
        }
        return oldestReleased >= 0 ? oldestReleased : oldest
    }

    /// Releases `key` on `channel`, or holds it while the sustain pedal is down or the
    /// sostenuto pedal caught it. Playing mono, letting go of the sounding key while others
    /// are down goes back legato to the one pressed before it; a key down but not sounding
    /// just leaves the list. Render thread only.
    public func noteOff(channel: Int, key: Int) {
        guard (0..<16).contains(channel) else { return }
        let (held, wasSounding) = channels[channel].held.release(key)
        if held {
            if let back = channels[channel].held.last {
                if wasSounding { legato(channel: channel, from: key, to: back.key, velocity: back.velocity) }
                return
            }
            if release(channel: channel, key: key) { channels[channel].monoSustained = key }
            return
        }
        _ = release(channel: channel, key: key)
    }

    /// Releases `key`'s voices on `channel`, or marks them held by the pedals; whether a pedal holds any.
    private func release(channel: Int, key: Int) -> Bool {
        let pedal = channels[channel].controllers[64] >= 64
        var holding = false
        for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel && slots[i].key == key && !slots[i].released {
            if pedal || slots[i].sostenuto {
                slots[i].sustained = true
                holding = true
            } else {
                slots[i].voice!.release()
                slots[i].released = true
            }
        }
        return holding
    }

    private func releaseVoices(channel: Int, key: Int) {
        for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel && slots[i].key == key && !slots[i].released {
            slots[i].voice!.release()
            slots[i].released = true
        }
    }

    /// Releases the notes of `channel` whose keys are up and that no pedal holds any longer.
    private func releaseSustained(channel: Int) {
        guard channels[channel].controllers[64] < 64 else { return }
        for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel && slots[i].sustained && !slots[i].sostenuto {
            slots[i].voice!.release()
            slots[i].released = true
            slots[i].sustained = false
        }
    }

    /// A mode message (omni off/on 124/125, mono/poly 126/127) to `basic`, taken as
    /// libfluidsynth takes it: only on a basic channel, whose group it sets anew: `value`
    /// channels from it (0: up to the next basic channel), one in omni-off poly mode; the
    /// channels of its old group outside the new one play no new notes. Sounding notes go
    /// on, and the keys held mono are let go as a polyphonic channel's.
    private func setMode(basicChannel basic: Int, message: Int, value: Int) {
        guard channels[basic].basicGroup > 0 else { return }
        var (omniOff, mono) = (channels[basic].omniOff, channels[basic].mono)
        switch message {
        case 124: omniOff = true
        case 125: omniOff = false
        case 126: mono = true
        default: mono = false
        }
        var next = basic + 1
        while next < 16 && channels[next].basicGroup == 0 { next += 1 }
        let size = omniOff && !mono ? 1 : value == 0 ? next - basic : value
        guard basic + size <= next else { return }   // a group reaching into the next one is refused
        for channel in basic..<(basic + channels[basic].basicGroup) {
            (channels[channel].enabled, channels[channel].mono, channels[channel].omniOff) = (false, false, false)
            forgetMonoKeys(channel)
        }
        for channel in basic..<(basic + size) { (channels[channel].enabled, channels[channel].mono, channels[channel].omniOff) = (true, mono, omniOff) }
        channels[basic].basicGroup = size
    }

    /// Forgets the keys `channel` held playing mono (their voices are released as a
    /// polyphonic channel's are).
    private func forgetMonoKeys(_ channel: Int) {
        channels[channel].held.removeAll()
        channels[channel].monoSustained = nil
    }

    /// The pitches of the channel's MTS tuning, nil for none.
    private func keyTuning(of channel: Int) -> UnsafePointer<Double>? {
        channels[channel].keyTuning.map { UnsafePointer(tunings.pitches(of: $0)) }
    }

    /// Puts the sounding voices of the channels that play MTS tuning `slot` in it again.
    private func retuneVoices(playing slot: Int) {
        for i in 0..<polyphony where slots[i].voice != nil && channels[slots[i].channel].keyTuning == slot {
            slots[i].voice!.retune(keyTuning(of: slots[i].channel), region: regionsByPreset[slots[i].preset][slots[i].region],
                                   controllers: channels[slots[i].channel].controllers)
        }
    }

    /// Works out again every sounding voice of `channel` from its controllers now (the
    /// modulators, the wheel), as libfluidsynth does on every controller change.
    private func updateVoices(channel: Int) {
        let controllers = channels[channel].controllers
        for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel {
            slots[i].voice!.update(regionsByPreset[slots[i].preset][slots[i].region], controllers: controllers)
        }
    }

    /// Sets controller `controller` of `channel`: bank select (0), the sustain pedal (64),
    /// portamento (the time 5 and 37, the control 84),
    /// the sostenuto pedal (66), all sound off (120), reset all controllers (121), all notes
    /// off (123), the mode messages (124-127, on a basic channel; the legato pedal, 68, plays
    /// mono while down),
    /// registered parameters 0-2 (the wheel's range in semitones, fine and coarse
    /// tuning, by CC101/100 and data entry CC6, its LSB CC38 sent first). Every controller
    /// reaches the modulators of the notes sounding and of those that start after. Render
    /// thread only.
    public func controlChange(channel: Int, controller: Int, value: Int) {
        guard (0..<16).contains(channel), (0..<128).contains(controller) else { return }
        let value = UInt8(min(max(value, 0), 127))
        switch controller {
        case 0:
            channels[channel].bank = Int(value)
            channels[channel].controllers[0] = value
        case 64:
            channels[channel].controllers[64] = value
            if value < 64 { releaseSustained(channel: channel) }
        case 66:
            let wasDown = channels[channel].controllers[66] >= 64
            channels[channel].controllers[66] = value
            if value >= 64 && !wasDown {
                for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel && !slots[i].released && !slots[i].sustained {
                    slots[i].sostenuto = true
                }
            } else if value < 64 && wasDown {
                for i in 0..<polyphony where slots[i].channel == channel { slots[i].sostenuto = false }
                releaseSustained(channel: channel)
            }
        case 120:
            for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel { slots[i] = Slot() }
            forgetMonoKeys(channel)
        case 121:
            channels[channel].controllers.resetControllers()
            channels[channel].parameter = 16_383
            for i in 0..<polyphony where slots[i].channel == channel { slots[i].sostenuto = false }
            releaseSustained(channel: channel)
            updateVoices(channel: channel)
        case 100, 101:
            channels[channel].controllers[controller] = value
            channels[channel].parameter = Int(channels[channel].controllers[101]) << 7 | Int(channels[channel].controllers[100])
        case 84:
            channels[channel].controllers[84] = value
            channels[channel].portamentoControl = Int(value)
        case 98, 99:   // a non-registered parameter: data entry no longer goes to a registered one
            channels[channel].controllers[controller] = value
            channels[channel].parameter = 16_383
        case 6:
            channels[channel].controllers[6] = value
            let data = Int(value) << 7 | Int(channels[channel].controllers[38])   // LSB first, as libfluidsynth reads it
            switch channels[channel].parameter {
            case 0: channels[channel].controllers.wheelSensitivity = value
            case 1: channels[channel].controllers.fineTuning = Double(data - 8_192) / 8_192 * 100
            case 2: channels[channel].controllers.coarseTuning = Int(value) - 64
            case 3:   // MTS tuning program, in the bank RPN 4 chose: made in equal temperament if missing, as libfluidsynth does
                channels[channel].keyTuning = tunings.slot(bank: channels[channel].tuningBank, program: Int(value))
                if let slot = channels[channel].keyTuning { retuneVoices(playing: slot) }
                return
            case 4:
                channels[channel].tuningBank = Int(value)
                return
            default: return
            }
            updateVoices(channel: channel)
        case 123:
            for i in 0..<polyphony where slots[i].voice != nil && slots[i].channel == channel && !slots[i].released {
                slots[i].voice!.release()
                slots[i].released = true
            }
            forgetMonoKeys(channel)
        case 124...127:
            channels[channel].controllers[controller] = value
            setMode(basicChannel: channel, message: controller, value: Int(value))
        default:
            channels[channel].controllers[controller] = value
            updateVoices(channel: channel)
        }
    }

    /// The channel's program, 0-127. Render thread only.
    public func program(of channel: Int) -> Int { channels[channel].program }

    /// The channel's bank select as sent, CC0 × 128 + CC32. Render thread only.
    public func bankSelect(of channel: Int) -> Int { Int(channels[channel].controllers[0]) << 7 | Int(channels[channel].controllers[32]) }

    /// A General MIDI, GS or XG reset: every sound stops, every channel goes back to
    /// program 0 of bank 0 (channel 10 to the drums) with its controllers at their reset
    /// values, as libfluidsynth's system reset does. Render thread only.
    public func systemReset() {
        for i in 0..<polyphony { slots[i] = Slot() }
        reverb?.clear()
        chorus?.clear()
        channels = Self.freshChannels()   // sixteen channels were there: the storage is reused
        for channel in 0..<16 { select(channel) }
    }

    /// Acts on a system-exclusive message (bytes without F0/F7) if it is one `SystemExclusive`
    /// names, and says whether it was. Render thread only.
    @discardableResult
    public func systemExclusive(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        switch SystemExclusive(data) {
        case .reset?: systemReset()
        case .rhythmPart(let channel, let drums)?:
            channels[channel].drums = drums
            select(channel)
        case .octaveTuning(let flagged, let cents, let realtime)?:
            // libfluidsynth's way: tuning 0 of bank 0 becomes the octave tuning, and the flagged channels play it.
            guard let slot = tunings.slot(bank: 0, program: 0) else { return true }
            let pitches = tunings.pitches(of: slot)
            for key in 0..<128 { pitches[key] = Double(key * 100) + cents[key % 12] }
            for channel in 0..<16 where flagged & (1 << channel) != 0 { channels[channel].keyTuning = slot }
            if realtime { retuneVoices(playing: slot) }
        case .noteTuning(let bank, let program, let changes, let realtime)?:
            guard let slot = tunings.slot(bank: bank, program: program) else { return true }
            let pitches = tunings.pitches(of: slot)
            for at in stride(from: changes.lowerBound, to: changes.upperBound, by: 4) {
                let semitone = Int(data[at + 1]), fraction = Int(data[at + 2]) << 7 | Int(data[at + 3])
                guard semitone != 0x7F || fraction != 16_383 else { continue }   // "no change"
                pitches[Int(data[at])] = Double(semitone) * 100 + Double(fraction) * 100 / 16_384
            }
            if realtime { retuneVoices(playing: slot) }
        case nil: return false
        }
        return true
    }

    /// Selects `program` of the channel's bank. Render thread only.
    public func programChange(channel: Int, program: Int) {
        guard (0..<16).contains(channel) else { return }
        channels[channel].program = min(max(program, 0), 127)
        select(channel)
    }

    /// Moves the pitch wheel of `channel` (0-16383, 8192 centred); the notes sounding and
    /// those that start after follow it. Render thread only.
    public func pitchBend(channel: Int, value: Int) {
        guard (0..<16).contains(channel) else { return }
        channels[channel].controllers.pitchWheel = UInt16(min(max(value, 0), 16_383))
        updateVoices(channel: channel)
    }

    /// Sets the channel's pressure (aftertouch, 0-127), which the notes' modulators read. Render thread only.
    public func channelPressure(channel: Int, value: Int) {
        guard (0..<16).contains(channel) else { return }
        channels[channel].controllers.channelPressure = UInt8(min(max(value, 0), 127))
        updateVoices(channel: channel)
    }

    /// Writes `frames` frames of every sounding voice into `left` and `right`, with the
    /// reverb and the chorus of their sends where they are on. Render thread only.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        guard reverb != nil || chorus != nil else {
            renderVoices(left: left, right: right, sends: nil, frames: frames)
            return
        }
        var done = 0
        while done < frames {
            let count = min(frames - done, Self.sendCapacity)
            reverbSend.update(repeating: 0, count: count)
            chorusSend.update(repeating: 0, count: count)
            renderVoices(left: left + done, right: right + done, sends: (reverbSend, chorusSend), frames: count)
            reverb?.process(reverbSend, addingTo: left + done, right + done, frames: count)
            chorus?.process(chorusSend, addingTo: left + done, right + done, frames: count)
            done += count
        }
    }

    /// Adds `frames` frames of every sounding voice to `left` and `right` (and their effect
    /// sends to `sends`), freeing the slots of the voices that end.
    private func renderVoices(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                              sends: (reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>)?, frames: Int) {
        for i in 0..<polyphony where slots[i].voice != nil {
            slots[i].voice!.render(left: left, right: right, sends: sends, frames: frames, scratch: scratch)
            if slots[i].voice!.isFinished { slots[i] = Slot() }
        }
    }
}
