import CLilv

/// The features Pianola passes a plugin instance (urid:map and unmap, options with the sample
/// rate and block lengths, bounded block lengths, its worker's schedule), kept alive as long as
/// the instance lives. Control thread.
final class LV2Features {
    /// The features Pianola gives plugins; any other a plugin requires makes it refused. Any thread.
    static let offered = [
        "http://lv2plug.in/ns/ext/urid#map", "http://lv2plug.in/ns/ext/urid#unmap", "http://lv2plug.in/ns/ext/options#options",
        "http://lv2plug.in/ns/ext/buf-size#boundedBlockLength", "http://lv2plug.in/ns/lv2core#isLive",
        "http://lv2plug.in/ns/ext/worker#schedule",
    ]
    /// Required "features" that are promises the host keeps without data (the default state
    /// is restored as the instance is set up). Any thread.
    static let keptPromises = ["http://lv2plug.in/ns/lv2core#inPlaceBroken", "http://lv2plug.in/ns/lv2core#hardRTCapable",
                               LV2Features.loadDefaultState]
    /// The feature of a plugin whose default state the host restores (state:loadDefaultState). Any thread.
    static let loadDefaultState = "http://lv2plug.in/ns/ext/state#loadDefaultState"

    /// Throws one line when `plugin` needs a feature Pianola does not give. Any thread.
    static func check(_ plugin: LV2PluginInfo) throws(LV2Error) {
        let missing = plugin.requiredFeatures.filter { !offered.contains($0) && !keptPromises.contains($0) }
        guard missing.isEmpty else {
            throw LV2Error(.argument, "LV2 plugin '\(plugin.name)' needs \(missing.joined(separator: ", ")), which Pianola does not offer yet")
        }
    }

    let strings: [UnsafeMutablePointer<CChar>]
    let list: UnsafeMutablePointer<UnsafePointer<LV2_Feature>?>
    let items: UnsafeMutablePointer<LV2_Feature>
    let options: UnsafeMutablePointer<LV2_Options_Option>
    let values: UnsafeMutablePointer<Int32>
    let rate: UnsafeMutablePointer<Float>

    /// The features for an instance at `sampleRate`, run for at most `maxFrames`, whose worker
    /// takes requests through `schedule`. Control thread.
    init(sampleRate: Int, maxFrames: Int, schedule: UnsafeMutablePointer<LV2_Worker_Schedule>) {
        rate = .allocate(capacity: 1)
        rate.initialize(to: Float(sampleRate))
        values = .allocate(capacity: 3)
        values.initialize(from: [1, Int32(maxFrames), Int32(maxFrames)], count: 3)
        let int = URIDMap.id("http://lv2plug.in/ns/ext/atom#Int"), float = URIDMap.id("http://lv2plug.in/ns/ext/atom#Float")
        let size = UInt32(MemoryLayout<Int32>.size)
        options = .allocate(capacity: 5)
        let instance = LV2_OPTIONS_INSTANCE
        options.initialize(from: [
            LV2_Options_Option(context: instance, subject: 0, key: URIDMap.id("http://lv2plug.in/ns/lv2core#sampleRate"), size: size, type: float, value: rate),
            LV2_Options_Option(context: instance, subject: 0, key: URIDMap.id("http://lv2plug.in/ns/ext/buf-size#minBlockLength"), size: size, type: int, value: values),
            LV2_Options_Option(context: instance, subject: 0, key: URIDMap.id("http://lv2plug.in/ns/ext/buf-size#maxBlockLength"), size: size, type: int, value: values + 1),
            LV2_Options_Option(context: instance, subject: 0, key: URIDMap.id("http://lv2plug.in/ns/ext/buf-size#nominalBlockLength"), size: size, type: int, value: values + 2),
            LV2_Options_Option(context: instance, subject: 0, key: 0, size: 0, type: 0, value: nil),
        ], count: 5)
        let uris = LV2Features.offered
        strings = uris.map { strdup($0) }
        items = .allocate(capacity: uris.count)
        let data: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(URIDMap.map), UnsafeMutableRawPointer(URIDMap.unmap), UnsafeMutableRawPointer(options), nil, nil,
                                               UnsafeMutableRawPointer(schedule)]
        items.initialize(from: zip(strings, data).map { LV2_Feature(URI: $0.0, data: $0.1) }, count: uris.count)
        list = .allocate(capacity: uris.count + 1)
        for i in 0..<uris.count { list[i] = UnsafePointer(items + i) }
        list[uris.count] = nil
    }

    deinit {
        for string in strings { free(string) }
        list.deallocate()
        items.deallocate()
        options.deallocate()
        values.deallocate()
        rate.deallocate()
    }
}

#if canImport(Glibc)
import Glibc
#endif
