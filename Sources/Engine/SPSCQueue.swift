import Synchronization

/// A bounded single-producer single-consumer queue: one thread pushes, one pops, neither
/// waits nor allocates after `init`. The bridge between a control thread and the render
/// thread, in both directions. Producer thread for `push`, consumer thread for `pop`.
package final class SPSCQueue<Element>: @unchecked Sendable {
    // @unchecked Sendable: `storage` slots are handed over by the acquire/release ordering of
    // `head` and `tail`: a slot is written only by the producer before it publishes `tail`,
    // and read only by the consumer before it publishes `head`.
    private let storage: UnsafeMutablePointer<Element?>
    private let capacity: Int
    private let head = Atomic<Int>(0)   // next slot to pop (consumer owns)
    private let tail = Atomic<Int>(0)   // next slot to push (producer owns)

    /// A queue of `capacity` elements. Control thread.
    package init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity + 1
        storage = .allocate(capacity: capacity + 1)
        storage.initialize(repeating: nil, count: capacity + 1)
    }

    deinit {
        storage.deinitialize(count: capacity)
        storage.deallocate()
    }

    /// Adds an element; false (and the element untouched) when full. Producer thread only.
    @discardableResult
    package func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let next = t + 1 == capacity ? 0 : t + 1
        guard next != head.load(ordering: .acquiring) else { return false }
        storage[t] = element
        tail.store(next, ordering: .releasing)
        return true
    }

    /// Takes the oldest element, `nil` when empty. Consumer thread only.
    package func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        let element = storage[h]
        storage[h] = nil
        head.store(h + 1 == capacity ? 0 : h + 1, ordering: .releasing)
        return element
    }
}
