/// The MIDI Tuning Standard's tunings a synthesizer holds, each named by a bank and a program
/// (0-127) and giving every key a pitch in cents, as the scale/octave and single-note tuning
/// messages make them (a new one starts as equal temperament, as libfluidsynth's do). A fixed
/// pool made once: the render thread, where the messages arrive, allocates nothing, and a
/// tuning beyond the pool's room is not made. Render thread only, after `init`.
struct KeyTunings {
    /// How many tunings the pool holds.
    static let capacity = 32
    private let pitches: UnsafeMutablePointer<Double>   // capacity × 128 cents
    private let names: UnsafeMutablePointer<Int32>      // bank << 7 | program, −1 for a free slot

    /// An empty pool. Control thread.
    init() {
        pitches = .allocate(capacity: Self.capacity * 128)
        pitches.initialize(repeating: 0, count: Self.capacity * 128)
        names = .allocate(capacity: Self.capacity)
        names.initialize(repeating: -1, count: Self.capacity)
    }

    /// Frees the pool; nothing may use it after. Control thread.
    func deallocate() {
        pitches.deallocate()
        names.deallocate()
    }

    /// The slot of tuning `program` of `bank`, made in equal temperament if it was not there;
    /// nil when the pool is full.
    func slot(bank: Int, program: Int) -> Int? {
        let name = Int32(bank << 7 | program)
        var free: Int?
        for slot in 0..<Self.capacity {
            if names[slot] == name { return slot }
            if names[slot] < 0, free == nil { free = slot }
        }
        guard let slot = free else { return nil }
        names[slot] = name
        for key in 0..<128 { pitches[slot * 128 + key] = Double(key * 100) }
        return slot
    }

    /// The 128 pitches (cents) of `slot`'s tuning, to read or change.
    func pitches(of slot: Int) -> UnsafeMutablePointer<Double> { pitches + slot * 128 }
}
