/// The notes a player has started and not yet released, and the pedals it holds down, per
/// destination, channel and key: what it must release on stop, seek, loop wrap, mute and the
/// song's end so that nothing hangs. Arrays sized once at init. Render thread only.
struct HeldNotes {
    /// One held key: where it is, the key that sounds (after transposition) and its track.
    struct Note {
        var destination: Int
        var channel: UInt8
        var soundingKey: UInt8
        var track: Int
    }

    private var count: [UInt8]           // per slot: note-ons not yet released
    private var sounding: [UInt8]        // per slot: the key that sounds
    private var track: [Int32]           // per slot: the track that started it
    private var pedals: [UInt8]          // per destination × channel: bit 0 sustain (64), bit 1 sostenuto (66) down

    /// Room for `destinations` destinations' 16 channels of 128 keys. Control thread.
    init(destinations: Int) {
        // Each its own buffer: arrays sharing one would copy it on the render thread at their first write.
        count = Array(repeating: 0, count: destinations * 2048)
        sounding = Array(repeating: 0, count: destinations * 2048)
        track = Array(repeating: 0, count: destinations * 2048)
        pedals = Array(repeating: 0, count: destinations * 16)
    }

    @inline(__always) private static func slot(_ destination: Int, _ channel: UInt8, _ key: UInt8) -> Int {
        destination * 2048 + Int(channel) * 128 + Int(key)
    }

    @inline(__always) private func note(at slot: Int) -> Note {
        Note(destination: slot / 2048, channel: UInt8((slot % 2048) / 128), soundingKey: sounding[slot], track: Int(track[slot]))
    }

    /// The sounding key of the note `key` started on `channel` of `destination`, if held.
    @inline(__always) func soundingKey(destination: Int, channel: UInt8, key: UInt8) -> UInt8? {
        let slot = Self.slot(destination, channel, key)
        return count[slot] > 0 ? sounding[slot] : nil
    }

    /// Notes `key` pressed, sounding as `soundingKey`, by `track`.
    @inline(__always) mutating func press(destination: Int, channel: UInt8, key: UInt8, soundingKey: UInt8, track: Int) {
        let slot = Self.slot(destination, channel, key)
        count[slot] &+= 1
        sounding[slot] = soundingKey
        self.track[slot] = Int32(track)
    }

    /// Forgets the note `key` on `channel` of `destination`; returns the key that sounded, if held.
    @inline(__always) mutating func release(destination: Int, channel: UInt8, key: UInt8) -> UInt8? {
        let slot = Self.slot(destination, channel, key)
        guard count[slot] > 0 else { return nil }
        count[slot] = 0
        return sounding[slot]
    }

    /// Forgets every held note that `silenced` picks, handing each to `body` first.
    @inline(__always) mutating func releaseAll(where silenced: (Note) -> Bool = { _ in true }, _ body: (Note) -> Void) {
        for slot in 0..<count.count where count[slot] > 0 {
            let held = note(at: slot)
            guard silenced(held) else { continue }
            body(held)
            count[slot] = 0
        }
    }

    /// Notes a sustain (64) or sostenuto (66) pedal moved on `channel` of `destination`.
    @inline(__always) mutating func pedal(_ controller: UInt8, down: Bool, destination: Int, channel: UInt8) {
        let bit: UInt8 = controller == 64 ? 1 : 2
        let slot = destination * 16 + Int(channel)
        if down { pedals[slot] |= bit } else { pedals[slot] &= ~bit }
    }

    /// How many destination × channel places a pedal can be down in (the `pedalsDown` index).
    var pedalPlaces: Int { pedals.count }

    /// The pedals down at `place`: its destination and channel, and whether sustain (64) and
    /// sostenuto (66) are down. An index, not a closure, so that the caller may send the
    /// pedals up (which notes them here) as it goes.
    @inline(__always) func pedalsDown(_ place: Int) -> (destination: Int, channel: UInt8, sustain: Bool, sostenuto: Bool) {
        (place / 16, UInt8(place % 16), pedals[place] & 1 != 0, pedals[place] & 2 != 0)
    }
}
