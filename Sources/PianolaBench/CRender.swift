import AllocationCounter
import CPianola
import Foundation
import Pianola
import PianolaC

/// CPU seconds the calling thread has used.
private func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The C render call (`pianola_render_f32`) against the Swift one (`Soundtrack.render(interleaved:)`):
/// two soundtracks play `song` with `font` in lockstep, pulled in 512-frame cycles, in 12
/// interleaved rounds of 300 cycles each (which goes first alternates), timed by this thread's
/// CPU clock. Then the C call's heap allocations per cycle.
func cRenderBenchmark(song: String, font: String) throws -> [Figure] {
    let swiftSide = Soundtrack()
    let loaded = swiftSide.startLoading(.init(midiPath: song, soundFontPath: font))
    try loaded.wait()
    try swiftSide.play(loaded)

    var config = pianola_soundtrack_config(), songConfig = pianola_song_config()
    var cSide: OpaquePointer?, cSong: OpaquePointer?
    _ = pianolaSoundtrackConfigInit(&config)
    _ = pianolaSoundtrackCreate(&config, &cSide)
    _ = pianolaSongConfigInit(&songConfig)
    song.withCString { midi in
        font.withCString { font in
            songConfig.midi.path = midi
            songConfig.soundfont.path = font
            _ = pianolaSongLoad(cSide, &songConfig, &cSong)
        }
    }
    guard pianolaSongWait(cSong) == 0, pianolaPlay(cSide, cSong, pianola_moment(PIANOLA_NOW), nil, 0, 0) == 0 else {
        throw CRenderFailure(message: String(cString: pianolaLastError()))
    }
    defer { _ = pianolaSoundtrackDestroy(cSide) }

    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
    defer { buffer.deallocate() }
    func swiftCycles(_ n: Int) -> Double {
        let start = threadCPUSeconds()
        for _ in 0..<n { swiftSide.render(interleaved: buffer, frameCount: 512) }
        return threadCPUSeconds() - start
    }
    func cCycles(_ n: Int) -> Double {
        let start = threadCPUSeconds()
        for _ in 0..<n { _ = pianolaRenderF32(cSide, buffer, 512) }
        return threadCPUSeconds() - start
    }
    _ = swiftCycles(100)
    _ = cCycles(100)
    var ratios: [Double] = [], swiftTotal = 0.0, cTotal = 0.0
    for round in 0..<12 {
        let (s, c) = round % 2 == 0 ? (swiftCycles(300), cCycles(300)) : ({ let c = cCycles(300); return (swiftCycles(300), c) })()
        ratios.append(c / s)
        swiftTotal += s
        cTotal += c
    }
    ratios.sort()
    let median = (ratios[5] + ratios[6]) / 2
    pianola_allocations_start()
    for _ in 0..<2_000 { _ = pianolaRenderF32(cSide, buffer, 512) }
    let allocations = pianola_allocations_stop()
    print(String(format: "C render: %@, %@: %.1f µs per 512-frame cycle in C, %.1f µs in Swift; C/Swift median %.3f (%.3f–%.3f over 12 rounds); %d allocations in 2,000 C cycles",
                 song, font, cTotal / 3600 * 1e6, swiftTotal / 3600 * 1e6, median, ratios.first!, ratios.last!, allocations))
    return [
        Figure(measure: "C render call / Swift render call, CPU per 512-frame cycle", value: String(format: "%.3f (%.3f–%.3f)", median, ratios.first!, ratios.last!)),
        Figure(measure: "heap allocations per C render cycle (steady state)", value: String(format: "%.3f", Double(allocations) / 2_000)),
    ]
}

/// The C API refused to set the benchmark up: its last error.
struct CRenderFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
