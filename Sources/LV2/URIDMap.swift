import CLilv
import Locks

/// The URIs plugins have asked to have mapped to numbers (LV2's urid:map and urid:unmap):
/// one table for the process, so a number means one URI to every plugin. Any thread (a plugin
/// that maps in its run function takes a lock on the render thread: hosts allow it, few do it).
enum URIDMap {
    private static let table = ControlLock<(ids: [String: UInt32], uris: [UnsafeMutablePointer<CChar>])>(([:], []))

    /// The number of `uri`, made at its first mapping (from 1; 0 is no URI). Any thread.
    static func id(_ uri: String) -> UInt32 {
        table.withLock { table in
            if let id = table.ids[uri] { return id }
            table.uris.append(strdup(uri))
            let id = UInt32(table.uris.count)
            table.ids[uri] = id
            return id
        }
    }

    /// The URI of number `id`, kept for the process; nil for a number never made. Any thread.
    static func uri(_ id: UInt32) -> UnsafePointer<CChar>? {
        let address = table.withLock { table in id >= 1 && Int(id) <= table.uris.count ? UInt(bitPattern: table.uris[Int(id) - 1]) : 0 }
        return UnsafePointer(bitPattern: address)
    }

    /// The urid:map feature's data: the C function plugins call. Lives for the process.
    nonisolated(unsafe) static let map: UnsafeMutablePointer<LV2_URID_Map> = {
        let map = UnsafeMutablePointer<LV2_URID_Map>.allocate(capacity: 1)
        map.initialize(to: LV2_URID_Map(handle: nil, map: { _, uri in uri.map { URIDMap.id(String(cString: $0)) } ?? 0 }))
        return map
    }()

    /// The urid:unmap feature's data. Lives for the process.
    nonisolated(unsafe) static let unmap: UnsafeMutablePointer<LV2_URID_Unmap> = {
        let unmap = UnsafeMutablePointer<LV2_URID_Unmap>.allocate(capacity: 1)
        unmap.initialize(to: LV2_URID_Unmap(handle: nil, unmap: { _, id in URIDMap.uri(id) }))
        return unmap
    }()
}

#if canImport(Glibc)
import Glibc
#endif
