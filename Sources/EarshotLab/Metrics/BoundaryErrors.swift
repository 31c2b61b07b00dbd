/// How far predicted speech boundaries fall from labelled ones, accumulated over a corpus.
///
/// Each labelled speech start is matched to the nearest predicted speech start within `tolerance`
/// (and each labelled end to the nearest predicted end); the error is predicted − labelled, so a
/// positive bias means late starts (clipped onsets) or late ends (trailing padding). A labelled
/// boundary with no predicted one within the tolerance is counted as missed rather than given an
/// arbitrary error. Matching boundaries rather than whole segments keeps one merged pause from
/// turning into a seconds-long "error" on the next word.
public struct BoundaryErrors: Sendable, Equatable, Codable {
    /// How far apart two boundaries may be and still count as the same one, in seconds.
    public var tolerance: Double
    public private(set) var startErrors: [Double] = []
    public private(set) var endErrors: [Double] = []
    public private(set) var missedStarts = 0
    public private(set) var missedEnds = 0

    public init(tolerance: Double = 0.5) {
        self.tolerance = tolerance
    }

    public mutating func add(predicted: [LabeledSegment], labelled: [LabeledSegment]) {
        match(labelled.map(\.start), to: predicted.map(\.start), errors: &startErrors, missed: &missedStarts)
        match(labelled.map(\.end), to: predicted.map(\.end), errors: &endErrors, missed: &missedEnds)
    }

    public mutating func add(_ other: BoundaryErrors) {
        startErrors += other.startErrors
        endErrors += other.endErrors
        missedStarts += other.missedStarts
        missedEnds += other.missedEnds
    }

    /// Start errors: mean and p90 of the absolute error, and the bias (mean signed error), in seconds.
    public var start: BoundaryStatistics { BoundaryStatistics(startErrors, missed: missedStarts) }
    /// End errors, likewise.
    public var end: BoundaryStatistics { BoundaryStatistics(endErrors, missed: missedEnds) }

    enum CodingKeys: String, CodingKey {
        case tolerance = "tolerance_s", startErrors = "start_errors_s", endErrors = "end_errors_s"
        case missedStarts = "missed_starts", missedEnds = "missed_ends"
    }

    private func match(_ labelled: [Double], to predicted: [Double], errors: inout [Double], missed: inout Int) {
        for boundary in labelled {
            let nearest = predicted.min { abs($0 - boundary) < abs($1 - boundary) }
            if let nearest, abs(nearest - boundary) <= tolerance {
                errors.append(nearest - boundary)
            } else {
                missed += 1
            }
        }
    }
}

/// Statistics of one kind of boundary error, in seconds.
public struct BoundaryStatistics: Sendable, Equatable, Codable {
    /// Labelled boundaries matched to a predicted one.
    public var matched: Int
    /// Labelled boundaries with no predicted one within the tolerance.
    public var missed: Int
    /// The mean absolute error.
    public var meanAbsolute: Double?
    /// The 90th percentile of the absolute error.
    public var p90Absolute: Double?
    /// The mean signed error (predicted − labelled): positive is late.
    public var bias: Double?

    init(_ errors: [Double], missed: Int) {
        let absolute = Summary(errors.map(abs))
        self.matched = errors.count
        self.missed = missed
        self.meanAbsolute = absolute.mean
        self.p90Absolute = absolute.p90
        self.bias = Summary(errors).mean
    }

    enum CodingKeys: String, CodingKey {
        case matched, missed
        case meanAbsolute = "mean_abs_s"
        case p90Absolute = "p90_abs_s"
        case bias = "bias_s"
    }

    /// Absent statistics are written as `null`, so every document has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(matched, forKey: .matched)
        try container.encode(missed, forKey: .missed)
        try container.encode(meanAbsolute, forKey: .meanAbsolute)
        try container.encode(p90Absolute, forKey: .p90Absolute)
        try container.encode(bias, forKey: .bias)
    }
}
