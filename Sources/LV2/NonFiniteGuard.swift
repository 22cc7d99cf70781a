/// Zeroes `frames` of `left` and `right` when any sample is NaN or infinite, as a plugin that
/// goes wrong must not put NaN into the mix (one NaN makes every later effect and the limiter
/// NaN too); true when it did. Render thread only.
@inline(__always) func silenceNonFinite(_ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
    var sum: Float = 0   // x × 0 is 0 for a finite x, NaN for NaN or ±∞
    for i in 0..<frames { sum += left[i] * 0 + right[i] * 0 }
    guard sum.isNaN else { return false }
    left.update(repeating: 0, count: frames)
    right.update(repeating: 0, count: frames)
    return true
}
