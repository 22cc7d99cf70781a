import SoundFontModel

// The channel messages besides notes: controllers and the modes, programs, the wheel and
// pressure, tuning and resets.
extension SoundFontSynthesizer {
    /// A mode message (omni off/on 124/125, mono/poly 126/127) to `basic`, taken as
    /// libfluidsynth takes it: only on a basic channel, whose group it sets anew: `value`
    /// channels from it (0: up to the next basic channel), one in omni-off poly mode; the
    /// channels of its old group outside the new one play no new notes. Sounding notes go
    /// on, and the keys held mono are let go as a polyphonic channel's.
    func setMode(basicChannel basic: Int, message: Int, value: Int) {
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
    func forgetMonoKeys(_ channel: Int) {
        channels[channel].held.removeAll()
        channels[channel].monoSustained = nil
    }

    /// The pitches of the channel's MTS tuning, nil for none.
    func keyTuning(of channel: Int) -> UnsafePointer<Double>? {
        channels[channel].keyTuning.map { UnsafePointer(tunings.pitches(of: $0)) }
    }

    /// Puts the sounding voices of the channels that play MTS tuning `slot` in it again.
    func retuneVoices(playing slot: Int) {
        for i in 0..<slotsInUse where slots[i].voice != nil && channels[slots[i].channel].keyTuning == slot {
            slots[i].voice!.retune(keyTuning(of: slots[i].channel), region: regionsByPreset[slots[i].preset][slots[i].region],
                                   controllers: channels[slots[i].channel].controllers)
        }
    }

    /// Works out again every sounding voice of `channel` from its controllers now (the
    /// modulators, the wheel), as libfluidsynth does on every controller change.
    func updateVoices(channel: Int) {
        let controllers = channels[channel].controllers
        for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel {
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
                for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel && !slots[i].released && !slots[i].sustained {
                    slots[i].sostenuto = true
                }
            } else if value < 64 && wasDown {
                for i in 0..<slotsInUse where slots[i].channel == channel { slots[i].sostenuto = false }
                releaseSustained(channel: channel)
            }
        case 120:
            for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel { slots[i] = VoiceSlot() }
            forgetMonoKeys(channel)
        case 121:
            channels[channel].controllers.resetControllers()
            channels[channel].parameter = 16_383
            for i in 0..<slotsInUse where slots[i].channel == channel { slots[i].sostenuto = false }
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
            for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel && !slots[i].released {
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
        for i in 0..<slotsInUse { slots[i] = VoiceSlot() }
        slotsInUse = 0
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
}

extension SoundFontSynthesizer: SoundFontPlayer {}
