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

/// The one of `names` nearest to `name` when it is a typo away (at most a third of its letters, or
/// one), for "did you mean" hints; nil otherwise.
public func nearestName(to name: String, among names: [String]) -> String? {
    let nearest = names.map { ($0, editDistance(Array(name), Array($0))) }.min { $0.1 < $1.1 }
    guard let (match, distance) = nearest, distance <= max(1, match.count / 3) else { return nil }
    return match
}
