import DSP
import Synthesis
import Foundation
import Engine
import FluidSynth
import MIDI
import Playback
import Sequencing

/// Renders sequences through the real graph (sampler → mixer → graph) with the project's test
/// SoundFont, and measures what comes out.
public struct RenderHarness {
    /// The checkout: four folders up from Tests/Support/RenderHarness/RenderHarness.swift.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The project's test SoundFont.
    public static let testFont = root.appendingPathComponent("soundfonts/pianola-test.sf2").path
    /// The sample rate every harness renders at.
    public static let rate = 48_000

    /// The graph it renders. Control thread.
    public let graph: AudioGraph
    /// The player scheduling the sequence. Control thread.
    public let player: MusicPlayer
    /// The sampler the player plays. Control thread.
    public let sampler: FluidSynthNode
    /// Where each slice is rendered.
    public let buffer: AudioBuffer

    /// A started player of `sequence` on a sampler with the test font. Control thread.
    public init(_ sequence: MusicSequence, reverb: Bool = false, maxFrames: Int = 1000, sync: SyncDestinations = SyncDestinations()) throws {
        var configuration = FluidSynthesizer.Configuration()
        configuration.sampleRate = Double(Self.rate)
        configuration.reverb = reverb
        configuration.chorus = reverb
        let synth = try FluidSynthesizer(configuration: configuration)
        _ = try synth.loadSoundFont(path: Self.testFont)
        synth.preloadPresets(selectedBy: sequence.messagesInTimeOrder)   // as the players' graphs do
        sampler = FluidSynthNode(synthesizer: synth)
        let mixer = MixerNode()
        graph = AudioGraph(root: mixer, format: AudioFormat(sampleRate: Self.rate), maxFrames: maxFrames)
        mixer.connect(sampler)
        player = MusicPlayer(sequence: sequence, sampleRate: Self.rate, destinations: [sampler], sync: sync)
        graph.add(player)
        buffer = AudioBuffer(capacity: maxFrames)
        player.start()
    }

    /// Renders `frames` frames in slices of `slice` frames; returns the left channel.
    public func render(frames: Int, slice: Int = 1000) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(frames)
        var done = 0
        while done < frames {
            let n = min(slice, frames - done)
            graph.render(into: buffer.slice(frames: n))
            out.append(contentsOf: UnsafeBufferPointer(start: buffer.left, count: n))
            done += n
        }
        return out
    }

    /// Renders until the player finishes, then `tail` more frames.
    public func renderSong(tail: Int = 4800, slice: Int = 1000) -> [Float] {
        var out: [Float] = []
        while !player.isFinished {
            precondition(out.count < 100 * Self.rate * 60, "the song never finished")
            out += render(frames: slice, slice: slice)
        }
        return out + render(frames: tail, slice: slice)
    }

    /// Frequency from the spacing of upward zero crossings over `samples`.
    public static func frequency(_ samples: ArraySlice<Float>) -> Double {
        var crossings: [Double] = []
        var previous = samples.first!
        for (i, s) in zip(samples.indices.dropFirst(), samples.dropFirst()) {
            if previous < 0 && s >= 0 { crossings.append(Double(i - 1) + Double(-previous / (s - previous))) }
            previous = s
        }
        return Double(rate) * Double(crossings.count - 1) / (crossings.last! - crossings.first!)
    }

    /// Mean absolute value over RMS: 2√2/π ≈ 0.900 for a sine, 1 for a square (robust to the
    /// overshoot interpolation puts on a square's edges).
    public static func formFactor(_ samples: ArraySlice<Float>) -> Double {
        let mean = samples.reduce(0) { $0 + Double(abs($1)) } / Double(samples.count)
        let rms = (samples.reduce(0) { $0 + Double($1 * $1) } / Double(samples.count)).squareRoot()
        return mean / rms
    }

    /// A one-track sequence (480 ticks per quarter) on channel 1 with `program`, notes given as
    /// (tick, length, key), and tempo changes as (tick, µs per quarter).
    public static func sequence(program: UInt8, notes: [(tick: Int, length: Int, key: UInt8)], tempos: [(Int, Int)] = []) -> MusicSequence {
        var tempo = MusicTrack()
        for (tick, us) in tempos { tempo.insert(MIDIEvent(tick: tick, .meta(.tempo(microsecondsPerQuarter: UInt32(us))))) }
        var track = MusicTrack(events: [MIDIEvent(tick: 0, .programChange(channel: 0, program: program))])
        for n in notes {
            track.insert(MIDIEvent(tick: n.tick, .noteOn(channel: 0, note: n.key, velocity: 100)))
            track.insert(MIDIEvent(tick: n.tick + n.length, .noteOff(channel: 0, note: n.key, velocity: 0)))
        }
        return MusicSequence(division: .ticksPerQuarter(480), tempoTrack: tempo, tracks: [track])
    }
}
