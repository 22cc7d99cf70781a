import CPianola
import Pianola

// The effects' C functions: effects on the soundtrack's buses, their parameters, bypass, and
// game parameters driving them. Each only translates to `Soundtrack` (see pianola.h).

/// The bus a C code names.
func busNamed(_ code: pianola_bus, _ what: String) throws(APIError) -> Soundtrack.Bus {
    switch Int(code) {
    case PIANOLA_BUS_MASTER: return .master
    case PIANOLA_BUS_MUSIC: return .music
    case PIANOLA_BUS_SOUNDS: return .sounds
    case PIANOLA_BUS_AUX: return .aux
    default: throw APIError.argument("\(what) \(code): use PIANOLA_BUS_MASTER, PIANOLA_BUS_MUSIC, PIANOLA_BUS_SOUNDS or PIANOLA_BUS_AUX")
    }
}

/// Effect `id` on the bus `code` names.
func busEffect(_ soundtrack: Soundtrack, _ code: pianola_bus, _ id: Int32) throws(APIError) -> Soundtrack.BusEffect {
    let bus = try busNamed(code, "bus")
    let effects = soundtrack.effects(on: bus)
    guard let effect = effects.first(where: { $0.id == Int(id) }) else {
        throw APIError.argument("effect \(id) is not on the \(bus.rawValue) bus (it has \(effects.isEmpty ? "none" : effects.map { String($0.id) }.joined(separator: ", ")))")
    }
    return effect
}

/// pianola_add_effect: an effect at the end of a bus's chain. Any thread.
@_cdecl("pianola_add_effect")
public func pianolaAddEffect(_ handle: OpaquePointer?, _ bus: pianola_bus, _ spec: UnsafePointer<CChar>?, _ key: pianola_bus,
                             _ effectID: UnsafeMutablePointer<Int32>?) -> pianola_status {
    status {
        let (soundtrack, out, text) = (try soundtrack(handle), try required(effectID, "effect_id"), try string(spec, "spec"))
        let keyBus = Int(key) == PIANOLA_BUS_NONE ? nil : try busNamed(key, "key")
        out.pointee = Int32(try soundtrack.addEffect(try EffectSpec(text), on: try busNamed(bus, "bus"), keyedBy: keyBus).id)
    }
}

/// pianola_set_effect_parameter: an effect's parameter to a value over a glide. Any thread.
@_cdecl("pianola_set_effect_parameter")
public func pianolaSetEffectParameter(_ handle: OpaquePointer?, _ bus: pianola_bus, _ id: Int32, _ parameter: UnsafePointer<CChar>?,
                                      _ value: Double, _ seconds: Double) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        try soundtrack.setEffectParameter(try busEffect(soundtrack, bus, id), try string(parameter, "parameter"), to: value, seconds: seconds)
    }
}

/// pianola_set_send: a bus's send into the aux bus. Any thread.
@_cdecl("pianola_set_send")
public func pianolaSetSend(_ handle: OpaquePointer?, _ bus: pianola_bus, _ level: Float) -> pianola_status {
    status { try soundtrack(handle).setSend(from: try busNamed(bus, "bus"), level: level) }
}

/// pianola_set_effect_bypassed: an effect bypassed or back. Any thread.
@_cdecl("pianola_set_effect_bypassed")
public func pianolaSetEffectBypassed(_ handle: OpaquePointer?, _ bus: pianola_bus, _ id: Int32, _ bypassed: Int32) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        try soundtrack.setEffectBypassed(try busEffect(soundtrack, bus, id), bypassed != 0)
    }
}

/// pianola_remove_effect: an effect taken off its bus. Any thread.
@_cdecl("pianola_remove_effect")
public func pianolaRemoveEffect(_ handle: OpaquePointer?, _ bus: pianola_bus, _ id: Int32) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        try soundtrack.removeEffect(try busEffect(soundtrack, bus, id))
    }
}

/// pianola_map_parameter_to_effect: a game parameter driving an effect's parameter along a curve. Any thread.
@_cdecl("pianola_map_parameter_to_effect")
public func pianolaMapParameterToEffect(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ bus: pianola_bus, _ id: Int32,
                                        _ parameter: UnsafePointer<CChar>?, _ xs: UnsafePointer<Double>?, _ ys: UnsafePointer<Double>?,
                                        _ count: Int) -> pianola_status {
    status {
        let soundtrack = try soundtrack(handle)
        let (name, parameter) = (try string(name, "name"), try string(parameter, "parameter"))
        guard (1...1024).contains(count) else { throw APIError.argument("count \(count): give 1 to 1024 points") }
        let (xs, ys) = (try required(xs, "xs"), try required(ys, "ys"))
        try soundtrack.mapParameter(name, to: .effect(try busEffect(soundtrack, bus, id), parameter: parameter),
                                    curve: Soundtrack.ParameterCurve((0..<count).map { (xs[$0], ys[$0]) }))
    }
}
