import CPianola
import Pianola

// The C functions of interactive music: transition rules and game parameters. Each only
// translates to `Soundtrack` (see pianola.h).

/// A C string that may be NULL, as Swift.
private func optional(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }

/// A place for a rule: any, a song, or a section of one.
private func place(_ song: OpaquePointer?, _ section: UnsafePointer<CChar>?) throws(APIError) -> Soundtrack.Place {
    guard let song else {
        guard section == nil else { throw .argument("a section needs its song (the song handle is NULL)") }
        return .any
    }
    let loaded = try object(song, .song, as: Soundtrack.Song.self, "pianola_song")
    return optional(section).map { .section(loaded, $0) } ?? .song(loaded)
}

/// pianola_set_transition: a rule for a (from, to) pair. Any thread.
@_cdecl("pianola_set_transition")
public func pianolaSetTransition(_ handle: OpaquePointer?, _ rule: UnsafePointer<pianola_transition_rule>?, _ fromSong: OpaquePointer?,
                                 _ fromSection: UnsafePointer<CChar>?, _ toSong: OpaquePointer?, _ toSection: UnsafePointer<CChar>?) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        let c = try required(rule, "rule").pointee
        let entry: Soundtrack.Transition.Entry
        switch Int(c.entry) {
        case PIANOLA_ENTER_SECTION_START: entry = .sectionStart
        case PIANOLA_ENTER_SAME_POSITION: entry = .samePosition
        case PIANOLA_ENTER_AT_CUE: entry = .cue(try string(c.entry_cue, "entry_cue"))
        default: throw APIError.argument("entry \(c.entry): use PIANOLA_ENTER_SECTION_START, PIANOLA_ENTER_SAME_POSITION or PIANOLA_ENTER_AT_CUE")
        }
        let shape: Soundtrack.FadeShape
        switch Int(c.fade_shape) {
        case PIANOLA_FADE_LINEAR: shape = .linear
        case PIANOLA_FADE_EQUAL_POWER: shape = .equalPower
        default: throw APIError.argument("fade_shape \(c.fade_shape): use PIANOLA_FADE_LINEAR or PIANOLA_FADE_EQUAL_POWER")
        }
        let segment = try c.segment.map { song throws(APIError) in Soundtrack.Transition.Segment(try loadedSong(song), section: optional(c.segment_section)) }
        let transition = Soundtrack.Transition(name: try string(c.name, "rule name"), leave: try moment(c.leave, c.leave_marker), segment: segment,
                                               fadeOut: c.fade_out, fadeIn: c.fade_in, fadeShape: shape, entry: entry)
        try soundtrack.setTransition(transition, from: try place(fromSong, fromSection), to: try place(toSong, toSection))
    }
}

/// pianola_transition: the music to a song or section, by its rule. Any thread.
@_cdecl("pianola_transition")
public func pianolaTransition(_ handle: OpaquePointer?, _ song: OpaquePointer?, _ section: UnsafePointer<CChar>?) -> pianola_status {
    status { try soundtrack(handle).transition(to: try loadedSong(song), section: optional(section)) }
}

/// pianola_define_parameter: a game parameter and its range. Any thread.
@_cdecl("pianola_define_parameter")
public func pianolaDefineParameter(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ minimum: Double, _ maximum: Double, _ value: Double) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        let name = try string(name, "name")
        guard minimum.isFinite, maximum.isFinite, minimum < maximum else { throw APIError.argument("parameter '\(name)': minimum \(minimum) must be below maximum \(maximum), both finite") }
        try soundtrack.defineParameter(name, range: minimum...maximum, value: value)
    }
}

/// pianola_map_parameter: a parameter driving a target along a curve. Any thread.
@_cdecl("pianola_map_parameter")
public func pianolaMapParameter(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ target: pianola_parameter_target,
                                _ names: UnsafePointer<UnsafePointer<CChar>?>?, _ nameCount: Int, _ controller: Int32, _ channels: UInt16,
                                _ xs: UnsafePointer<Double>?, _ ys: UnsafePointer<Double>?, _ count: Int) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        let name = try string(name, "name")
        guard (1...1024).contains(count) else { throw APIError.argument("count \(count): give 1 to 1024 points") }
        let (xs, ys) = (try required(xs, "xs"), try required(ys, "ys"))
        guard (0...1024).contains(nameCount), nameCount == 0 || names != nil else { throw APIError.argument("names: give 0 to 1024 names, not NULL") }
        let given = try (0..<nameCount).map { i throws(APIError) in try string(names![i], "names[\(i)]") }
        let mapped: Soundtrack.ParameterTarget
        switch Int(target) {
        case PIANOLA_TARGET_LAYER_VOLUME:
            guard let layer = given.first else { throw APIError.argument("PIANOLA_TARGET_LAYER_VOLUME needs the layer's name in names[0]") }
            mapped = .layerVolume(layer)
        case PIANOLA_TARGET_TEMPO: mapped = .tempo
        case PIANOLA_TARGET_CONTROLLER: mapped = .controller(Int(controller), channels: (1...16).filter { channels & (1 << ($0 - 1)) != 0 })
        case PIANOLA_TARGET_TRANSPOSE: mapped = .transpose
        case PIANOLA_TARGET_NEXT_SECTION: mapped = .nextSection(given)
        default: throw APIError.argument("target \(target): use one of the PIANOLA_TARGET_ values")
        }
        try soundtrack.mapParameter(name, to: mapped, curve: Soundtrack.ParameterCurve((0..<count).map { (xs[$0], ys[$0]) }))
    }
}

/// pianola_set_parameter: a parameter to a value over a glide. Any thread.
@_cdecl("pianola_set_parameter")
public func pianolaSetParameter(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: Double, _ seconds: Double) -> pianola_status {
    status { try soundtrack(handle).setParameter(try string(name, "name"), to: value, seconds: seconds) }
}

/// pianola_get_parameter: where a parameter stands. Any thread.
@_cdecl("pianola_get_parameter")
public func pianolaGetParameter(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<Double>?) -> pianola_status {
    status {
        let (soundtrack, out, name) = (try soundtrack(handle), try required(value, "value"), try string(name, "name"))
        guard let standing = soundtrack.parameter(name) else { throw APIError.argument("no parameter '\(name)'") }
        out.pointee = standing
    }
}
