import Foundation

/// Where the strongest partial of `samples` (48 kHz, Hann-windowed) lies within a
/// semitone either side of `near` Hz, to a tenth of a cent: the DFT's magnitude evaluated
/// on that grid. A note a semitone off would put it at an edge of the search.
public func strongestPartial(_ samples: [Float], near: Double) -> Double {
    let count = samples.count
    let windowed = (0..<count).map { Double(samples[$0]) * (0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(count - 1))) }
    var best = (cents: -100.0, magnitude: 0.0)
    for step in -1_000...1_000 {
        let cents = Double(step) / 10
        let w = 2 * Double.pi * near * pow(2, cents / 1_200) / 48_000
        var re = 0.0, im = 0.0
        for n in 0..<count {
            re += windowed[n] * cos(w * Double(n))
            im -= windowed[n] * sin(w * Double(n))
        }
        let magnitude = re * re + im * im
        if magnitude > best.magnitude { best = (cents, magnitude) }
    }
    return near * pow(2, best.cents / 1_200)
}
