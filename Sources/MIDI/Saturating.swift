/// Integer arithmetic that stops at `Int.max` / `Int.min` instead of trapping: tick and time
/// conversions take positions from hostile files and command lines, and a position past the
/// end of time is still a position.
extension Int {
    /// `self + other`, held at the bound it would overflow. Any thread.
    @inline(__always) func addingSaturating(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, held at the bound it would overflow. Any thread.
    @inline(__always) func subtractingSaturating(_ other: Int) -> Int {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }

    /// `self × other`, held at the bound it would overflow. Any thread.
    @inline(__always) func multipliedSaturating(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) != (other < 0) ? .min : .max) : product
    }
}
