import FluidSynth
import MIDI

extension Synthesizer {
    /// Loads, off the render thread, every preset that `messages` (a song's events, in time
    /// order) can select, and pins it: the messages' program changes, bank selects and system
    /// exclusives (GM, GS and XG resets, drum-part changes) are run through the synthesizer
    /// itself, pinning each channel's preset as it changes, so libfluidsynth's own bank rules
    /// and fallbacks choose exactly what the render will. Then the synthesizer is reset to its
    /// power-on state. With lazy sample loading, the render thread then never reads the font.
    /// Control thread, before the synthesizer renders.
    public func preloadPresets(selectedBy messages: some Swift.Sequence<MIDIMessage>) {
        for channel in 0..<configuration.channels { pinChannelPreset(channel: channel) }
        for message in messages {
            switch message {
            case .programChange(let channel, let program):
                programChange(channel: Int(channel), program: Int(program))
                pinChannelPreset(channel: Int(channel))
            case .controlChange(let channel, let controller, let value) where controller == 0 || controller == 32:
                controlChange(channel: Int(channel), controller: Int(controller), value: Int(value))
            case .sysex(let bytes):
                let body = bytes.last == 0xF7 ? bytes.dropLast() : bytes[...]
                body.withUnsafeBufferPointer { systemExclusive($0) }
                for channel in 0..<configuration.channels { pinChannelPreset(channel: channel) }
            default:
                break
            }
        }
        systemReset()
    }
}
