import SoundFontModel

/// A voice slot of a `SoundFontSynthesizer`: the voice, and what it is playing.
struct VoiceSlot {
    var voice: Voice?
    var channel = 0, key = 0
    var preset = 0, region = 0   // where its region is in `regionsByPreset`
    var started = 0          // the note-on's serial number: the oldest is stolen first
    var released = false
    var sustained = false    // its key released while a pedal held it
    var sostenuto = false    // held by the sostenuto pedal (its key was down when the pedal went down)
}

/// A `SoundFontSynthesizer` channel's program, controllers, pedals, tuning and mode.
struct SynthChannel {
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
