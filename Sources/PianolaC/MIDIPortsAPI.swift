import ALSA
import CPianola
import MIDI
import Pianola

// The sequencer's ports from C: listing them, and a song played to them (routes, clock and
// timecode out, a clock followed). Each only translates (see pianola.h).

/// pianola_midi_ports: every port but Pianola's own. Any thread.
@_cdecl("pianola_midi_ports")
public func pianolaMIDIPorts(_ ports: UnsafeMutablePointer<pianola_midi_port>?, _ capacity: Int, _ count: UnsafeMutablePointer<Int>?) -> pianola_status {
    status {
        let listed = {
            let client = try SequencerClient()
            return client.ports().filter { $0.client != client.clientID }
        }
        try fill(ports, capacity: capacity, count: count, "ports", limit: 1 << 16, with: listed) { port in
            var c = pianola_midi_port()
            withUnsafeMutableBytes(of: &c.address) { copy(port.address, into: $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity: $0.count) }
            withUnsafeMutableBytes(of: &c.client) { copy(port.clientName, into: $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity: $0.count) }
            withUnsafeMutableBytes(of: &c.name) { copy(port.name, into: $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity: $0.count) }
            (c.receives, c.sends, c.kernel) = (port.acceptsEvents ? 1 : 0, port.sendsEvents ? 1 : 0, port.isKernel ? 1 : 0)
            return c
        }
    }
}

/// pianola_midi_config_init: nothing to any port. Any thread.
@_cdecl("pianola_midi_config_init")
public func pianolaMIDIConfigInit(_ config: UnsafeMutablePointer<pianola_midi_config>?) -> pianola_status {
    status { try initialize(config, "config", to: pianola_midi_config(), size: \.struct_size).pointee.timecode_rate = 30 }
}

/// `count` C strings at `strings`, the field `what`.
private func strings(_ strings: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ what: String) throws(APIError) -> [String] {
    guard count == 0 || strings != nil, (0...1024).contains(count) else { throw .argument("\(what): give \(what.dropLast(1))_count (0 to 1024) strings") }
    return try (0..<count).map { i throws(APIError) in try string(strings![i], "\(what)[\(i)]") }
}

/// A MIDI config as the plan it asks for, for a song of `trackCount` tracks.
private func plan(_ config: UnsafePointer<pianola_midi_config>?, trackCount: Int) throws -> MIDIPortPlan {
    let c = try required(config, "midi").pointee
    try checkSize(c.struct_size, of: "pianola_midi_config", is: MemoryLayout<pianola_midi_config>.size)
    var plan = MIDIPortPlan()
    plan.port = c.port.map { String(cString: $0) }
    let routes = try strings(c.routes, c.route_count, "routes")
    plan.routes = try routes.enumerated().map { i, text throws(MIDIPortError) in try MIDIPortPlan.route(text, trackCount: trackCount, option: "routes[\(i)]") }
    plan.clock = try strings(c.clock_ports, c.clock_port_count, "clock_ports")
    plan.timecode = try strings(c.timecode_ports, c.timecode_port_count, "timecode_ports")
    let rates: [Int32: SMPTERate] = [24: .fps24, 25: .fps25, 2997: .fps29_97Drop, 30: .fps30]
    guard let rate = rates[c.timecode_rate] else { throw APIError.argument("timecode_rate \(c.timecode_rate): use 24, 25, 2997 (29.97 drop-frame) or 30") }
    plan.timecodeRate = rate
    plan.follow = c.follow_port.map { String(cString: $0) }
    return plan
}

/// pianola_play_file_midi: a song once, with MIDI ports. Any thread.
@_cdecl("pianola_play_file_midi")
public func pianolaPlayFileMIDI(_ config: UnsafePointer<pianola_render_config>?, _ midi: UnsafePointer<pianola_midi_config>?,
                                _ driver: pianola_driver, _ device: UnsafePointer<CChar>?) -> pianola_status {
    status {
        let driver = try audioDriver(driver)
        let request = try request(config)
        let font = try request.playableFont()
        let plan = try plan(midi, trackCount: request.sequence.tracks.count)
        let ports = try MIDIPorts.open(client: SequencerClient(), sampleRate: request.settings.sampleRate, plan: plan)
        try SongGraph.playThrough(request.sequence, soundFont: font, settings: request.settings, ports: ports, driver: driver,
                                  device: device.map { String(cString: $0) })
    }
}
