#if canImport(Glibc)
import Glibc
#endif

/// One parameter of an effect: its name, range, default, unit and how it glides. Any thread.
public struct EffectParameter: Hashable, Sendable {
    /// How a parameter moves along a glide. Any thread.
    public enum Glide: Hashable, Sendable {
        /// By equal steps of its value (gains in dB, mixes, times).
        case linear
        /// By equal ratios (frequencies: an octave takes as long at 100 Hz as at 10 kHz).
        case exponential
    }

    /// The name a spec and the game API use (`cutoff`). Any thread.
    public let name: String
    /// Smallest value allowed. Any thread.
    public let minimum: Double
    /// Largest value allowed (frequencies are also held below half the sample rate). Any thread.
    public let maximum: Double
    /// Its value until set. Any thread.
    public let defaultValue: Double
    /// Its unit as printed after a value (`Hz`, `dB`, `s`), empty for a plain number. Any thread.
    public let unit: String
    /// How it glides. Any thread.
    public let glide: Glide
    /// One line saying what it does. Any thread.
    public let summary: String

    /// A parameter. Any thread.
    public init(name: String, minimum: Double, maximum: Double, defaultValue: Double, unit: String = "", glide: Glide = .linear, summary: String) {
        self.name = name
        self.minimum = minimum
        self.maximum = maximum
        self.defaultValue = defaultValue
        self.unit = unit
        self.glide = glide
        self.summary = summary
    }
}

/// A signal processor that changes stereo audio in place: an insert on a bus. Made and
/// prepared on the control thread; after that every member but `parameters` belongs to the
/// render thread, where nothing may allocate, lock or do I/O. Core Audio's effect unit.
public protocol EffectUnit: AnyObject {
    /// Its parameters, in the order `setParameter` numbers them. Any thread.
    var parameters: [EffectParameter] { get }
    /// Frames by which it delays what passes through (0 for filters and echoes). Any thread.
    var latencyFrames: Int { get }
    /// Frames it may keep sounding after its input falls silent (a delay's echoes). Any thread.
    var tailFrames: Int { get }
    /// Gets ready to process at `sampleRate` in slices of at most `maxFrames` (allocate here).
    /// Control thread, before it is rendered.
    func prepare(sampleRate: Int, maxFrames: Int)
    /// Moves parameter `index` to `value` (held to its range), at once or gliding over
    /// `rampFrames` frames from wherever it stands. Render thread only (or before rendering).
    func setParameter(_ index: Int, to value: Double, rampFrames: Int)
    /// Processes `audio` in place: the frames that follow those of the last call. Render thread only.
    func process(_ audio: StereoSlice)
    /// Forgets what it has heard (filter state, echoes), keeping its parameters. Render thread only.
    func reset()
}

/// A parameter's value on its way to a target, one frame at a time: linear or exponential
/// steps that reach the target exactly on the last frame. Render thread only.
public struct ParameterGlide {
    /// The value now. Render thread only.
    public private(set) var value: Double
    private var target: Double
    private var step = 0.0
    private var remaining = 0
    private let glide: EffectParameter.Glide

    /// A parameter standing at `value`, gliding as `glide` says. Any thread.
    public init(_ value: Double, glide: EffectParameter.Glide) {
        self.value = value
        target = value
        self.glide = glide
    }

    /// Whether it is still moving. Render thread only.
    public var isGliding: Bool { remaining > 0 }

    /// Heads for `target` over `frames` frames (at once when 0). Render thread only.
    public mutating func move(to target: Double, frames: Int) {
        self.target = target
        remaining = max(0, frames)
        guard remaining > 0, target != value else {
            value = target
            remaining = 0
            return
        }
        switch glide {
        case .linear: step = (target - value) / Double(remaining)
        case .exponential: step = value > 0 && target > 0 ? exp(log(target / value) / Double(remaining)) : 1
        }
    }

    /// Takes one frame's step and returns the new value. Render thread only.
    @inline(__always) public mutating func advance() -> Double {
        guard remaining > 0 else { return value }
        remaining -= 1
        if remaining == 0 {
            value = target
        } else {
            switch glide {
            case .linear: value += step
            case .exponential: value *= step
            }
        }
        return value
    }
}
