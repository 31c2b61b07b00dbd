import EarshotTestTraits
import Testing

@testable import EarshotLab

@Suite(.computing) struct FrameMetricsTests {
    @Test func aPerfectPredictionScoresOne() {
        let labels = [false, true, true, false, true]
        var metrics = FrameMetrics()
        metrics.add(predicted: labels, labelled: labels)
        #expect(metrics.precision == 1 && metrics.recall == 1 && metrics.f1 == 1)
        #expect(metrics.falseAlarmRate == 0)
    }

    @Test func handComputedCounts() {
        // TP 2, FP 1, FN 1, TN 2 → P = 2/3, R = 2/3, F1 = 2/3, false-alarm rate 1/3.
        var metrics = FrameMetrics()
        metrics.add(
            predicted: [true, true, true, false, false, false], labelled: [true, true, false, true, false, false])
        #expect(metrics.truePositives == 2 && metrics.falsePositives == 1)
        #expect(metrics.falseNegatives == 1 && metrics.trueNegatives == 2)
        #expect(abs(metrics.precision! - 2.0 / 3) < 1e-12)
        #expect(abs(metrics.f1! - 2.0 / 3) < 1e-12)
        #expect(abs(metrics.falseAlarmRate! - 1.0 / 3) < 1e-12)
    }

    @Test func undefinedRatiosAreNilNotZero() {
        var metrics = FrameMetrics()
        metrics.add(predicted: [false, false], labelled: [false, false])
        #expect(metrics.precision == nil && metrics.recall == nil && metrics.f1 == nil)
        #expect(metrics.falseAlarmRate == 0)
    }

    @Test func averagePrecisionOfAPerfectRankingIsOne() {
        var scores = ProbabilityScores()
        scores.add(probabilities: [0.9, 0.8, 0.2, 0.1], labelled: [true, true, false, false])
        #expect(scores.averagePrecision() == 1)
    }

    @Test func averagePrecisionHandComputed() {
        // Ranked: 0.9 S, 0.8 N, 0.7 S, 0.1 N → recall steps 1/2 at P=1, 1/2 at P=2/3 → AP = 5/6.
        var scores = ProbabilityScores()
        scores.add(probabilities: [0.1, 0.7, 0.8, 0.9], labelled: [false, true, false, true])
        #expect(abs(scores.averagePrecision()! - 5.0 / 6) < 1e-12)
        let curve = scores.curve()
        #expect(
            curve.map(\.threshold) == [Double(Float(0.9)), Double(Float(0.8)), Double(Float(0.7)), Double(Float(0.1))])
        #expect(curve.last?.recall == 1 && curve.last?.falseAlarmRate == 1)
    }

    @Test func tiedProbabilitiesAreCalledTogether() {
        // A detector that only says 0 or 1 has a two-point curve.
        var scores = ProbabilityScores()
        scores.add(probabilities: [1, 1, 0, 0], labelled: [true, false, true, false])
        let curve = scores.curve()
        #expect(curve.count == 2)
        #expect(curve[0].precision == 0.5 && curve[0].recall == 0.5)
    }
}
