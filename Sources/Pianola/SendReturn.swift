import DSP
import Engine
import Synchronization

/// A return bus's input: the buses that send to it, each through the side chain its insert
/// chain feeds, times its send level (a change glides over one render slice). It renders after
/// the buses that send, so it hears them in the same cycle. Render thread once connected
/// (but `setLevel`).
final class SendReturnNode: AudioNode, @unchecked Sendable {
    // @unchecked Sendable: `gains` is the render thread's; levels arrive as atomic bit patterns.
    private let sources: [SideChain]           // the music's and the sounds'
    private let musicLevel = Atomic<UInt32>(Float(0).bitPattern)
    private let soundsLevel = Atomic<UInt32>(Float(0).bitPattern)
    private var gains: [Float] = [0, 0]

    /// A return fed by the music's and the sounds' side chains, each at level 0. Control thread.
    init(music: SideChain, sounds: SideChain) {
        sources = [music, sounds]
    }

    /// Sets source `index`'s send level (0 the music, 1 the sounds; linear gain) from the next
    /// render slice. Any thread.
    func setLevel(_ level: Float, source index: Int) {
        if index == 0 { musicLevel.store(level.bitPattern, ordering: .relaxed) } else { soundsLevel.store(level.bitPattern, ordering: .relaxed) }
    }

    func prepare(format: AudioFormat, maxFrames: Int) {}

    /// The sends, summed. Render thread only.
    func render(_ output: StereoSlice, at time: SampleTime) {
        output.clear()
        for index in sources.indices {
            let target = Float(bitPattern: index == 0 ? musicLevel.load(ordering: .relaxed) : soundsLevel.load(ordering: .relaxed))
            sources[index].mix(into: output, gain: gains[index], target: target)
            gains[index] = target
        }
    }
}
