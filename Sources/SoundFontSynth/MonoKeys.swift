/// The keys held down on a channel played monophonically, oldest first; the last one pressed
/// sounds. Like libfluidsynth's legato detector it remembers the ten most recent, so that
/// releasing the sounding key goes back to the one held before it (a trill). In SIMD lanes:
/// no heap on the render thread.
struct MonoKeys {
    private var keys = SIMD16<UInt8>()
    private var velocities = SIMD16<UInt8>()
    /// How many keys are held. Render thread only.
    private(set) var count = 0
    /// The most it remembers.
    static let capacity = 10

    /// The key sounding (the last pressed that is still down) and its velocity, if any. Render thread only.
    var last: (key: Int, velocity: Int)? {
        count == 0 ? nil : (Int(keys[count - 1]), Int(velocities[count - 1]))
    }

    /// `key` pressed at `velocity`: it becomes the last; a key pressed again moves there, and
    /// when full the oldest is forgotten. Render thread only.
    mutating func press(_ key: Int, velocity: Int) {
        _ = release(key)
        if count == Self.capacity { drop(at: 0) }
        keys[count] = UInt8(key)
        velocities[count] = UInt8(velocity)
        count += 1
    }

    /// `key` let go: whether it was held, and whether it was the one sounding. Render thread only.
    mutating func release(_ key: Int) -> (held: Bool, wasSounding: Bool) {
        for i in 0..<count where Int(keys[i]) == key {
            let sounding = i == count - 1
            drop(at: i)
            return (true, sounding)
        }
        return (false, false)
    }

    /// Forgets every key. Render thread only.
    mutating func removeAll() { count = 0 }

    private mutating func drop(at index: Int) {
        for i in index..<(count - 1) {
            keys[i] = keys[i + 1]
            velocities[i] = velocities[i + 1]
        }
        count -= 1
    }
}
