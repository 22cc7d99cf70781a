/// Where a piano roll puts things, in pixels from the top left: the notes' area inside fixed
/// margins (60 left for the key names, 20 right, 36 top for the title, 120 bottom for the time
/// axis, the tempo curve, markers and lyrics, and the legend); time runs left to right over
/// `start ..< end` seconds, keys bottom to top over `lowKey ... highKey`, a row each. Any thread.
public struct RollLayout: Hashable, Sendable {
    /// The picture's size. Any thread.
    public let width: Int, height: Int
    /// The seconds the picture spans. Any thread.
    public let start: Double, end: Double
    /// The lowest and highest key shown. Any thread.
    public let lowKey: Int, highKey: Int

    /// The notes' area: left, right, top and bottom edges. Any thread.
    public var left: Double { 60 }
    /// Any thread.
    public var right: Double { Double(width) - 20 }
    /// Any thread.
    public var top: Double { 36 }
    /// Any thread.
    public var bottom: Double { Double(height) - 120 }

    /// A layout of `width` × `height` for `start ..< end` seconds and keys `lowKey ... highKey`. Any thread.
    public init(width: Int, height: Int, start: Double, end: Double, lowKey: Int, highKey: Int) {
        self.width = width
        self.height = height
        self.start = start
        self.end = max(end, start + 0.001)
        self.lowKey = lowKey
        self.highKey = max(highKey, lowKey)
    }

    /// The x of a time in seconds. Any thread.
    public func x(seconds: Double) -> Double { left + (seconds - start) / (end - start) * (right - left) }

    /// The height of a key's row. Any thread.
    public var rowHeight: Double { (bottom - top) / Double(highKey - lowKey + 1) }

    /// The top of a key's row. Any thread.
    public func y(key: Int) -> Double { bottom - Double(key - lowKey + 1) * rowHeight }
}
