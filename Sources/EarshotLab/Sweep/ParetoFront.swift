/// The Pareto front of a latency-versus-truncation trade-off: the settings no other setting beats on
/// both at once.
public enum ParetoFront {
    /// For each point (both coordinates to minimise), whether it is on the front. A point is dominated
    /// when another is no worse on both and strictly better on one; points with a missing coordinate
    /// (no latency measured) are never on the front. Equal points are all on it.
    public static func membership(_ points: [(x: Double?, y: Double?)]) -> [Bool] {
        points.map { point in
            guard let x = point.x, let y = point.y else { return false }
            return !points.contains { other in
                guard let otherX = other.x, let otherY = other.y else { return false }
                return otherX <= x && otherY <= y && (otherX < x || otherY < y)
            }
        }
    }
}
