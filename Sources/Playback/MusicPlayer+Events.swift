import Engine
import MIDI
import Sequencing

// What the player sends its destinations: each score event, notes tracked as held so that
// none hangs, pedals, and the releases on stop, seek, mute and solo.
extension MusicPlayer {
    func emit(_ event: MusicPlayer.Score.Event, index: Int, at time: SampleTime) {
        if case .meta = event.message, let index = score.automationStep(atEvent: index) {
            let step = score.automation[index]
            automate(step, from: step.event.value, at: time, moving: true)
            return
        }
        let d = trackDestination[event.track]
        let destination = destinations[d]
        switch event.message {
        case .noteOn(let c, let n, let v) where v > 0:
            guard isAudible(event.track, channel: Int(c)) else { return }
            let key = c == 9 ? Int(n) : Int(n) + transpose
            guard (0...127).contains(key) else { return }
            if let sounding = held.soundingKey(destination: d, channel: c, key: n), Int(sounding) != key {
                _ = held.release(destination: d, channel: c, key: n)
                destination.schedule(ScheduledMIDI(time: time, status: 0x80 | c, data1: sounding, data2: 0))
            }
            held.press(destination: d, channel: c, key: n, soundingKey: UInt8(key), track: event.track)
            destination.schedule(ScheduledMIDI(time: time, status: 0x90 | c, data1: UInt8(key), data2: v))
        case .noteOff(let c, let n, let v), .noteOn(let c, let n, let v):
            guard let sounding = held.release(destination: d, channel: c, key: n) else { return }
            destination.schedule(ScheduledMIDI(time: time, status: 0x80 | c, data1: sounding, data2: v))
        case .polyPressure(let c, let n, let p):
            guard let sounding = held.soundingKey(destination: d, channel: c, key: n) else { return }
            destination.schedule(ScheduledMIDI(time: time, status: 0xA0 | c, data1: sounding, data2: p))
        case .sysex(let bytes):
            bytes.withUnsafeBufferPointer { destination.scheduleSysex(MusicPlayer.sysexBody($0), at: time) }
        case .meta(.text(.marker, _)), .meta(.text(.cuePoint, _)), .meta(.sequencerSpecific):
            notifications.push(Notification(kind: 0, index: index, time: time))
        default:
            if let packed = ScheduledMIDI(time: time, event.message) { send(packed, to: d) }
        }
    }

    /// Schedules a message on destination `d`, keeping track of the pedals it holds down.
    @inline(__always) func send(_ event: ScheduledMIDI, to d: Int) {
        // The controller source's own on this channel: the score's message gives way.
        if event.status & 0xF0 == 0xB0, ownedChannels[Int(event.data1 & 0x7F)] & (UInt16(1) &<< UInt16(event.status & 0x0F)) != 0 { return }
        if busInput[d] >= 0, event.status & 0xF0 == 0xB0, event.data1 == 7 || event.data1 == 10, let parameters {
            let v = Float(event.data2)
            let (parameter, value): (ParameterEvent.Parameter, Float) = event.data1 == 7 ? (.volume, v * v / (127 * 127)) : (.pan, max(-1, (v - 64) / 63))
            parameters.scheduleParameter(parameter, of: .input(busInput[d]), to: value, at: event.time, rampFrames: 0)
            return
        }
        if event.status & 0xF0 == 0xB0 && (event.data1 == 64 || event.data1 == 66) {
            held.pedal(event.data1, down: event.data2 >= 64, destination: d, channel: event.status & 0x0F)
        }
        destinations[d].schedule(event)
    }

    /// Note-offs for every held note, and pedals up where a pedal is down, at `time`: a note
    /// released under a sustain pedal would ring on.
    func releaseAll(at time: SampleTime) {
        held.releaseAll { note in noteOff(note, at: time) }
        for place in 0..<held.pedalPlaces {
            let down = held.pedalsDown(place)
            let status = 0xB0 | down.channel
            if down.sustain { send(ScheduledMIDI(time: time, status: status, data1: 64, data2: 0), to: down.destination) }
            if down.sostenuto { send(ScheduledMIDI(time: time, status: status, data1: 66, data2: 0), to: down.destination) }
        }
    }

    /// Note-offs, at `time`, for the held notes of tracks that mute or solo has silenced: one
    /// pass over the held notes, however many tracks the song has.
    func releaseInaudible(at time: SampleTime) {
        held.releaseAll(where: { !isAudible($0.track, channel: Int($0.channel)) }) { note in noteOff(note, at: time) }
    }

    @inline(__always) private func noteOff(_ note: HeldNotes.Note, at time: SampleTime) {
        destinations[note.destination].schedule(ScheduledMIDI(time: time, status: 0x80 | note.channel, data1: note.soundingKey, data2: 0))
    }

    /// A stored sysex packet without its closing F7 (plain indexing: the generic collection
    /// members box their elements in unoptimized builds, which would allocate here).
    @inline(__always) static func sysexBody(_ packet: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let n = packet.count
        return n > 0 && packet[n - 1] == 0xF7 ? UnsafeBufferPointer(start: packet.baseAddress, count: n - 1) : packet
    }
}
