/// Frame-level detection scores on the 10 ms grid, accumulated over a corpus (micro-averaged: every
/// cell of every file counts once).
///
/// `falseAlarmRate` is the share of labelled non-speech cells called speech — the figure WebRTC-VAD
/// comparisons quote alongside F1, and the one users feel as "it triggers on the fan".
public struct FrameMetrics: Sendable, Equatable {
    public private(set) var truePositives = 0
    public private(set) var falsePositives = 0
    public private(set) var falseNegatives = 0
    public private(set) var trueNegatives = 0

    public init() {}

    /// Adds one file's cells: `predicted[i]` against `labelled[i]`.
    public mutating func add(predicted: [Bool], labelled: [Bool]) {
        precondition(predicted.count == labelled.count, "one prediction per labelled cell")
        for (prediction, label) in zip(predicted, labelled) {
            switch (prediction, label) {
            case (true, true): truePositives += 1
            case (true, false): falsePositives += 1
            case (false, true): falseNegatives += 1
            case (false, false): trueNegatives += 1
            }
        }
    }

    public mutating func add(_ other: FrameMetrics) {
        truePositives += other.truePositives
        falsePositives += other.falsePositives
        falseNegatives += other.falseNegatives
        trueNegatives += other.trueNegatives
    }

    public var cellCount: Int { truePositives + falsePositives + falseNegatives + trueNegatives }
    public var speechCells: Int { truePositives + falseNegatives }
    public var nonSpeechCells: Int { falsePositives + trueNegatives }

    /// Of the cells called speech, the share that are (nil when nothing was called speech).
    public var precision: Double? { ratio(truePositives, truePositives + falsePositives) }
    /// Of the speech cells, the share called speech (nil when there is no labelled speech).
    public var recall: Double? { ratio(truePositives, speechCells) }
    /// The harmonic mean of precision and recall.
    public var f1: Double? {
        guard let precision, let recall else { return nil }
        return precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall)
    }
    /// Of the non-speech cells, the share called speech (nil when there is no labelled non-speech).
    public var falseAlarmRate: Double? { ratio(falsePositives, nonSpeechCells) }

    private func ratio(_ numerator: Int, _ denominator: Int) -> Double? {
        denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }
}

/// Scores for a detector that gives probabilities: average precision and the precision–recall curve,
/// threshold-free, accumulated over a corpus.
///
/// Held as counts per distinct probability (how many speech and non-speech cells had it): the curve
/// needs nothing else, so the scores of shards add up exactly to those of one run, and a corpus of
/// many hours costs as much memory as its distinct probabilities, not one entry per 10 ms.
public struct ProbabilityScores: Sendable, Equatable {
    /// Labelled speech and non-speech cells that had one probability.
    public struct Counts: Sendable, Equatable {
        public var speech = 0
        public var nonSpeech = 0
    }

    public private(set) var counts: [Float: Counts] = [:]

    public init() {}

    public mutating func add(probabilities: [Float], labelled: [Bool]) {
        precondition(probabilities.count == labelled.count, "one probability per labelled cell")
        for (probability, label) in zip(probabilities, labelled) {
            if label {
                counts[probability, default: Counts()].speech += 1
            } else {
                counts[probability, default: Counts()].nonSpeech += 1
            }
        }
    }

    public mutating func add(_ other: ProbabilityScores) {
        for (probability, more) in other.counts {
            counts[probability, default: Counts()].speech += more.speech
            counts[probability, default: Counts()].nonSpeech += more.nonSpeech
        }
    }

    /// One point of the curve: calling speech every cell with probability ≥ `threshold`.
    public struct Point: Sendable, Equatable, Codable {
        public var threshold: Double
        public var precision: Double
        public var recall: Double
        public var falseAlarmRate: Double

        enum CodingKeys: String, CodingKey {
            case threshold, precision, recall
            case falseAlarmRate = "false_alarm_rate"
        }
    }

    /// The precision–recall curve, one point per distinct probability, from the highest threshold down.
    public func curve() -> [Point] {
        let positives = counts.values.reduce(0) { $0 + $1.speech }
        let negatives = counts.values.reduce(0) { $0 + $1.nonSpeech }
        guard positives > 0 else { return [] }
        var points: [Point] = []
        var truePositives = 0
        var falsePositives = 0
        // Cells with equal probability are called together: a threshold cannot split them.
        for (threshold, cells) in counts.sorted(by: { $0.key > $1.key }) {
            truePositives += cells.speech
            falsePositives += cells.nonSpeech
            points.append(
                Point(
                    threshold: Double(threshold),
                    precision: Double(truePositives) / Double(truePositives + falsePositives),
                    recall: Double(truePositives) / Double(positives),
                    falseAlarmRate: negatives == 0 ? 0 : Double(falsePositives) / Double(negatives)))
        }
        return points
    }

    /// Average precision: Σ (Rₙ − Rₙ₋₁)·Pₙ over the curve (the step-wise area, no interpolation, as
    /// scikit-learn's `average_precision_score`); nil when there is no labelled speech.
    public func averagePrecision() -> Double? {
        let points = curve()
        guard !points.isEmpty else { return nil }
        var previousRecall = 0.0
        var area = 0.0
        for point in points {
            area += (point.recall - previousRecall) * point.precision
            previousRecall = point.recall
        }
        return area
    }

    /// The curve thinned to at most `count` points evenly spaced in recall, for plotting.
    public func curve(thinnedTo count: Int) -> [Point] {
        let points = curve()
        guard points.count > count, count > 1 else { return points }
        var thinned: [Point] = []
        var nextRecall = 0.0
        for point in points where point.recall >= nextRecall {
            thinned.append(point)
            nextRecall = point.recall + 1 / Double(count - 1)
        }
        if thinned.last != points.last, let last = points.last { thinned.append(last) }
        return thinned
    }
}

extension FrameMetrics: Codable {
    enum CodingKeys: String, CodingKey {
        case truePositives = "true_positives", falsePositives = "false_positives"
        case falseNegatives = "false_negatives", trueNegatives = "true_negatives"
    }
}

extension ProbabilityScores: Codable {
    /// `[probability, speech cells, non-speech cells]` triples from the highest probability down; the
    /// probability written as the Double the Float widens to, which reads back to the same Float.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for (probability, cells) in counts.sorted(by: { $0.key > $1.key }) {
            try container.encode([Double(probability), Double(cells.speech), Double(cells.nonSpeech)])
        }
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            let triple = try container.decode([Double].self)
            guard triple.count == 3, let probability = Float(exactly: triple[0]),
                let speech = Int(exactly: triple[1]), let nonSpeech = Int(exactly: triple[2]), speech >= 0,
                nonSpeech >= 0
            else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected [probability, speech cells, non-speech cells]")
            }
            counts[probability, default: Counts()].speech += speech
            counts[probability, default: Counts()].nonSpeech += nonSpeech
        }
    }
}
