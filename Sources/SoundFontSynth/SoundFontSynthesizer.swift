import DSP
import SoundFontModel

/// Pianola's own SoundFont synthesizer: sixteen MIDI channels playing a `SoundFont`'s presets
/// through a fixed pool of voices. Events take effect where they are given between render
/// calls, so a caller that renders up to each event's frame and then gives it puts every note
/// on its exact frame (each voice counts its own control blocks from its own first frame; its
/// mix and cutoff move on the synthesizer's blocks, which all voices share). Made on
/// the control thread, which also reads the presets' regions (all of them at the start, or
/// each as a song's preload selects it); everything else is render thread only and allocates
/// nothing.
public final class SoundFontSynthesizer {
    let font: SoundFont
    let sampleRate: Double
    /// The filters' `CutoffTable` for the rate.
    let cutoffs: UnsafePointer<SIMD2<Double>>
    private let gain: Float
    /// Each preset's regions, read once (empty until read): a note-on only picks the ones its
    /// key and velocity fall in.
    private(set) var regionsByPreset: [[Region]]
    /// Which presets' regions have been read.
    private var presetsRead: [Bool]
    private let presetIndex: [Int: Int]      // bank << 8 | program → preset
    var channels: [SynthChannel]
    let slots: UnsafeMutablePointer<VoiceSlot>
    let polyphony: Int
    /// Every slot from this one on is free, so the scans for a channel's or a key's voices
    /// stop here; it grows as voices start and shrinks after each pass. Render thread only.
    var slotsInUse = 0
    private var serial = 0
    /// Frames rendered so far, modulo a control block: where the synthesizer is in its
    /// control blocks, on which every voice's mix and cutoff move. Render thread only.
    private var framesRendered = 0
    /// The samples whose pages `touchSamples` has read. Control thread.
    private var touched = Set<Int>()
    /// Each sample's `Voice.loopPeak`, worked out as `touchSamples` reads it (0 until then: a
    /// voice of it ends as libfluidsynth's would without). Written before rendering.
    private let loopPeaks: UnsafeMutablePointer<Int>
    /// What `touchSamples` read, kept so that the reads are not optimized away.
    private var touchedSum = 0
    /// The voices, rendered in groups on one thread or several.
    private let voices: VoiceGroups
    let tunings = KeyTunings()
    /// The reverb and the chorus the voices' sends feed (one each for the whole synthesizer,
    /// as a General MIDI player has; nil when off), and the sends' mono buffers (an effect
    /// that is off has its send added up and dropped).
    let reverb: Reverb?, chorus: Chorus?
    private let reverbSend: UnsafeMutablePointer<Float>, chorusSend: UnsafeMutablePointer<Float>

    /// A synthesizer of `font` at `sampleRate` with `polyphony` voices and output `gain`
    /// (libfluidsynth's default 0.2), a reverb with `reverb`'s settings for the notes'
    /// reverb sends (CC91 and generator 16) and a chorus with `chorus`'s for their chorus
    /// sends (CC93 and generator 15), or none. Channel 10 plays bank 128 (percussion). Its
    /// voices render on `threads` threads (up to 8; the render thread and workers it waits
    /// for, so for offline rendering), the output the same bit for bit for any count.
    /// `readingAllPresets` reads every preset's regions now; false leaves each to be read
    /// when `touchSamples` (a song's preload) or a note first needs it (a large font has tens
    /// of thousands, and a song plays a few presets). Control thread.
    public init(font: SoundFont, sampleRate: Double, polyphony: Int = 256, gain: Float = 0.2,
                reverb: Reverb.Settings? = nil, chorus: Chorus.Settings? = nil, threads: Int = 1, readingAllPresets: Bool = true) {
        Voice.prepareTables()
        self.font = font
        self.sampleRate = sampleRate
        cutoffs = CutoffTable.table(sampleRate: sampleRate)
        self.gain = gain
        self.polyphony = max(1, polyphony)
        regionsByPreset = Array(repeating: [], count: font.presets.count)
        presetsRead = Array(repeating: false, count: font.presets.count)
        var index: [Int: Int] = [:]
        for (i, preset) in font.presets.enumerated() where index[Int(preset.bank) << 8 | Int(preset.program)] == nil {
            index[Int(preset.bank) << 8 | Int(preset.program)] = i
        }
        presetIndex = index
        channels = Self.freshChannels()
        loopPeaks = .allocate(capacity: font.samples.count)
        loopPeaks.initialize(repeating: 0, count: font.samples.count)
        slots = .allocate(capacity: self.polyphony)
        slots.initialize(repeating: VoiceSlot(), count: self.polyphony)
        voices = VoiceGroups(slots: slots, threads: threads)
        self.reverb = reverb.map { Reverb(sampleRate: sampleRate, settings: $0) }
        self.chorus = chorus.map { Chorus(sampleRate: sampleRate, settings: $0) }
        reverbSend = .allocate(capacity: VoiceGroups.capacity)
        chorusSend = .allocate(capacity: VoiceGroups.capacity)
        for channel in 0..<16 { select(channel) }
        for preset in font.presets.indices where readingAllPresets { readRegions(ofPreset: preset) }
        warmUp()
    }

    /// Sixteen channels as a reset leaves them: channel 10 the drums, channel 1 the basic
    /// channel of all sixteen in omni-on poly mode, as libfluidsynth starts.
    static func freshChannels() -> [SynthChannel] {
        (0..<16).map { var channel = SynthChannel(drums: $0 == 9); channel.basicGroup = $0 == 0 ? 16 : 0; return channel }
    }

    /// Renders one block of a voice (and of the effects) into a throw-away buffer and takes
    /// a tuning message of each kind that changes nothing (tuning 0 of bank 0 in equal
    /// temperament, for no channel), here on the control thread, so that whatever the Swift
    /// runtime does the first time (type metadata for the SIMD arithmetic, in a debug build)
    /// is not done on the render thread.
    private func warmUp() {
        // The first preset with a region plays the warm-up note.
        for preset in font.presets.indices where regionsByPreset[preset].isEmpty {
            readRegions(ofPreset: preset)
            if !regionsByPreset[preset].isEmpty { break }
        }
        let left = UnsafeMutablePointer<Float>.allocate(capacity: Units.controlBlock), right = UnsafeMutablePointer<Float>.allocate(capacity: Units.controlBlock)
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 4 * Units.controlBlock)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: VoiceQuad.scratchSize)
        defer { left.deallocate(); right.deallocate(); planes.deallocate(); scratch.deallocate() }
        left.initialize(repeating: 0, count: Units.controlBlock)
        right.initialize(repeating: 0, count: Units.controlBlock)
        planes.initialize(repeating: 0, count: 4 * Units.controlBlock)
        let mix = MixPlanes(left: planes, stride: Units.controlBlock, sends: true)
        reverbSend.initialize(repeating: 0, count: Units.controlBlock)
        chorusSend.initialize(repeating: 0, count: Units.controlBlock)
        if let preset = regionsByPreset.firstIndex(where: { !$0.isEmpty }), let region = regionsByPreset[preset].first,
           let voice = Voice(region: region, font: font, key: Int(region.keyRange.lowerBound), velocity: 64, sampleRate: sampleRate, cutoffs: cutoffs, gain: 0) {
            var slot = VoiceSlot()
            slot.voice = voice
            VoiceQuad.render(&slot, count: 1, into: mix, frames: Units.controlBlock, place: 0, scratch: scratch)
            slot.voice?.release()
            VoiceQuad.render(&slot, count: 1, into: mix, frames: Units.controlBlock, place: 0, scratch: scratch)
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
        loopPeaks.deallocate()
        slots.deinitialize(count: polyphony)
        slots.deallocate()
        tunings.deallocate()
        reverbSend.deallocate()
        chorusSend.deallocate()
    }

    /// Reads a byte of every page of the samples that a note of `key` at `velocity` on
    /// `channel` would play now (with its preset, tuning and drum mode; every key and velocity
    /// of the preset when `key` is nil), so that the render thread never waits for the font
    /// file when it starts the note (the samples are mapped from the file, read as they are
    /// first touched) and what no note plays costs no memory. Control thread, before rendering.
    public func touchSamples(ofChannel channel: Int, key: Int?, velocity: Int) {
        guard (0..<16).contains(channel), let preset = channels[channel].preset else { return }
        let zoneKey = key.map { UInt8(self.zoneKey(min(max($0, 0), 127), tuning: keyTuning(of: channel))) }
        let velocity = UInt8(min(max(velocity, 0), 127))
        readRegions(ofPreset: preset)
        for region in regionsByPreset[preset] where zoneKey.map({ region.keyRange.contains($0) && region.velocityRange.contains(velocity) }) ?? true {
            touch(sample: region.sample)
        }
    }

    /// Reads a byte of every page of every sample the font's presets play (for live play,
    /// whose notes nobody knows beforehand). Control thread, before rendering.
    public func touchAllSamples() {
        for preset in font.presets.indices { readRegions(ofPreset: preset) }
        for regions in regionsByPreset { for region in regions { touch(sample: region.sample) } }
    }

    /// Reads `preset`'s regions if nobody has yet. Control thread; on the render thread only
    /// for a preset no preload read (it allocates there, rather than play nothing).
    private func readRegions(ofPreset preset: Int) {
        guard !presetsRead[preset] else { return }
        regionsByPreset[preset] = font.allRegions(of: font.presets[preset])
        presetsRead[preset] = true
    }

    /// Reads a byte of every page of sample `index`, once.
    private func touch(sample index: Int) {
        guard touched.insert(index).inserted else { return }
        let page = 4_096 / MemoryLayout<Int16>.size
        let data = font.data(of: font.samples[index])
        for i in stride(from: 0, to: data.count, by: page) { touchedSum &+= Int(data[i]) }
        if let last = data.last { touchedSum &+= Int(last) }
        loopPeaks[index] = Voice.loopPeak(ofSample: index, in: font)
    }

    /// How many voices sound. Render thread only.
    public var activeVoices: Int { (0..<slotsInUse).reduce(0) { $0 + (slots[$1].voice == nil ? 0 : 1) } }

    /// Points `channel` at the preset its bank and program name: bank 128 on a drum channel; a
    /// program the bank lacks falls back to bank 0's and then to bank 0's program 0 (for drums,
    /// to bank 128's program 0), as libfluidsynth does.
    func select(_ channel: Int) {
        let bank = channels[channel].drums ? 128 : channels[channel].bank
        let program = channels[channel].program
        channels[channel].preset = presetIndex[bank << 8 | program]
            ?? (bank == 128 ? presetIndex[128 << 8] : presetIndex[program] ?? presetIndex[0])
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
        readRegions(ofPreset: preset)
        let regions = regionsByPreset[preset]
        let tuning = keyTuning(of: channel)
        let zoneKey = zoneKey(key, tuning: tuning)
        for index in 0..<regions.count {   // by index: a debug build's array iterator allocates
            let region = regions[index]
            guard region.keyRange.contains(UInt8(zoneKey)), region.velocityRange.contains(UInt8(velocity)),
                  !any(skipping .== SIMD16(repeating: Int32(index))) else { continue }
            guard var voice = Voice(region: region, font: font, key: key, velocity: velocity, controllers: channels[channel].controllers,
                                    tuning: tuning, sampleRate: sampleRate, cutoffs: cutoffs, gain: gain, loopPeak: loopPeaks[region.sample]) else { continue }
            if let glideFrom { voice.glide(fromKey: glideFrom, milliseconds: glideTime, scaleTuning: region[.scaleTuning]) }
            if voice.exclusiveClass != 0 { cutExclusiveClass(voice.exclusiveClass, channel: channel) }
            let slot = freeSlot()
            slots[slot] = VoiceSlot(voice: voice, channel: channel, key: key, preset: preset, region: index, started: serial)
            slotsInUse = max(slotsInUse, slot + 1)
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
        for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel && slots[i].key == from && !slots[i].released {
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
        for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel && slots[i].started != serial
            && slots[i].voice!.exclusiveClass == exclusiveClass {
            slots[i].voice!.cut()
            slots[i].released = true
        }
    }

    /// A free slot, or the one to steal: the oldest released voice, else the oldest.
    private func freeSlot() -> Int {
        var oldest = 0, oldestReleased = -1
        for i in 0..<slotsInUse {
            guard slots[i].voice != nil else { return i }
            if slots[i].started < slots[oldest].started { oldest = i }
            if slots[i].released, oldestReleased < 0 || slots[i].started < slots[oldestReleased].started { oldestReleased = i }
        }
        if slotsInUse < polyphony { return slotsInUse }
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
        for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel && slots[i].key == key && !slots[i].released {
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

    func releaseVoices(channel: Int, key: Int) {
        for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel && slots[i].key == key && !slots[i].released {
            slots[i].voice!.release()
            slots[i].released = true
        }
    }

    /// Releases the notes of `channel` whose keys are up and that no pedal holds any longer.
    func releaseSustained(channel: Int) {
        guard channels[channel].controllers[64] < 64 else { return }
        for i in 0..<slotsInUse where slots[i].voice != nil && slots[i].channel == channel && slots[i].sustained && !slots[i].sostenuto {
            slots[i].voice!.release()
            slots[i].released = true
            slots[i].sustained = false
        }
    }

    /// Writes `frames` frames of every sounding voice into `left` and `right`, with the
    /// reverb and the chorus of their sends where they are on. Render thread only.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        defer { framesRendered = (framesRendered + frames) % Units.controlBlock }
        let sends = reverb == nil && chorus == nil ? nil : (reverb: reverbSend, chorus: chorusSend)
        var done = 0
        while done < frames {
            let count = min(frames - done, VoiceGroups.capacity)
            guard let sends else {
                renderVoices(left: left + done, right: right + done, sends: nil, frames: count, place: (framesRendered + done) % Units.controlBlock)
                done += count
                continue
            }
            renderVoices(left: left + done, right: right + done, sends: sends, frames: count, place: (framesRendered + done) % Units.controlBlock)
            reverb?.process(sends.reverb, addingTo: left + done, right + done, frames: count)
            chorus?.process(sends.chorus, addingTo: left + done, right + done, frames: count)
            done += count
        }
    }

    /// One pass of the voices, its first frame at `place` in the control block; then the
    /// slots in use end after the last sounding voice.
    private func renderVoices(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                              sends: (reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>)?, frames: Int, place: Int) {
        voices.render(left: left, right: right, sends: sends, frames: frames, place: place, slotsInUse: slotsInUse)
        while slotsInUse > 0 && slots[slotsInUse - 1].voice == nil { slotsInUse -= 1 }
    }
}
