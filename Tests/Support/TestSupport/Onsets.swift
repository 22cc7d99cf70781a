/// Frames where sound starts after at least `gap` frames of digital silence: how the tests
/// find a note's onset in rendered audio.
public func noteOnsets(_ samples: [Float], gap: Int = 200) -> [Int] {
    var result: [Int] = []
    var silent = gap
    for (i, s) in samples.enumerated() {
        if s == 0 { silent += 1; continue }
        if silent >= gap { result.append(i) }
        silent = 0
    }
    return result
}
