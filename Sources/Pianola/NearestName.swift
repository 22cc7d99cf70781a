/// The one of `names` closest to `text` in spelling (any case), when a typo or two away from
/// it (at most two letters inserted, deleted or changed), else nil: what a "did you mean"
/// offers. Any thread.
package func nearest(_ text: String, among names: some Sequence<String>) -> String? {
    guard let near = names.min(by: { editDistance(text, $0) < editDistance(text, $1) }), editDistance(text, near) <= 2 else { return nil }
    return near
}

/// Letters to insert, delete or change to turn `a` into `b` (Levenshtein), in any case.
private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased()), b = Array(b.lowercased())
    var row = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in 1...max(1, b.count) where !b.isEmpty {
            let diagonal = previous
            previous = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
    }
    return row[b.count]
}
