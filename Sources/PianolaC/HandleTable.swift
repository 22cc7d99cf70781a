#if canImport(Glibc)
import Glibc
#endif

/// The C API's opaque handles: each names a Swift object held here by a slot index, the slot's
/// generation and the object's kind, packed into the pointer's bits. A handle is never
/// dereferenced, so a NULL, forged, destroyed or wrong-kind handle is found out and refused,
/// never followed. Slots live in chunks that are made once and never freed or moved, so the
/// render calls look a handle up without the lock: they read only a slot the caller's own
/// ordering has published to them (a handle is not destroyed while its audio callback runs).
/// Any thread (`lookUp(_:_:)` also the render thread).
final class HandleTable: @unchecked Sendable {
    // @unchecked Sendable: slots and the free list change only under `mutex`; lock-free reads
    // touch only slots that are live for the handle being read (see the type's doc).

    /// What a handle names.
    enum Kind: UInt64 {
        case soundtrack = 1, song, sound, renderer, soundFont
    }

    private struct Slot {
        var generation: UInt64 = 1
        var kind: UInt64 = 0          // 0: free
        var object: UnsafeMutableRawPointer?
    }

    private static let chunkSize = 1024
    private static let maximumChunks = 1024
    private static let indexBits: UInt64 = 20
    private static let generationBits: UInt64 = 32

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let chunks = UnsafeMutablePointer<UnsafeMutablePointer<Slot>?>.allocate(capacity: maximumChunks)
    private var chunkCount = 0
    private var free: [Int] = []
    private var handles: [ObjectIdentifier: OpaquePointer] = [:]

    /// The one table of the process. Any thread.
    static let shared = HandleTable()

    private init() {
        pthread_mutex_init(mutex, nil)
        chunks.initialize(repeating: nil, count: Self.maximumChunks)
    }

    /// A new handle for `object`, which the table keeps alive until `remove`; `nil` when a
    /// million handles are live. Any thread.
    func add(_ object: AnyObject, as kind: Kind) -> OpaquePointer? {
        locked {
            if free.isEmpty {
                guard chunkCount < Self.maximumChunks else { return nil }
                let chunk = UnsafeMutablePointer<Slot>.allocate(capacity: Self.chunkSize)
                chunk.initialize(repeating: Slot(), count: Self.chunkSize)
                chunks[chunkCount] = chunk
                free += (chunkCount * Self.chunkSize..<(chunkCount + 1) * Self.chunkSize).reversed()
                chunkCount += 1
            }
            let index = free.removeLast()
            let slot = self.slot(index)!
            slot.pointee.kind = kind.rawValue
            slot.pointee.object = Unmanaged.passRetained(object).toOpaque()
            let handle = Self.pack(index: index, generation: slot.pointee.generation, kind: kind)
            handles[ObjectIdentifier(object)] = handle
            return handle
        }
    }

    /// The object `handle` names if it is live and of `kind`. Any thread, the render thread
    /// included: no lock, no allocation.
    func lookUp(_ handle: OpaquePointer?, _ kind: Kind) -> AnyObject? {
        guard let (index, generation) = Self.unpack(handle, kind), let slot = slot(index),
              slot.pointee.kind == kind.rawValue, slot.pointee.generation == generation,
              let object = slot.pointee.object else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue()
    }

    /// The live handle of `object`, if it has one. Any thread.
    func handle(of object: AnyObject) -> OpaquePointer? {
        locked { handles[ObjectIdentifier(object)] }
    }

    /// Ends `handle` and gives back its object (which the table no longer keeps alive); `nil`
    /// when the handle is not live or not of `kind`. Any thread.
    func remove(_ handle: OpaquePointer?, _ kind: Kind) -> AnyObject? {
        let object: Unmanaged<AnyObject>? = locked {
            guard let (index, generation) = Self.unpack(handle, kind), let slot = slot(index),
                  slot.pointee.kind == kind.rawValue, slot.pointee.generation == generation,
                  let object = slot.pointee.object else { return nil }
            slot.pointee = Slot(generation: (generation + 1) & ((1 << Self.generationBits) - 1) | 1, kind: 0, object: nil)
            free.append(index)
            let unmanaged = Unmanaged<AnyObject>.fromOpaque(object)
            handles[ObjectIdentifier(unmanaged.takeUnretainedValue())] = nil
            return unmanaged
        }
        return object?.takeRetainedValue()
    }

    /// The slot at `index`, if its chunk exists. Reads the chunk directory without the lock:
    /// an entry is written once, before any handle into its chunk is handed out.
    private func slot(_ index: Int) -> UnsafeMutablePointer<Slot>? {
        let chunk = index / Self.chunkSize
        guard chunk < Self.maximumChunks, let slots = chunks[chunk] else { return nil }
        return slots + index % Self.chunkSize
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// kind (bits 52…55) · generation (20…51) · index (0…19).
    private static func pack(index: Int, generation: UInt64, kind: Kind) -> OpaquePointer {
        OpaquePointer(bitPattern: UInt(kind.rawValue << (indexBits + generationBits) | generation << indexBits | UInt64(index)))!
    }

    private static func unpack(_ handle: OpaquePointer?, _ kind: Kind) -> (index: Int, generation: UInt64)? {
        guard let handle else { return nil }
        let bits = UInt64(UInt(bitPattern: Int(bitPattern: handle)))
        guard bits >> (indexBits + generationBits) == kind.rawValue else { return nil }
        return (Int(bits & ((1 << indexBits) - 1)), (bits >> indexBits) & ((1 << generationBits) - 1))
    }
}
