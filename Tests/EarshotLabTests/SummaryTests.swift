import EarshotTestTraits
import Testing

@testable import EarshotLab

@Suite(.computing) struct SummaryTests {
    @Test func percentilesInterpolateLikeNumpy() {
        // numpy.percentile([1, 2, 3, 4], 90) == 3.7; median 2.5.
        let summary = Summary([4, 1, 3, 2])
        #expect(summary.count == 4)
        #expect(summary.median == 2.5)
        #expect(abs(summary.p90! - 3.7) < 1e-12)
        #expect(summary.mean == 2.5)
        #expect(summary.max == 4)
    }

    @Test func emptySampleHasNoStatistics() {
        let summary = Summary([])
        #expect(summary.count == 0)
        #expect(summary.median == nil && summary.p90 == nil && summary.mean == nil)
    }
}
