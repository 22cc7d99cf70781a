import TestSupport
import Testing
@testable import MIDI

@Suite("Tempo map, bar:beat and SMPTE conversions")
struct TimeConversionTests {
    @Test("ticks ↔ seconds ↔ frames ↔ beats at 120 bpm, and a tempo change exactly on a beat")
    func tempoChangeOnBeat() {
        // 480 ticks per quarter; 120 bpm, then 60 bpm from beat 4 (tick 1920).
        let map = TempoMap(division: .ticksPerQuarter(480), tempoChanges: [(0, 500_000), (1920, 1_000_000)])
        #expect(map.seconds(atTick: 480) == 0.5)
        #expect(map.seconds(atTick: 1920) == 2.0)
        #expect(map.seconds(atTick: 2400) == 3.0)
        #expect(map.sampleFrame(atTick: 1920, sampleRate: 48_000) == 96_000)
        #expect(map.sampleFrame(atTick: 2400, sampleRate: 44_100) == 132_300)
        #expect(map.tick(atSeconds: 2.0) == 1920)
        #expect(map.tick(atSeconds: 2.5) == 2160)
        #expect(map.beats(atTick: 2160) == 4.5)
        #expect(map.tick(atBeats: 4.5) == 2160)
        #expect(map.segment(atTick: 1919).beatsPerMinute == 120)
        #expect(map.segment(atTick: 1920).beatsPerMinute == 60)
        // A tick's frame is rounded to nearest: tick 1 at 120 bpm/480 = 50 frames at 48 kHz.
        #expect(map.sampleFrame(atTick: 1, sampleRate: 48_000) == 50)
        #expect(map.sampleFrame(atTick: 1, sampleRate: 44_100) == 46)   // 45.9375
    }

    @Test("frames → tick is the inverse of tick → frames at every frame")
    func frameRoundTrip() {
        let map = TempoMap(division: .ticksPerQuarter(96), tempoChanges: [(0, 612_345), (100, 333_333), (250, 1_234_567)])
        for rate in [44_100, 48_000, 96_000] {
            var tick = 0
            for frame in Int64(0)...Int64(map.sampleFrame(atTick: 400, sampleRate: rate)) {
                while map.sampleFrame(atTick: tick + 1, sampleRate: rate) <= frame { tick += 1 }
                #expect(map.tick(atSampleFrame: frame, sampleRate: rate) == tick)
                if map.tick(atSampleFrame: frame, sampleRate: rate) != tick { return }
            }
        }
    }

    @Test("no drift after 10,000 tempo changes: each tick's time equals the exact rational sum")
    func noDrift() {
        var changes: [(tick: Int, microsecondsPerQuarter: Int)] = []
        var generator = SplitMix(seed: 42)
        var tick = 0
        for _ in 0..<10_000 {
            tick += Int(generator.next() % 500) + 1
            changes.append((tick, Int(generator.next() % 1_500_000) + 200_000))
        }
        let map = TempoMap(division: .ticksPerQuarter(960), tempoChanges: changes)
        // Exact: µs × 960 summed segment by segment, in integers.
        var units = 0, lastTick = 0, tempo = 500_000
        for change in changes {
            units += (change.tick - lastTick) * tempo
            lastTick = change.tick
            tempo = change.microsecondsPerQuarter
        }
        let end = lastTick + 12_345
        units += 12_345 * tempo
        let exactFrames = (units * 48_000 * 2 + 960_000_000) / (960_000_000 * 2)   // round half up
        #expect(map.sampleFrame(atTick: end, sampleRate: 48_000) == Int64(exactFrames))
        // Reached segment by segment or directly, the same answer.
        let viaSegments = map.segments.last!.startUnits + (end - map.segments.last!.tick) * map.segments.last!.unitsPerTick
        #expect(viaSegments == units)
        #expect(map.tick(atSampleFrame: Int64(exactFrames), sampleRate: 48_000) >= end)
        #expect(abs(map.seconds(atTick: end) - Double(units) / 960_000_000) < 1e-9)
    }

    @Test("bar:beat:tick in 4/4, then 3/4, then 7/8 (beats are eighths), 1-based bars and beats")
    func barBeat() {
        // 4/4 for 2 bars (3840 ticks), 3/4 for 1 bar (1440), then 7/8.
        let meter = MeterMap(ticksPerQuarter: 480, timeSignatures: [
            (0, TimeSignature(4, 4)), (3840, TimeSignature(3, 4)), (5280, TimeSignature(7, 8)),
        ])
        #expect(meter.position(atTick: 0) == BarBeatTick(bar: 1, beat: 1))
        #expect(meter.position(atTick: 1920 + 480 + 7) == BarBeatTick(bar: 2, beat: 2, tick: 7))
        #expect(meter.position(atTick: 3840) == BarBeatTick(bar: 3, beat: 1))
        #expect(meter.position(atTick: 3840 + 960) == BarBeatTick(bar: 3, beat: 3))
        #expect(meter.position(atTick: 5280) == BarBeatTick(bar: 4, beat: 1))
        #expect(meter.position(atTick: 5280 + 6 * 240) == BarBeatTick(bar: 4, beat: 7))
        #expect(meter.position(atTick: 5280 + 7 * 240) == BarBeatTick(bar: 5, beat: 1))
        #expect(meter.tick(at: BarBeatTick(bar: 5, beat: 2, tick: 10)) == 5280 + 8 * 240 + 10)
        #expect(meter.tick(at: BarBeatTick(bar: 3, beat: 1)) == 3840)
        for tick in stride(from: 0, to: 12_000, by: 37) {
            #expect(meter.tick(at: meter.position(atTick: tick)) == tick)
        }
        // A signature in the middle of a bar starts a new bar there.
        let odd = MeterMap(ticksPerQuarter: 96, timeSignatures: [(96 * 6, TimeSignature(3, 4))])
        #expect(odd.position(atTick: 96 * 6) == BarBeatTick(bar: 3, beat: 1))
        #expect(BarBeatTick("3:1") == BarBeatTick(bar: 3, beat: 1))
        #expect(BarBeatTick("0:1") == nil)
        #expect(BarBeatTick("2:4:120")?.description == "2:4:120")
    }

    @Test("the next beat or bar line at or after any tick, across meter changes")
    func nextGridLine() {
        let meter = MeterMap(ticksPerQuarter: 480, timeSignatures: [
            (0, TimeSignature(4, 4)), (3840, TimeSignature(3, 4)), (5280, TimeSignature(7, 8)),
        ])
        let bars = [0, 1920, 3840, 5280, 5280 + 1680, 5280 + 2 * 1680]
        var beats = Array(stride(from: 0, to: 3840, by: 480)) + Array(stride(from: 3840, to: 5280, by: 480))
        beats += Array(stride(from: 5280, through: 5280 + 2 * 1680, by: 240))
        for tick in 0...(5280 + 1680) {
            #expect(meter.nextTick(on: .bar, atOrAfter: tick) == bars.first { $0 >= tick })
            #expect(meter.nextTick(on: .beat, atOrAfter: tick) == beats.first { $0 >= tick })
        }
    }

    @Test("SMPTE timecode at 24, 25, 30 and 29.97 drop-frame")
    func smpteTimecode() {
        #expect(SMPTETime(seconds: 3661.5, rate: .fps25).description == "01:01:01:12.50")
        #expect(SMPTETime(seconds: 1.0, rate: .fps24) == SMPTETime(hours: 0, minutes: 0, seconds: 1, frames: 0, rate: .fps24))
        // Drop-frame: real frame 1800 is labelled 00:01:00;02, frame 17982 is 00:10:00;00.
        #expect(SMPTETime(subframeCount: 1800 * 100, rate: .fps29_97Drop).description == "00:01:00;02.00")
        #expect(SMPTETime(subframeCount: 1799 * 100, rate: .fps29_97Drop).description == "00:00:59;29.00")
        #expect(SMPTETime(subframeCount: 17_982 * 100, rate: .fps29_97Drop).description == "00:10:00;00.00")
        for frames in stride(from: 0, to: 200_000, by: 7) {
            let t = SMPTETime(subframeCount: frames * 100 + 33, rate: .fps29_97Drop)
            #expect(t.subframeCount == frames * 100 + 33)
        }
        // One hour of 29.97 drop-frame labels is 3600 real seconds to within a few milliseconds.
        let hour = SMPTETime(hours: 1, minutes: 0, seconds: 0, frames: 0, rate: .fps29_97Drop)
        #expect(abs(hour.secondsValue - 3600) < 0.004)
        // An SMPTE-division tempo map ignores tempo: 30 fps × 80 = 2400 ticks per second.
        let map = TempoMap(division: .smpte(.fps30, ticksPerFrame: 80), tempoChanges: [(0, 1_000_000)])
        #expect(map.seconds(atTick: 2400) == 1.0)
        #expect(map.sampleFrame(atTick: 2400 * 60, sampleRate: 48_000) == 48_000 * 60)
    }

    @Test("positions past the end of time saturate instead of trapping, and stay in order")
    func extremePositions() {
        // Found by the tempo fuzz target and `--from 1e300`: these trapped on Int overflow.
        let map = TempoMap(division: .ticksPerQuarter(32_767), tempoChanges: [(0, 0xFF_FFFF), (.max, 1)])
        #expect(map.tick(atSeconds: 1e300) == map.tick(atSeconds: .infinity))
        #expect(map.tick(atSeconds: -.nan) == 0)
        #expect(map.sampleFrame(atTick: .max, sampleRate: 384_000) >= map.sampleFrame(atTick: 1 << 40, sampleRate: 384_000))
        #expect(map.tick(atSampleFrame: .max, sampleRate: 8_000) == map.tick(atSampleFrame: 1 << 62, sampleRate: 8_000))
        let smpte = TempoMap(division: .smpte(framesPerSecond: 1, ticksPerFrame: 1), tempoChanges: [])
        #expect(smpte.sampleFrame(atTick: .max, sampleRate: 384_000) == .max)
        let meter = MeterMap(ticksPerQuarter: 480, timeSignatures: [(1 << 62, TimeSignature(7, 64))])
        #expect(meter.tick(at: BarBeatTick(bar: .max, beat: .max, tick: .max)) == .max)
        #expect(meter.tick(at: BarBeatTick(bar: .min, beat: .min)) == 0)
        #expect(meter.position(atTick: .max).bar > meter.position(atTick: 1 << 61).bar)
        // Below the extremes nothing changed: 2 bars of 4/4 at 480 ppq.
        #expect(meter.tick(at: BarBeatTick(bar: 3, beat: 1)) == 3_840)
    }
}
