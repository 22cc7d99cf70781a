import AllocationCounter
import DSP
import Engine
import SoundFontModel
import SoundFontSynth
import Testing

/// Pianola's synthesizer as a graph node: events scheduled at sample times taken on their
/// exact frames however the graph slices its pulls, a reset on its frame, a transport jump
/// that keeps the note-offs, and nothing allocated on the render thread.
@Suite("Pianola's synthesizer node: scheduled events on their exact frames")
struct SoundFontSynthNodeTests {
    /// The passage's channel messages as the player would schedule them.
    static func scheduled(_ events: [(Int, SoundFontSynthesizerTests.Event)]) -> [ScheduledMIDI] {
        events.compactMap { frame, event -> ScheduledMIDI? in
            let time = SampleTime(frame)
            switch event {
            case .on(let c, let k, let v): return ScheduledMIDI(time: time, status: 0x90 | UInt8(c), data1: UInt8(k), data2: UInt8(v))
            case .off(let c, let k): return ScheduledMIDI(time: time, status: 0x80 | UInt8(c), data1: UInt8(k), data2: 0)
            case .cc(let c, let n, let v): return ScheduledMIDI(time: time, status: 0xB0 | UInt8(c), data1: UInt8(n), data2: UInt8(v))
            case .program(let c, let p): return ScheduledMIDI(time: time, status: 0xC0 | UInt8(c), data1: UInt8(p), data2: 0)
            case .bend(let c, let v): return ScheduledMIDI(time: time, status: 0xE0 | UInt8(c), data1: UInt8(v & 0x7F), data2: UInt8(v >> 7))
            case .sysex: return nil
            }
        }
    }

    /// The left channel of a node pulled in slices of `slice` frames, each slice's events
    /// scheduled just before it is pulled (a player's lookahead of 0).
    static func pull(_ node: SoundFontSynthNode, _ events: [ScheduledMIDI], frames: Int, slice: Int) -> [Float] {
        let buffer = AudioBuffer(capacity: slice)
        node.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: slice)
        var left: [Float] = []
        var next = 0
        for start in stride(from: 0, to: frames, by: slice) {
            let count = min(slice, frames - start)
            while next < events.count, events[next].time < SampleTime(start + count) { node.schedule(events[next]); next += 1 }
            node.render(buffer.slice(frames: count), at: SampleTime(start))
            left += UnsafeBufferPointer(start: buffer.left, count: count)
        }
        return left
    }

    /// Frames the tests pull: three beats of the passage.
    static let frames = 3 * 375 * 64

    /// The passage's first three beats moved off the block grid: every event 1 to 63 frames later.
    static let offGrid = SoundFontSynthesizerTests.passage.enumerated().map { ($1.0 + 1 + ($0 * 17) % 63, $1.1) }
        .filter { $0.0 < frames }.sorted { $0.0 < $1.0 }

    @Test("pulled in slices of 1, 64, 100, 777 or 4096 frames, the node plays what the synthesizer plays given each event at its frame, sample for sample", arguments: [1, 64, 100, 777, 4_096])
    func slicesChangeNothing(slice: Int) throws {
        let font = try SoundFont(path: SoundFontSynthesizerTests.gmFont)
        let direct = SoundFontSynthesizerTests.ours(font, Self.offGrid, frames: Self.frames)
        let node = SoundFontSynthNode(synthesizer: SoundFontSynthesizer(font: font, sampleRate: 48_000))
        let pulled = Self.pull(node, Self.scheduled(Self.offGrid), frames: Self.frames, slice: slice)
        let differing = zip(direct, pulled).filter { $0 != $1 }.count
        #expect(direct.contains { $0 != 0 })
        #expect(differing == 0, "\(differing) of \(Self.frames) samples differ")
        #expect(node.droppedEvents == 0)
    }

    @Test("a GM System On stops every voice on its frame and resets the programs; other sysex is counted, not acted on")
    func resetOnItsFrame() throws {
        let font = try SoundFont(path: SoundFontSynthesizerTests.gmFont)
        let node = SoundFontSynthNode(synthesizer: SoundFontSynthesizer(font: font, sampleRate: 48_000))
        let buffer = AudioBuffer(capacity: 4_800)
        node.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: 4_800)
        node.schedule(ScheduledMIDI(time: 0, status: 0xC0, data1: 48, data2: 0))
        node.schedule(ScheduledMIDI(time: 10, status: 0x90, data1: 60, data2: 100))
        [0x7E, 0x7F, 0x09, 0x01].withUnsafeBufferPointer { node.scheduleSysex($0, at: 3_001) }
        [0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x01, 0x40].withUnsafeBufferPointer { node.scheduleSysex($0, at: 3_002) }   // GS Reset's address with data 1: not a reset
        node.render(buffer.slice(frames: 4_800), at: 0)
        let left = UnsafeBufferPointer(start: buffer.left, count: 4_800)
        #expect(left[11..<3_001].contains { $0 != 0 })
        #expect(!left[3_001...].contains { $0 != 0 }, "silent from the reset's frame on")
        #expect(node.ignoredSysex == 1)
        #expect(node.synthesizer.program(of: 0) == 0 && node.synthesizer.activeVoices == 0)
    }

    @Test("a GS rhythm-part message makes channel 3 play the drums channel 10 plays, on its frame; GS Reset makes it melodic again (libfluidsynth 2.3 ignores the part message)")
    func gsRhythmPart() throws {
        let font = try SoundFont(path: SoundFontSynthesizerTests.gmFont)
        func render(_ messages: [(SampleTime, [UInt8]?, ScheduledMIDI?)]) -> [Float] {
            let node = SoundFontSynthNode(synthesizer: SoundFontSynthesizer(font: font, sampleRate: 48_000))
            let buffer = AudioBuffer(capacity: 9_600)
            node.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: 9_600)
            for (time, sysex, event) in messages {
                if let sysex { sysex.withUnsafeBufferPointer { node.scheduleSysex($0, at: time) } }
                if let event { node.schedule(event) }
            }
            node.render(buffer.slice(frames: 9_600), at: 0)
            return Array(UnsafeBufferPointer(start: buffer.left, count: 9_600))
        }
        let drumPart: [UInt8] = [0x41, 0x10, 0x42, 0x12, 0x40, 0x13, 0x15, 0x01, 0x17]   // part 3, checksum 17
        let reset: [UInt8] = [0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41]
        let snare = ScheduledMIDI(time: 100, status: 0x92, data1: 38, data2: 100)
        let onDrums = render([(100, nil, ScheduledMIDI(time: 100, status: 0x99, data1: 38, data2: 100))])
        let switched = render([(50, drumPart, nil), (100, nil, snare)])
        let melodic = render([(100, nil, snare)])
        let resetAgain = render([(50, drumPart, nil), (60, reset, nil), (100, nil, snare)])
        #expect(switched == onDrums, "channel 3 as a rhythm part plays the drum kit")
        #expect(melodic != onDrums && resetAgain == melodic, "GS Reset makes it melodic again")
        var badChecksum = drumPart
        badChecksum[8] = 0x18
        #expect(render([(50, badChecksum, nil), (100, nil, snare)]) == melodic, "a message with a wrong checksum is not acted on")
    }

    @Test("a transport jump drops what is scheduled but the note-offs, which sound at the jump")
    func flushKeepsNoteOffs() throws {
        let font = try SoundFont(path: SoundFontSynthesizerTests.gmFont)
        let node = SoundFontSynthNode(synthesizer: SoundFontSynthesizer(font: font, sampleRate: 48_000))
        let buffer = AudioBuffer(capacity: 1_000)
        node.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: 1_000)
        node.schedule(ScheduledMIDI(time: 0, status: 0x90, data1: 60, data2: 100))
        node.render(buffer.slice(frames: 1_000), at: 0)
        node.schedule(ScheduledMIDI(time: 5_000, status: 0x90, data1: 64, data2: 100))
        node.schedule(ScheduledMIDI(time: 9_000, status: 0x80, data1: 60, data2: 0))
        node.flushScheduled(from: 1_000)
        node.render(buffer.slice(frames: 1_000), at: 1_000)
        #expect(node.synthesizer.activeVoices >= 1, "the note releases, ringing")
        for block in 0..<200 { node.render(buffer.slice(frames: 1_000), at: SampleTime(2_000 + block * 1_000)) }
        #expect(node.synthesizer.activeVoices == 0, "no note hangs, and the dropped note-on never sounded")
    }

    @Test("voices rendered on 2, 3, 4 or 8 threads give what one thread gives, bit for bit, with the reverb and chorus on", arguments: [2, 3, 4, 8])
    func threadsChangeNothing(threads: Int) throws {
        let font = try SoundFont(path: SoundFontSynthesizerTests.gmFont)
        func render(threads: Int) -> (left: [Float], right: [Float]) {
            let node = SoundFontSynthNode(synthesizer: SoundFontSynthesizer(font: font, sampleRate: 48_000, reverb: Reverb.Settings(),
                                                                            chorus: Chorus.Settings(), threads: threads))
            let events = Self.scheduled(Self.offGrid)
            let buffer = AudioBuffer(capacity: 1_500)
            node.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: 1_500)
            var left: [Float] = [], right: [Float] = []
            var next = 0
            for start in stride(from: 0, to: Self.frames, by: 1_500) {
                let count = min(1_500, Self.frames - start)
                while next < events.count, events[next].time < SampleTime(start + count) { node.schedule(events[next]); next += 1 }
                node.render(buffer.slice(frames: count), at: SampleTime(start))
                left += UnsafeBufferPointer(start: buffer.left, count: count)
                right += UnsafeBufferPointer(start: buffer.right, count: count)
            }
            return (left, right)
        }
        let one = render(threads: 1), many = render(threads: threads)
        let differing = zip(one.left + one.right, many.left + many.right).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(one.left.contains { abs($0) > 0.01 })
        #expect(differing == 0, "\(differing) of \(2 * Self.frames) samples differ on \(threads) threads")
    }

    @Test("a synthesizer with its voices on 8 threads, made, played for a moment and dropped 40 times over, plays the same each time: its threads start and end with it")
    func threadsComeAndGo() throws {
        let font = try SoundFont(path: SoundFontSynthesizerTests.gmFont)
        let events = Self.scheduled(Self.offGrid)
        func round() -> [Float] {
            let node = SoundFontSynthNode(synthesizer: SoundFontSynthesizer(font: font, sampleRate: 48_000, reverb: Reverb.Settings(), threads: 8))
            return Self.pull(node, events, frames: 9_600, slice: 1_000)
        }
        let first = round()
        #expect(first.contains { abs($0) > 0.01 })
        for _ in 1..<40 {
            let again = round()
            #expect(again.map(\.bitPattern) == first.map(\.bitPattern))
        }
    }

    @Test("scheduling and pulling allocate nothing and take no lock on the render thread, its voices on one thread or four", arguments: [1, 4])
    func noAllocations(threads: Int) throws {
        let font = try SoundFont(path: SoundFontSynthesizerTests.gmFont)
        let events = Self.scheduled(Self.offGrid)
        func make() -> SoundFontSynthNode {
            SoundFontSynthNode(synthesizer: SoundFontSynthesizer(font: font, sampleRate: 48_000, reverb: Reverb.Settings(), threads: threads))
        }
        _ = Self.pull(make(), events, frames: 4_800, slice: 333)   // the test's own first-use work
        let node = make()
        let buffer = AudioBuffer(capacity: 333)
        node.prepare(format: AudioFormat(sampleRate: 48_000), maxFrames: 333)
        pianola_allocations_start()
        var next = 0
        for start in stride(from: 0, to: Self.frames, by: 333) {
            while next < events.count, events[next].time < SampleTime(start + 333) { node.schedule(events[next]); next += 1 }
            node.render(buffer.slice(frames: 333), at: SampleTime(start))
        }
        let allocations = pianola_allocations_stop()
        #expect(allocations == 0)
        #expect(pianola_locks_taken() <= 0)
    }
}
