import EarshotTestTraits
import Testing

@testable import EarshotLab

@Suite(.computing) struct BoundaryErrorsTests {
    let labelled = [LabeledSegment(start: 1.0, end: 2.0), LabeledSegment(start: 3.0, end: 4.5)]

    @Test func aPerfectPredictionHasNoError() {
        var errors = BoundaryErrors()
        errors.add(predicted: labelled, labelled: labelled)
        #expect(errors.start.meanAbsolute == 0 && errors.start.bias == 0 && errors.end.p90Absolute == 0)
        #expect(errors.start.matched == 2 && errors.start.missed == 0)
    }

    @Test func aPredictionShiftedBy100msHasA100msBias() {
        let shifted = labelled.map { LabeledSegment(start: $0.start + 0.1, end: $0.end + 0.1) }
        var errors = BoundaryErrors()
        errors.add(predicted: shifted, labelled: labelled)
        #expect(abs(errors.start.bias! - 0.1) < 1e-9)
        #expect(abs(errors.end.bias! - 0.1) < 1e-9)
        #expect(abs(errors.start.meanAbsolute! - 0.1) < 1e-9)
    }

    @Test func earlyBoundariesHaveNegativeBiasAndPositiveAbsoluteError() {
        var errors = BoundaryErrors()
        errors.add(predicted: [LabeledSegment(start: 0.8, end: 1.9)], labelled: [labelled[0]])
        #expect(abs(errors.start.bias! + 0.2) < 1e-9 && abs(errors.start.meanAbsolute! - 0.2) < 1e-9)
        #expect(abs(errors.end.bias! + 0.1) < 1e-9)
    }

    @Test func boundariesBeyondTheToleranceAreMissed() {
        var errors = BoundaryErrors(tolerance: 0.5)
        // One predicted segment spanning both labelled ones: the inner boundaries have no partner.
        errors.add(predicted: [LabeledSegment(start: 1.0, end: 4.5)], labelled: labelled)
        #expect(errors.start.matched == 1 && errors.start.missed == 1)
        #expect(errors.end.matched == 1 && errors.end.missed == 1)
        #expect(errors.start.meanAbsolute == 0)
    }
}
