/// Something due at an output time.
protocol Timed {
    /// When it is due.
    var time: SampleTime { get }
}

/// Changes waiting for their frames, earliest first (one made later of the same time after
/// the earlier), in room fixed when the queue is made: a render thread's list of what comes
/// next. Allocates nothing after it is made.
struct TimedQueue<Element: Timed> {
    private var items: [Element]
    /// How many wait.
    private(set) var count = 0

    /// Room for `capacity` changes; `filler` only fills the room.
    init(capacity: Int, filler: Element) { items = Array(repeating: filler, count: capacity) }

    /// The earliest change, `nil` when none waits.
    var first: Element? { count > 0 ? items[0] : nil }

    /// Puts `item` in its place in time order; false (and nothing kept) when the room is full.
    mutating func insert(_ item: Element) -> Bool {
        guard count < items.count else { return false }
        var at = count
        while at > 0 && items[at - 1].time > item.time {
            items[at] = items[at - 1]
            at -= 1
        }
        items[at] = item
        count += 1
        return true
    }

    /// Takes the earliest change out, if it is due before `limit`.
    mutating func popFirst(before limit: SampleTime) -> Element? {
        guard count > 0, items[0].time < limit else { return nil }
        let item = items[0]
        count -= 1
        for k in 0..<count { items[k] = items[k + 1] }
        return item
    }

    /// Forgets every change.
    mutating func removeAll() { count = 0 }
}
