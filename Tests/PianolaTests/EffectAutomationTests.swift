import Foundation
@testable import Pianola
import Testing

@Suite("Effect automation: a song's parameter events moving its effects' parameters")
struct EffectAutomationTests {
    /// Sets parameter `parameter` of the song's effect `effect` at `tick`.
    static func set(_ tick: Int, effect: Int, parameter: Int, _ value: Float, _ curve: ParameterEvent.Curve = .jump,
                    on target: ParameterEvent.Target = .output) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(ParameterEvent(target: target, parameter: .effect(effect, parameter: parameter), value: value, curve: curve).meta))
    }

    /// 120 bpm, 480 ticks a quarter (tick 480 is frame 24,000): no notes, and the low shelf's
    /// gain (effect 1 of the song's chain, after a 0 dB peak; parameter 2) automated: 0 dB
    /// from the start, -20 dB at tick 480, held, then a line back to 0 dB from tick 960 to tick 1,440.
    static func song() -> MusicSequence {
        MusicSequence(division: .ticksPerQuarter(480), tracks: [
            MusicTrack(name: "Automation", events: [
                set(0, effect: 1, parameter: 2, 0),
                set(480, effect: 1, parameter: 2, -20),
                set(960, effect: 1, parameter: 2, -20),
                set(1_440, effect: 1, parameter: 2, 0, .linear),
            ], length: 2_400),
        ])
    }

    /// The song rendered with a constant 0.5 (a WAV) through the chain, from `from` (a tick).
    static func render(from: Int = 0) throws -> [Float] {
        let fixture = try SoundtrackFixture()
        var settings = SongGraph.Settings()
        settings.reverb = false
        settings.chorus = false
        settings.tailSeconds = 0
        settings.fromTick = from
        settings.audioFiles = [.init(path: try fixture.writeWAV([Float](repeating: 0.5, count: 144_000), as: "level.wav"))]
        settings.effects = [try EffectSpec("peak,gain=0"), try EffectSpec("lowshelf,frequency=200")]
        let renderer = try SongRenderer(sequence: song(), soundFontPath: SoundtrackFixture.testFont, settings: settings)
        var out: [Float] = []
        renderer.render(sliceFrames: 1_000) { slice, _ in out += (0..<slice.frames).map { slice.left[$0] } }
        return out
    }

    @Test("a jump lands on its frame, a held value holds, a line glides back, and a render from the middle starts where the automation stands")
    func jumpHoldLineAndChase() throws {
        let out = try Self.render()
        #expect(out.count >= 96_000)
        #expect(out[..<24_000].allSatisfy { abs($0 - 0.5) < 1e-6 }, "0 dB until frame 24,000")
        #expect(out[24_000] < 0.5 - 1e-4, "frame 24,000 is the first turned down: \(out[24_000])")
        #expect(abs(out[47_999] - 0.05) < 1e-3, "-20 dB at 0 Hz: 0.05 (\(out[47_999]))")
        let middle = out[60_000], end = out[out.count - 1]
        print("effect automation: \(out[23_999]) before the jump, \(out[47_999]) held, \(middle) half-way up the line, \(end) after it")
        #expect(middle > 0.1 && middle < 0.25, "half-way along the line from -20 dB to 0 dB: about -10 dB (\(middle))")
        #expect(abs(end - 0.5) < 1e-3, "back to 0 dB after the line")
        // From tick 720 (frame 36,000 of the song), the shelf already stands at -20 dB.
        let chased = try Self.render(from: 720)
        #expect(abs(chased[2_000] - 0.05) < 1e-3, "chased to -20 dB at the start: \(chased[2_000])")
    }

    @Test("an effect's parameter event keeps its effect and parameter through a Standard MIDI File; volume and pan events keep their 11 bytes")
    func storedInTheFile() {
        let event = ParameterEvent(target: .input(3), parameter: .effect(2, parameter: 7), value: -12.5, curve: .linear)
        guard case .sequencerSpecific(let bytes) = event.meta else { Issue.record("not a sequencer-specific meta event"); return }
        #expect(bytes.count == 13)
        #expect(ParameterEvent(event.meta) == event)
        #expect(ParameterEvent(target: .output, parameter: .pan, value: -0.5).meta == .sequencerSpecific([0x7D, 0x50, 0x4E, 0x4C, 255, 1, 0, 0xBF, 0, 0, 0]))
        #expect(ParameterEvent(.sequencerSpecific(Array(bytes.prefix(11)))) == nil, "an effect's event cut short is no event")
    }
}
