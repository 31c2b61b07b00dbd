/// The Levenshtein distance between two sequences: the fewest insertions, deletions and substitutions
/// that turn one into the other (one row of the table at a time).
public func editDistance<Element: Equatable>(_ a: [Element], _ b: [Element]) -> Int {
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
        var current = [i + 1] + [Int](repeating: 0, count: b.count)
        for (j, y) in b.enumerated() {
            current[j + 1] = min(previous[j] + (x == y ? 0 : 1), previous[j + 1] + 1, current[j] + 1)
        }
        previous = current
    }
    return previous[b.count]
}
