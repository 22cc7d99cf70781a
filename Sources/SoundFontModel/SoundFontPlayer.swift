/// What both of Pianola's SoundFont synthesizers take, its own and libfluidsynth's, for code
/// that plays either alike (the preset conformance renders, the differential fuzz target).
/// Render thread only, as each synthesizer's messages are.
public protocol SoundFontPlayer {
    /// Starts `key` on `channel` at `velocity`. Render thread only.
    func noteOn(channel: Int, key: Int, velocity: Int)
    /// Releases `key` on `channel`. Render thread only.
    func noteOff(channel: Int, key: Int)
    /// Sets `controller` of `channel` to `value`. Render thread only.
    func controlChange(channel: Int, controller: Int, value: Int)
    /// Selects `program` on `channel`, in the bank its controllers chose. Render thread only.
    func programChange(channel: Int, program: Int)
    /// Moves `channel`'s pitch wheel to `value` (0...16383, 8192 centred). Render thread only.
    func pitchBend(channel: Int, value: Int)
    /// Writes the next `frames` frames into `left` and `right`. Render thread only.
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int)
    /// Resets every channel and silences every voice, as a GM System On does. Render thread only.
    func systemReset()
}
