import Engine
import FluidSynth
import MIDI

extension FluidSynthesizer {
    /// Loads, off the render thread, every preset that `messages` (a song's events, in time
    /// order) can select, and pins it, so that with lazy sample loading the render thread
    /// never reads the font. The messages' program changes, bank selects and system exclusives
    /// (GM, GS and XG resets, drum-part changes) run through the synthesizer itself, so
    /// libfluidsynth's own bank rules and fallbacks choose exactly what the render will; a
    /// channel's power-on preset is kept only if the channel plays a note before changing it.
    /// The synthesizer is left as the song sets itself up before its first note, so that
    /// setup selects nothing new. (Leaving channels that never play with no preset at all,
    /// through `fluid_synth_unset_program`, crashed libfluidsynth 2.3.1 in the game API's
    /// stress test, 7 runs in 12.) Control thread, before the synthesizer renders.
    public func preloadPresets(selectedBy messages: some Swift.Sequence<MIDIMessage>) {
        let channels = configuration.channels
        var played = [Bool](repeating: false, count: channels)
        var setup: [MIDIMessage] = []        // what comes before the first note
        for message in messages {
            let beforeFirstNote = !played.contains(true)
            switch message {
            case .programChange(let channel, _) where Int(channel) < channels:
                apply(message)
                pinChannelPreset(channel: Int(channel))
                if beforeFirstNote { setup.append(message) }
            case .controlChange(_, let controller, _) where controller == 0 || controller == 32:
                apply(message)
                if beforeFirstNote { setup.append(message) }
            case .sysex:
                apply(message)
                for channel in 0..<channels { pinChannelPreset(channel: channel) }
                if beforeFirstNote { setup.append(message) }
            case .noteOn(let channel, _, let velocity) where velocity > 0 && Int(channel) < channels && !played[Int(channel)]:
                pinChannelPreset(channel: Int(channel))
                played[Int(channel)] = true
            default:
                break
            }
        }
        systemReset()
        setup.forEach(apply)
        for channel in 0..<channels { pinChannelPreset(channel: channel) }
    }

    /// Sends a program change, bank select or system exclusive to the synthesizer.
    private func apply(_ message: MIDIMessage) {
        switch message {
        case .programChange(let channel, let program): programChange(channel: Int(channel), program: Int(program))
        case .controlChange(let channel, let controller, let value): controlChange(channel: Int(channel), controller: Int(controller), value: Int(value))
        case .sysex(let bytes):
            let body = bytes.last == 0xF7 ? bytes.dropLast() : bytes[...]
            body.withUnsafeBufferPointer { systemExclusive($0) }
        default: break
        }
    }
}
