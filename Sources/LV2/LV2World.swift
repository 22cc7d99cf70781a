import CLilv
import Faults
import Locks
#if canImport(Glibc)
import Glibc
#endif

/// One port of an LV2 plugin, as its Turtle describes it. Any thread.
public struct LV2Port: Hashable, Sendable {
    /// What flows through a port. Any thread.
    public enum Kind: String, Hashable, Sendable {
        /// Audio samples.
        case audio
        /// One float a block: a knob.
        case control
        /// Atom sequences: MIDI, patch messages.
        case atom
        /// Control voltage: a float a frame.
        case cv
        /// Something Pianola does not connect.
        case other
    }

    /// A side of a stereo pair. Any thread.
    public enum Side: Hashable, Sendable {
        /// The left channel.
        case left
        /// The right channel.
        case right
    }

    /// Its index in the plugin. Any thread.
    public let index: Int
    /// Its symbol: how a spec names it (`l_delay`). Any thread.
    public let symbol: String
    /// Its human name. Any thread.
    public let name: String
    /// What flows through it. Any thread.
    public let kind: Kind
    /// Whether the plugin reads it (else it writes it). Any thread.
    public let isInput: Bool
    /// Whether it may be left unconnected. Any thread.
    public let isOptional: Bool
    /// Whether it carries MIDI events (an atom port that supports midi:MidiEvent). Any thread.
    public let carriesMIDI: Bool
    /// Whether it is a side-chain input (lv2:isSideChain, or in a port group that is a side
    /// chain of another, pg:sideChainOf): a key, not the signal processed. Any thread.
    public let isSideChain: Bool
    /// Which side of a stereo pair it carries (lv2:designation pg:left or pg:right), if it says. Any thread.
    public let side: Side?
    /// Whether it is in the plugin's main output group (pg:mainOutput). Any thread.
    public let isMainOutput: Bool
    /// Smallest, largest and default value (NaN where the plugin says none). Any thread.
    public let minimum: Float, maximum: Float, defaultValue: Float
    /// The values its Turtle names (lv2:scalePoint), in value order: an enumerated control's choices. Any thread.
    public let scalePoints: [LV2ScalePoint]
}

/// A named value of a control port (`1 = "Low-pass"`). Any thread.
public struct LV2ScalePoint: Hashable, Sendable {
    /// The value. Any thread.
    public let value: Float
    /// Its label. Any thread.
    public let label: String
}

/// An installed LV2 plugin, as its Turtle describes it. Any thread.
public struct LV2PluginInfo: Hashable, Sendable {
    /// Its URI. Any thread.
    public let uri: String
    /// Its human name (`mda Delay`). Any thread.
    public let name: String
    /// Its class's label (`Delay`, `Instrument Plugin`), empty when it has none. Any thread.
    public let className: String
    /// The classes its Turtle gives it (rdf:type: `http://lv2plug.in/ns/lv2core#CompressorPlugin`…). Any thread.
    public let classes: Set<String>
    /// Its ports, by index. Any thread.
    public let ports: [LV2Port]
    /// The features it cannot run without. Any thread.
    public let requiredFeatures: [String]
    /// Whether it says it runs in bounded time (lv2:hardRTCapable). Any thread.
    public let isHardRealTime: Bool
    /// Its presets: label and URI. Any thread.
    public let presets: [LV2Preset]
    /// The folder of its bundle (`/usr/lib/lv2/mda.lv2`). Any thread.
    public let bundle: String
    /// The index of the control output on which it reports its latency in frames (the port
    /// designated lv2:latency, or with lv2:reportsLatency), nil when it reports none. Any thread.
    public let latencyPort: Int?

    /// Its audio input ports, side chains aside. Any thread.
    public var audioInputs: [LV2Port] { splitInputs.signal }
    /// Its side-chain audio inputs (keys), which Pianola feeds silence: those with
    /// lv2:isSideChain, and optional inputs past the first two (Calf's and others' keys, which
    /// say only that they may be left unconnected). Any thread.
    public var sideChainInputs: [LV2Port] { splitInputs.keys }

    /// The audio inputs, parted into the signal's and the keys.
    private var splitInputs: (signal: [LV2Port], keys: [LV2Port]) {
        var signal: [LV2Port] = [], keys: [LV2Port] = []
        for port in ports where port.kind == .audio && port.isInput {
            if port.isSideChain || (signal.count >= 2 && port.isOptional) { keys.append(port) } else { signal.append(port) }
        }
        return (signal, keys)
    }
    /// Its audio output ports. Any thread.
    public var audioOutputs: [LV2Port] { ports.filter { $0.kind == .audio && !$0.isInput } }
    /// Its control input ports: the parameters a spec sets. Any thread.
    public var controlInputs: [LV2Port] { ports.filter { $0.kind == .control && $0.isInput } }
    /// Whether it takes MIDI (an atom input). Any thread.
    public var takesMIDI: Bool { ports.contains { $0.carriesMIDI && $0.isInput } }
    /// Whether it is played as an instrument: it takes MIDI, and says it is one
    /// (lv2:InstrumentPlugin, as synthv1 does though it has audio inputs) or has no audio input
    /// it needs. Any thread.
    public var isInstrument: Bool {
        takesMIDI && (classes.contains(LV2PluginInfo.lv2core + "InstrumentPlugin") || audioInputs.allSatisfy(\.isOptional))
    }
    /// Whether what it plays may go on after its input falls silent, past its latency: a delay,
    /// a reverb, a simulator, a comb filter, or a plugin of no class this list knows to stop
    /// with its input (filters, EQs, dynamics, distortion, modulation, pitch, utilities). Any thread.
    public var rings: Bool {
        let stopping = ["Analyser", "Utility", "Distortion", "Waveshaper", "Dynamics", "Compressor", "Expander", "Gate",
                        "Limiter", "Envelope", "Filter", "Allpass", "Bandpass", "EQ", "MultiEQ", "ParaEQ", "Highpass",
                        "Lowpass", "Amplifier", "Converter", "Mixer", "Modulator", "Chorus", "Flanger", "Phaser", "Pitch", "Spectral"]
        let ringing = ["Delay", "Reverb", "Simulator", "Comb"]
        if ringing.contains(where: { classes.contains(Self.lv2core + $0 + "Plugin") }) { return true }
        return !stopping.contains { classes.contains(Self.lv2core + $0 + "Plugin") }
    }
    /// lv2core's namespace.
    static let lv2core = "http://lv2plug.in/ns/lv2core#"
}

/// A bundle lilv could not read (broken Turtle): where, and what lilv said. Any thread.
public struct LV2BundleProblem: Hashable, Sendable, CustomStringConvertible {
    /// The bundle's folder. Any thread.
    public let bundle: String
    /// What lilv (or serd, its Turtle reader) said, with the file and line. Any thread.
    public let reason: String
    /// `/path/x.lv2: manifest.ttl:2:60: bad verb`. Any thread.
    public var description: String { "\(bundle): \(reason)" }
}

/// A preset of a plugin. Any thread.
public struct LV2Preset: Hashable, Sendable {
    /// Its label. Any thread.
    public let label: String
    /// Its URI. Any thread.
    public let uri: String
}

/// A plugin that cannot be found, loaded or run: which, and why, in one line. Any thread.
public struct LV2Error: Fault, Hashable, Sendable {
    /// What kind of fault it is. Any thread.
    public let kind: FaultKind
    /// The line. Any thread.
    public let description: String

    /// A fault of `kind` saying `description`. Any thread.
    public init(_ kind: FaultKind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// The LV2 plugins installed on this machine (LV2_PATH, else ~/.lv2, /usr/local/lib/lv2 and
/// /usr/lib/lv2), found once by lilv and described. Its lilv world is used under one lock.
/// Any thread.
package final class LV2World: @unchecked Sendable {
    // @unchecked Sendable: `world` and its nodes are used only under `lock`.
    let world: OpaquePointer
    let lock = ControlLock<Void>(())
    /// Every plugin installed, by name. Any thread.
    package let plugins: [LV2PluginInfo]
    /// The bundles lilv could not read whole, in the order it said so. Any thread.
    package let problems: [LV2BundleProblem]

    private static let loaded: Result<LV2World, LV2Error> = {
        if let problem = clilv_open() { return .failure(LV2Error(.file, String(cString: problem))) }
        return .success(LV2World())
    }()

    /// The world of this process, loaded at its first use; throws one line when lilv is not
    /// installed. Any thread.
    package static func shared() throws(LV2Error) -> LV2World { try loaded.get() }

    private init() {
        let world = lilv_world_new()!
        var plugins: [LV2PluginInfo] = []
        // lilv says what it cannot read on standard error, a fragment a line: gathered here
        // into one problem a bundle, what names no bundle passed on.
        let said = Self.capturingStandardError {
            lilv_world_load_all(world)
            plugins = Self.describe(world)
        }
        (self.world, self.plugins) = (world, plugins)
        var problems: [LV2BundleProblem] = []
        for line in said.split(separator: "\n").map(String.init) {
            guard let bundle = Self.bundle(in: line) else {
                _ = (line + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
                continue
            }
            guard !problems.contains(where: { $0.bundle == bundle }) else { continue }
            var reason = line.replacing("file://" + bundle + "/", with: "").replacing(bundle + "/", with: "")
            if reason.hasPrefix("error: ") { reason.removeFirst(7) }
            problems.append(LV2BundleProblem(bundle: bundle, reason: reason))
        }
        self.problems = problems
    }

    /// The bundle folder a line of lilv's names (`/x/y.lv2` in a path or a file URI), nil if none.
    private static func bundle(in line: String) -> String? {
        guard let end = line.firstRange(of: ".lv2/") else { return nil }
        let upTo = line[..<end.lowerBound]
        guard let start = upTo.ranges(of: "file:///").last.map({ line.index($0.upperBound, offsetBy: -1) })
                ?? upTo.lastIndex(where: { $0 == " " || $0 == "`" }).map({ line.index(after: $0) }) else { return nil }
        let path = String(line[start..<end.lowerBound]) + ".lv2"
        return path.hasPrefix("/") ? path : nil
    }

    /// What `body` writes to standard error (lilv's reports), kept from the terminal.
    private static func capturingStandardError(_ body: () -> Void) -> String {
        fflush(nil)
        guard let file = tmpfile() else { body(); return "" }
        defer { fclose(file) }
        let saved = dup(2)
        guard saved >= 0, dup2(fileno(file), 2) >= 0 else {
            if saved >= 0 { close(saved) }
            body()
            return ""
        }
        body()
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        rewind(file)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The plugin `text` names: its URI, or its name (any case); throws one line when none
    /// (or more than one) is. Any thread.
    package func plugin(_ text: String) throws(LV2Error) -> LV2PluginInfo {
        let named = plugins.filter { $0.name.lowercased() == text.lowercased() }
        if named.count > 1 && !plugins.contains(where: { $0.uri == text }) {
            throw LV2Error(.argument, "LV2 plugin '\(text)': \(named.count) plugins have that name; give one's URI (\(named.map(\.uri).joined(separator: ", ")))")
        }
        if let found = plugins.first(where: { $0.uri == text }) ?? named.first {
            if let problem = problems.first(where: { $0.bundle == found.bundle }) {
                throw LV2Error(.file, "LV2 plugin '\(found.name)': its bundle \(problem.bundle) could not be read: \(problem.reason)")
            }
            return found
        }
        let near = plugins.filter { $0.name.lowercased().contains(text.lowercased()) }.prefix(3).map { "'\($0.name)'" }
        let unread = problems.isEmpty ? "" : "; \(problems.count == 1 ? "a bundle" : "bundles") could not be read: \(problems.map(\.description).joined(separator: "; "))"
        throw LV2Error(.argument, "no LV2 plugin '\(text)' is installed (\(plugins.count) are\(near.isEmpty ? "" : "; near: \(near.joined(separator: ", "))"); 'pianola plugins' lists them\(unread))")
    }

    /// `plugin`'s preset `text` names (its label, any case, or its URI); throws one line naming
    /// the presets there are when it has none of that name. Any thread.
    package func preset(_ plugin: LV2PluginInfo, named text: String) throws(LV2Error) -> LV2Preset {
        guard let preset = plugin.presets.first(where: { $0.uri == text }) ?? plugin.presets.first(where: { $0.label.lowercased() == text.lowercased() }) else {
            let names = plugin.presets.map { "'\($0.label)'" }
            throw LV2Error(.argument, "\(plugin.name) has no preset '\(text)' (\(names.isEmpty ? "it has none" : "it has \(names.prefix(12).joined(separator: ", "))\(names.count > 12 ? "…" : "")"))")
        }
        return preset
    }

    /// Restores into `instance` (not yet activated) the state the resource `uri` holds — a
    /// preset's, or a plugin's default state — all but its port values, which the caller sets;
    /// throws one line when there is none there. Control thread.
    func restoreState(_ uri: String, into instance: UnsafeMutablePointer<LilvInstance>, features: LV2Features) throws(LV2Error) {
        let restored: Bool = lock.withLock { _ in
            let node = lilv_new_uri(world, uri)
            defer { lilv_node_free(node) }
            lilv_world_load_resource(world, node)
            guard let state = lilv_state_new_from_world(world, URIDMap.map, node) else { return false }
            defer { lilv_state_free(state) }
            lilv_state_restore(state, instance, nil, nil, 0, features.list)
            return true
        }
        guard restored else { throw LV2Error(.file, "the LV2 state <\(uri)> cannot be read") }
    }

    /// The control values `plugin`'s preset `text` (its label, any case, or its URI) sets, by
    /// port symbol; throws one line naming the presets there are when it has none of that name.
    /// Control thread.
    package func presetValues(_ plugin: LV2PluginInfo, preset text: String) throws(LV2Error) -> [String: Double] {
        let preset = try self.preset(plugin, named: text)
        final class Collected { var values: [String: Double] = [:] }
        let collected = Collected()
        let loaded: Bool = lock.withLock { _ in
            let node = lilv_new_uri(world, preset.uri)
            defer { lilv_node_free(node) }
            guard let state = lilv_state_new_from_world(world, URIDMap.map, node) else { return false }
            defer { lilv_state_free(state) }
            let float = URIDMap.id("http://lv2plug.in/ns/ext/atom#Float"), double = URIDMap.id("http://lv2plug.in/ns/ext/atom#Double")
            let int = URIDMap.id("http://lv2plug.in/ns/ext/atom#Int")
            withExtendedLifetime(collected) {
                let context = (Unmanaged.passUnretained(collected).toOpaque(), float, double, int)
                withUnsafePointer(to: context) { pointer in
                    lilv_state_emit_port_values(state, { symbol, userData, value, size, type in
                        guard let symbol, let value, let userData else { return }
                        let (box, float, double, int) = userData.assumingMemoryBound(to: (UnsafeMutableRawPointer, UInt32, UInt32, UInt32).self).pointee
                        let number: Double? = type == float && size == 4 ? Double(value.load(as: Float.self))
                            : type == double && size == 8 ? value.load(as: Double.self) : type == int && size == 4 ? Double(value.load(as: Int32.self)) : nil
                        if let number { Unmanaged<Collected>.fromOpaque(box).takeUnretainedValue().values[String(cString: symbol)] = number }
                    }, UnsafeMutableRawPointer(mutating: pointer))
                }
            }
            return true
        }
        guard loaded else { throw LV2Error(.file, "\(plugin.name)'s preset '\(preset.label)' (\(preset.uri)) cannot be read") }
        return collected.values
    }

    /// An instance of `plugin` at `sampleRate` with `features`; throws one line when it cannot
    /// be made. Control thread.
    func instantiate(_ plugin: LV2PluginInfo, sampleRate: Int, features: LV2Features) throws(LV2Error) -> UnsafeMutablePointer<LilvInstance> {
        var made: UnsafeMutablePointer<LilvInstance>?
        lock.withLock { _ in
            let uri = lilv_new_uri(world, plugin.uri)
            defer { lilv_node_free(uri) }
            guard let lilvPlugin = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), uri) else { return }
            made = lilv_plugin_instantiate(lilvPlugin, Double(sampleRate), features.list)
        }
        guard let made else { throw LV2Error(.file, "LV2 plugin '\(plugin.name)' (\(plugin.uri)) failed to instantiate at \(sampleRate) Hz") }
        return made
    }

    /// Frees `instance` under the world's lock: lilv counts each plugin library's instances in
    /// the world and closes the library with its last, so a free beside another thread's
    /// instantiate could close a library still in use. Control thread.
    package func free(_ instance: UnsafeMutablePointer<LilvInstance>) {
        lock.withLock { _ in lilv_instance_free(instance) }
    }

    private static func describe(_ world: OpaquePointer) -> [LV2PluginInfo] {
        func uri(_ text: String) -> OpaquePointer { lilv_new_uri(world, text) }
        let input = uri("http://lv2plug.in/ns/lv2core#InputPort"), audio = uri("http://lv2plug.in/ns/lv2core#AudioPort")
        let control = uri("http://lv2plug.in/ns/lv2core#ControlPort"), cv = uri("http://lv2plug.in/ns/lv2core#CVPort")
        let atom = uri("http://lv2plug.in/ns/ext/atom#AtomPort"), optional = uri("http://lv2plug.in/ns/lv2core#connectionOptional")
        let hardRT = uri("http://lv2plug.in/ns/lv2core#hardRTCapable"), preset = uri("http://lv2plug.in/ns/ext/presets#Preset")
        let label = uri("http://www.w3.org/2000/01/rdf-schema#label"), midi = uri("http://lv2plug.in/ns/ext/midi#MidiEvent")
        let sideChain = uri("http://lv2plug.in/ns/lv2core#isSideChain")
        let group = uri("http://lv2plug.in/ns/ext/port-groups#group"), sideChainOf = uri("http://lv2plug.in/ns/ext/port-groups#sideChainOf")
        let type = uri("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
        let portGroups = "http://lv2plug.in/ns/ext/port-groups#"
        let designation = uri("http://lv2plug.in/ns/lv2core#designation"), mainOutput = uri(portGroups + "mainOutput")
        defer {
            for node in [input, audio, control, cv, atom, optional, hardRT, preset, label, midi, sideChain, group, sideChainOf, type, designation, mainOutput] {
                lilv_node_free(node)
            }
        }
        /// Whether `port` of `plugin` is a key: it says so, or its port group is a side chain of another (LSP's sc_ plugins).
        func isKey(_ plugin: OpaquePointer, _ port: OpaquePointer?) -> Bool {
            if lilv_port_has_property(plugin, port, sideChain) { return true }
            guard let portGroup = lilv_port_get(plugin, port, group) else { return false }
            defer { lilv_node_free(portGroup) }
            let of = lilv_world_find_nodes(world, portGroup, sideChainOf, nil)
            defer { lilv_nodes_free(of) }
            return of.map { lilv_nodes_get_first($0) != nil } ?? false
        }
        var result: [LV2PluginInfo] = []
        let all = lilv_world_get_all_plugins(world)
        var iterator = lilv_plugins_begin(all)
        while !lilv_plugins_is_end(all, iterator) {
            defer { iterator = lilv_plugins_next(all, iterator) }
            guard let plugin = lilv_plugins_get(all, iterator) else { continue }
            let count = Int(lilv_plugin_get_num_ports(plugin))
            var minimums = [Float](repeating: .nan, count: count), maximums = minimums, defaults = minimums
            lilv_plugin_get_port_ranges_float(plugin, &minimums, &maximums, &defaults)
            let mainGroup = lilv_world_find_nodes(world, lilv_plugin_get_uri(plugin), mainOutput, nil)
            defer { lilv_nodes_free(mainGroup) }
            let mainGroupURI = mainGroup.flatMap { lilv_nodes_get_first($0) }.map { string($0) }
            let ports = (0..<count).map { index -> LV2Port in
                let port = lilv_plugin_get_port_by_index(plugin, UInt32(index))
                /// The URI of the port's `property`, if it has one.
                func uri(of property: OpaquePointer) -> String? {
                    guard let node = lilv_port_get(plugin, port, property) else { return nil }
                    defer { lilv_node_free(node) }
                    return string(node)
                }
                let designated = uri(of: designation)
                let kind: LV2Port.Kind = lilv_port_is_a(plugin, port, audio) ? .audio : lilv_port_is_a(plugin, port, control) ? .control
                    : lilv_port_is_a(plugin, port, atom) ? .atom : lilv_port_is_a(plugin, port, cv) ? .cv : .other
                let name = lilv_port_get_name(plugin, port)
                defer { lilv_node_free(name) }
                return LV2Port(index: index, symbol: string(lilv_port_get_symbol(plugin, port)), name: string(name), kind: kind,
                               isInput: lilv_port_is_a(plugin, port, input), isOptional: lilv_port_has_property(plugin, port, optional),
                               carriesMIDI: kind == .atom && lilv_port_supports_event(plugin, port, midi),
                               isSideChain: kind == .audio && isKey(plugin, port),
                               side: designated == portGroups + "left" ? .left : designated == portGroups + "right" ? .right : nil,
                               isMainOutput: mainGroupURI != nil && uri(of: group) == mainGroupURI,
                               minimum: minimums[index], maximum: maximums[index], defaultValue: defaults[index],
                               scalePoints: kind == .control ? scalePoints(plugin, port) : [])
            }
            let required = lilv_plugin_get_required_features(plugin)
            let optionalFeatures = lilv_plugin_get_optional_features(plugin)
            let features = strings(required)
            let hard = lilv_nodes_contains(optionalFeatures, hardRT) || lilv_nodes_contains(required, hardRT)
            lilv_nodes_free(required)
            lilv_nodes_free(optionalFeatures)
            var presets: [LV2Preset] = []
            if let related = lilv_plugin_get_related(plugin, preset) {
                var at = lilv_nodes_begin(related)
                while !lilv_nodes_is_end(related, at) {
                    if let node = lilv_nodes_get(related, at) {
                        lilv_world_load_resource(world, node)
                        let labels = lilv_world_find_nodes(world, node, label, nil)
                        let text = labels.flatMap { lilv_nodes_get_first($0) }.map { string($0) } ?? string(node)
                        lilv_nodes_free(labels)
                        presets.append(LV2Preset(label: text, uri: string(node)))
                    }
                    at = lilv_nodes_next(related, at)
                }
                lilv_nodes_free(related)
            }
            let name = lilv_plugin_get_name(plugin)
            defer { lilv_node_free(name) }
            let className = lilv_plugin_class_get_label(lilv_plugin_get_class(plugin)).map { string($0) } ?? ""
            // Its rdf:type read directly: a world that has not loaded lv2core (a check's, with
            // one bundle on LV2_PATH) does not know the class's hierarchy.
            var classes: Set<String> = []
            if let types = lilv_world_find_nodes(world, lilv_plugin_get_uri(plugin), type, nil) {
                var at = lilv_nodes_begin(types)
                while !lilv_nodes_is_end(types, at) {
                    if let node = lilv_nodes_get(types, at) { classes.insert(string(node)) }
                    at = lilv_nodes_next(types, at)
                }
                lilv_nodes_free(types)
            }
            var bundle = string(lilv_plugin_get_bundle_uri(plugin))
            if bundle.hasPrefix("file://") { bundle.removeFirst(7) }
            while bundle.hasSuffix("/") { bundle.removeLast() }
            result.append(LV2PluginInfo(uri: string(lilv_plugin_get_uri(plugin)), name: string(name), className: className, classes: classes, ports: ports,
                                        requiredFeatures: features, isHardRealTime: hard, presets: presets.sorted { $0.label < $1.label },
                                        bundle: bundle, latencyPort: lilv_plugin_has_latency(plugin) ? Int(lilv_plugin_get_latency_port_index(plugin)) : nil))
        }
        return result.sorted { ($0.name.lowercased(), $0.uri) < ($1.name.lowercased(), $1.uri) }
    }
}

/// The scale points of `plugin`'s `port`, in value order.
private func scalePoints(_ plugin: OpaquePointer, _ port: OpaquePointer?) -> [LV2ScalePoint] {
    guard let points = lilv_port_get_scale_points(plugin, port) else { return [] }
    defer { lilv_scale_points_free(points) }
    var result: [LV2ScalePoint] = []
    var at = lilv_scale_points_begin(points)
    while !lilv_scale_points_is_end(points, at) {
        if let point = lilv_scale_points_get(points, at) {
            result.append(LV2ScalePoint(value: lilv_node_as_float(lilv_scale_point_get_value(point)), label: string(lilv_scale_point_get_label(point))))
        }
        at = lilv_scale_points_next(points, at)
    }
    return result.sorted { ($0.value, $0.label) < ($1.value, $1.label) }
}

/// A node's text (a URI's, a string's), empty for none.
func string(_ node: OpaquePointer?) -> String {
    guard let node, let text = lilv_node_as_string(node) else { return "" }
    return String(cString: text)
}

/// The texts of a node collection.
func strings(_ nodes: UnsafeRawPointer?) -> [String] {
    guard let nodes else { return [] }
    var result: [String] = []
    var at = lilv_nodes_begin(nodes)
    while !lilv_nodes_is_end(nodes, at) {
        result.append(string(lilv_nodes_get(nodes, at)))
        at = lilv_nodes_next(nodes, at)
    }
    return result
}
