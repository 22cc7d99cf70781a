import DSP

/// Called at the start of every render cycle, before any node renders, with the frames about
/// to be rendered: where a player schedules the events of the cycle. Render thread only.
public protocol RenderScheduler: AnyObject, Sendable {
    /// Frames `time ..< time + frames` are about to be rendered. Render thread only.
    func willRender(from time: SampleTime, frames: Int)
}

/// The graph an output pulls: a root node (usually a mixer), the schedulers that feed it
/// events, and the sample clock advanced by what has been rendered. The same graph renders
/// offline (`render(into:)` called in a loop) and live (an output's audio thread calls it).
public final class AudioGraph: @unchecked Sendable {
    // @unchecked Sendable: configured on the control thread before rendering starts, then
    // `render` and `sampleTime` belong to the one render thread.

    /// The format every node renders. Any thread.
    public let format: AudioFormat
    /// The largest slice a node is asked for; bigger requests are split. Any thread.
    public let maxFrames: Int
    /// The node whose output is the graph's output. Any thread.
    public let root: any AudioNode
    private var schedulers: [any RenderScheduler] = []
    /// Frames rendered since the graph started. Render thread only.
    public private(set) var sampleTime: SampleTime = 0

    /// A graph pulling `root`, prepared here. Control thread.
    public init(root: any AudioNode, format: AudioFormat, maxFrames: Int = 4096) {
        self.root = root
        self.format = format
        self.maxFrames = maxFrames
        root.prepare(format: format, maxFrames: maxFrames)
    }

    /// Adds a scheduler, called before each cycle in the order added. Control thread, before rendering.
    public func add(_ scheduler: any RenderScheduler) { schedulers.append(scheduler) }

    /// Renders the next `output.frames` frames. Render thread only.
    public func render(into output: StereoSlice) {
        var done = 0
        while done < output.frames {
            let count = min(maxFrames, output.frames - done)
            // By index: iterating an array of existentials unspecialized boxes each element.
            for i in schedulers.indices { schedulers[i].willRender(from: sampleTime, frames: count) }
            root.render(output.dropFirst(done, count: count), at: sampleTime)
            sampleTime += SampleTime(count)
            done += count
        }
    }
}

/// Schedulers run one after another as one (a clock follower before the player it drives,
/// where one scheduler is driven). Render thread only.
package final class SchedulerChain: RenderScheduler, @unchecked Sendable {
    // @unchecked Sendable: set up on the control thread, then called by the one render thread.
    private let schedulers: [any RenderScheduler]

    /// `schedulers`, called in this order each cycle. Control thread.
    public init(_ schedulers: [any RenderScheduler]) { self.schedulers = schedulers }

    /// Calls each scheduler in turn. Render thread only.
    public func willRender(from time: SampleTime, frames: Int) {
        for i in schedulers.indices { schedulers[i].willRender(from: time, frames: frames) }
    }
}
