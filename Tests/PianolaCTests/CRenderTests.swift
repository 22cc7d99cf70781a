import AllocationCounter
import CPianola
import Foundation
import PianolaC
import Testing

/// The C API driven from Swift through its exported functions, as a C program calls them.
@Suite("The C library's render calls")
struct CRenderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A soundtrack made through the C API, playing ode-to-joy with the project's GM font.
    static func playingSoundtrack() throws -> OpaquePointer? {
        var config = pianola_soundtrack_config()
        #expect(pianolaSoundtrackConfigInit(&config) == 0)
        var soundtrack: OpaquePointer?
        #expect(pianolaSoundtrackCreate(&config, &soundtrack) == 0)
        var songConfig = pianola_song_config()
        #expect(pianolaSongConfigInit(&songConfig) == 0)
        var song: OpaquePointer?
        let midi = root.appendingPathComponent("songs/ode-to-joy.mid").path, font = root.appendingPathComponent("soundfonts/pianola-gm.sf2").path
        midi.withCString { midi in
            font.withCString { font in
                songConfig.midi.path = midi
                songConfig.soundfont.path = font
                #expect(pianolaSongLoad(soundtrack, &songConfig, &song) == 0)
            }
        }
        #expect(pianolaSongWait(song) == 0)
        #expect(pianolaPlay(soundtrack, song, pianola_moment(PIANOLA_NOW), nil, 0, 0) == 0)
        #expect(pianolaSongDestroy(song) == 0)
        return soundtrack
    }

    @Test("pianola_render_f32, _s16 and _planar allocate nothing per cycle after warm-up, and sound")
    func noAllocations() throws {
        let soundtrack = try Self.playingSoundtrack()
        defer { _ = pianolaSoundtrackDestroy(soundtrack) }
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: 1024), shorts = UnsafeMutablePointer<Int16>.allocate(capacity: 1024)
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 512), right = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { floats.deallocate(); shorts.deallocate(); left.deallocate(); right.deallocate() }
        for _ in 0..<100 { #expect(pianolaRenderF32(soundtrack, floats, 512) == 0) }
        var allocations = 0, loudest: Float = 0
        for cycle in 0..<1_500 {
            pianola_allocations_start()
            let status: Int32
            switch cycle % 3 {
            case 0: status = pianolaRenderF32(soundtrack, floats, 512)
            case 1: status = pianolaRenderS16(soundtrack, shorts, 512)
            default: status = pianolaRenderPlanar(soundtrack, left, right, 512)
            }
            allocations += pianola_allocations_stop()
            #expect(status == 0)
            if cycle % 3 == 0 { loudest = max(loudest, (0..<1024).map { abs(floats[$0]) }.max()!) }
        }
        print("C render allocations: \(allocations) in 1,500 cycles of 512 frames (libgomp apart)")
        #expect(allocations == 0)
        #expect(loudest > 0.01)
    }
}
