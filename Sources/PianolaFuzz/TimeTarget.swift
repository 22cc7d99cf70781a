import MIDI

/// Tempo and meter maps from extreme values: ticks anywhere up to Int.max, tempos up to the
/// 24-bit limit, every division a file can hold. Conversions must not trap, must keep time
/// in order, and must round-trip exactly where time fits (under 10⁸ seconds).
enum TimeTarget {
    static func run(_ bytes: [UInt8]) {
        var input = InputReader(bytes)
        let header = input.next(1)
        let division: Division = header & 1 == 0
            ? .ticksPerQuarter(Int(input.next(2) % 32_767) + 1)
            : .smpte(framesPerSecond: Int(input.next(1) % 128) + 1, ticksPerFrame: Int(input.next(1) % 255) + 1)
        let sampleRate = [8_000, 22_050, 44_100, 48_000, 96_000, 384_000][Int(header >> 1) % 6]
        var tempos: [(tick: Int, microsecondsPerQuarter: Int)] = []
        var signatures: [(tick: Int, signature: TimeSignature)] = []
        var probes: [Int] = []
        while input.hasMore && tempos.count + signatures.count + probes.count < 64 {
            let kind = input.next(1) % 3
            let tick = extremeTick(&input)
            switch kind {
            case 0: tempos.append((tick, Int(input.next(3))))
            case 1:
                var signature = TimeSignature(4, 4)
                signature.numerator = UInt8(input.next(1))
                signature.denominatorPower = UInt8(input.next(1))
                signatures.append((tick, signature))
            default: probes.append(tick)
            }
        }
        probes.sort()
        checkTempoMap(TempoMap(division: division, tempoChanges: tempos), probes: probes, sampleRate: sampleRate)
        if case .ticksPerQuarter(let tpq) = division {
            checkMeterMap(MeterMap(ticksPerQuarter: tpq, timeSignatures: signatures), probes: probes)
        }
    }

    /// A tick from 0 to Int.max, shifted down by an input-chosen amount so that every scale occurs.
    private static func extremeTick(_ input: inout InputReader) -> Int {
        let raw = input.next(8)
        return Int(truncatingIfNeeded: raw >> (input.next(1) % 64)) & .max
    }

    private static func checkTempoMap(_ map: TempoMap, probes: [Int], sampleRate: Int) {
        var lastSeconds = -Double.infinity
        var lastFrame = Int64.min
        for tick in probes {
            let seconds = map.seconds(atTick: tick)
            let frame = map.sampleFrame(atTick: tick, sampleRate: sampleRate)
            require(seconds >= lastSeconds && frame >= lastFrame && frame >= 0, "time went backwards at tick \(tick)")
            lastSeconds = seconds
            lastFrame = frame
            _ = map.tick(atSeconds: seconds)
            _ = map.tick(atBeats: map.beats(atTick: tick))
            let back = map.tick(atSampleFrame: frame, sampleRate: sampleRate)
            if seconds < 1e8 {
                // The last tick on the frame of `tick` is `tick` or a later one on the same frame.
                require(back >= tick && map.sampleFrame(atTick: back, sampleRate: sampleRate) == frame,
                             "tick \(tick) → frame \(frame) → tick \(back)")
            }
        }
    }

    private static func checkMeterMap(_ meter: MeterMap, probes: [Int]) {
        for tick in probes {
            let position = meter.position(atTick: tick)
            let back = meter.tick(at: position)
            _ = meter.nextTick(on: .bar, atOrAfter: tick)
            _ = meter.nextTick(on: .beat, atOrAfter: tick)
            if tick < 1 << 40 { require(back == tick, "tick \(tick) → \(position) → tick \(back)") }
        }
    }

    /// A few maps in the input's encoding: 480 ppq with tempo and meter changes, SMPTE, and
    /// the largest values.
    static func seeds() -> [(String, [UInt8])] {
        func tick(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } + [0] }
        let ppq480: [UInt8] = [0, 0x01, 0xE0]
        let changes: [UInt8] = [0] + tick(0) + [0x07, 0xA1, 0x20] + [1] + tick(1_920) + [3, 3]
            + [0] + tick(3_840) + [0x03, 0xD0, 0x90] + [2] + tick(2_000) + [2] + tick(100_000)
        let smpte: [UInt8] = [1, 29, 80] + [2] + tick(12_345) + [0] + tick(500) + [0xFF, 0xFF, 0xFF]
        let extremes: [UInt8] = [0x0B, 0x7F, 0xFF] + [0] + tick(.max) + [0xFF, 0xFF, 0xFF]
            + [2] + tick(.max) + [1] + tick(UInt64(1) << 40) + [0xFF, 6] + [2] + tick(UInt64(1) << 62)
        return [("ppq480", ppq480 + changes), ("smpte", smpte), ("extremes", extremes)]
    }
}
