/// The Pareto front of a latency-versus-truncation trade-off: the settings no other setting beats on
/// both at once.
public enum ParetoFront {
    /// For each point (both coordinates to minimise), whether it is on the front. A point is dominated
    /// when another is no worse on both and strictly better on one; points with a missing coordinate
    /// (no latency measured) are never on the front. Equal points are all on it.
    public static func membership(_ points: [(x: Double?, y: Double?)]) -> [Bool] {
        // Sweep by x: a point is on the front when its y is the least among points with its x and below
        // every y seen at smaller x (n log n, not a comparison of every pair).
        let measured = points.indices.filter { points[$0].x != nil && points[$0].y != nil }
            .sorted { (points[$0].x!, points[$0].y!) < (points[$1].x!, points[$1].y!) }
        var onFront = [Bool](repeating: false, count: points.count)
        var bestY = Double.infinity
        var start = 0
        while start < measured.count {
            let x = points[measured[start]].x!
            var end = start
            while end < measured.count && points[measured[end]].x! == x { end += 1 }
            let groupMinimum = points[measured[start]].y!  // sorted by y within the same x
            for index in measured[start..<end] where points[index].y! == groupMinimum && groupMinimum < bestY {
                onFront[index] = true
            }
            bestY = min(bestY, groupMinimum)
            start = end
        }
        return onFront
    }
}
