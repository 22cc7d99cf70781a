/// What a MIDI channel's controllers are at, as a voice's modulators read them (section 8.2.1):
/// the 128 controllers, channel pressure, the pitch wheel and its sensitivity. Starts where
/// libfluidsynth's channels start (volume 100, pan and balance 64, expression 127 in both
/// bytes, the sound controllers 70-79 at 64, the wheel centred, two semitones of
/// sensitivity). Fixed storage, no heap: copied freely on the render thread.
package struct ChannelControllers: Sendable {
    private var low = SIMD64<UInt8>(repeating: 0)
    private var high = SIMD64<UInt8>(repeating: 0)
    /// Channel pressure, 0-127. Any thread.
    public var channelPressure: UInt8 = 0
    /// The pitch wheel, 0-16383 (8192 centred). Any thread.
    public var pitchWheel: UInt16 = 8_192
    /// The wheel's range in semitones (RPN 0). Any thread.
    public var wheelSensitivity: UInt8 = 2
    /// The channel's fine tuning (RPN 1), −100...+100 cents, and coarse tuning (RPN 2) in
    /// semitones. Any thread.
    public var fineTuning: Double = 0, coarseTuning: Int = 0
    /// The channel's tuning in cents. Any thread.
    public var tuning: Double { fineTuning + 100 * Double(coarseTuning) }

    /// A channel at its reset values. Any thread.
    public init() {
        self[7] = 100
        self[8] = 64
        self[10] = 64
        self[11] = 127
        self[43] = 127
        for controller in 70...79 { self[controller] = 64 }   // "no change", as pan's 64
        for parameter in 98...101 { self[parameter] = 127 }   // no parameter selected
    }

    /// Reset All Controllers (CC121) as libfluidsynth does it (RP-015): the controllers go back
    /// to their reset values but bank select, volume, balance, pan, the sound controllers
    /// (70-79) and the effect depths (91-95), which stay; the wheel is centred and the
    /// pressure 0; the wheel's range and the tunings stay. Any thread.
    public mutating func resetControllers() {
        var fresh = ChannelControllers()
        for controller in 0..<128 where Self.survivesReset(controller) { fresh[controller] = self[controller] }
        (fresh.wheelSensitivity, fresh.fineTuning, fresh.coarseTuning) = (wheelSensitivity, fineTuning, coarseTuning)
        self = fresh
    }

    /// Whether Reset All Controllers leaves `controller` as it is.
    private static func survivesReset(_ controller: Int) -> Bool {
        switch controller {
        case 0, 32, 7, 39, 8, 40, 10, 42, 70...79, 91...95: true
        default: false
        }
    }

    /// Controller `number`'s value, 0-127. Any thread.
    public subscript(number: Int) -> UInt8 {
        get { number < 64 ? low[number] : high[number - 64] }
        set { if number < 64 { low[number] = newValue } else { high[number - 64] = newValue } }
    }
}
