/// Summary statistics of a sample of values (latencies, boundary errors), as the lab reports them.
///
/// Percentiles interpolate linearly between order statistics (numpy's default, so a notebook that
/// recomputes them from raw values gets the same numbers). An empty sample has no statistics: every
/// field is nil, and JSON writes `null` rather than a made-up zero.
public struct Summary: Sendable, Equatable, Codable {
    public var count: Int
    public var mean: Double?
    public var median: Double?
    public var p90: Double?
    public var max: Double?

    public init(_ values: [Double]) {
        let sorted = values.filter { !$0.isNaN }.sorted()
        count = sorted.count
        guard !sorted.isEmpty else { return }
        mean = sorted.reduce(0, +) / Double(sorted.count)
        median = Summary.percentile(50, ofSorted: sorted)
        p90 = Summary.percentile(90, ofSorted: sorted)
        max = sorted.last
    }

    /// The `p`th percentile (0–100) of an ascending, non-empty array, interpolating linearly.
    public static func percentile(_ p: Double, ofSorted sorted: [Double]) -> Double {
        precondition(!sorted.isEmpty && (0...100).contains(p))
        let rank = p / 100 * Double(sorted.count - 1)
        let below = Int(rank.rounded(.down))
        let above = Swift.min(below + 1, sorted.count - 1)
        let weight = rank - Double(below)
        return sorted[below] + (sorted[above] - sorted[below]) * weight
    }

    /// Absent statistics are written as `null`, so every document has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(count, forKey: .count)
        try container.encode(mean, forKey: .mean)
        try container.encode(median, forKey: .median)
        try container.encode(p90, forKey: .p90)
        try container.encode(max, forKey: .max)
    }

    enum CodingKeys: String, CodingKey { case count, mean, median, p90, max }
}
