import EarshotTestTraits
import Testing

@testable import EarshotLab

@Suite(.computing) struct FrameGridTests {
    @Test func cellsAreThoseWhoseMidpointIsInsideTheFile() {
        #expect(FrameGrid.cellCount(duration: 1.0) == 100)
        #expect(FrameGrid.cellCount(duration: 1.004) == 100)  // midpoint of cell 100 is 1.005
        #expect(FrameGrid.cellCount(duration: 1.006) == 101)
        #expect(FrameGrid.cellCount(duration: 0) == 0)
    }

    @Test func labelsTakeTheSegmentCoveringEachMidpoint() {
        let labels = FrameGrid.labels([LabeledSegment(start: 0.02, end: 0.046)], cellCount: 6)
        // Midpoints 5, 15, 25, 35, 45, 55 ms: 25, 35 and 45 ms are inside [20, 46) ms.
        #expect(labels == [false, false, true, true, true, false])
    }

    @Test func detectorFramesOfAnyHopMapOntoTheGrid() {
        // A 30 ms hop: frames [0,30) p=0.1, [30,60) p=0.9.
        let values = FrameGrid.values([(0, 0.03, 0.1), (0.03, 0.06, 0.9)], cellCount: 7)
        #expect(values == [0.1, 0.1, 0.1, 0.9, 0.9, 0.9, 0])
    }

    @Test func segmentsFromDecisionsRoundTrip() {
        let segments = [LabeledSegment(start: 0.1, end: 0.3), LabeledSegment(start: 0.5, end: 0.6)]
        let decisions = FrameGrid.labels(segments, cellCount: 70)
        let back = FrameGrid.segments(from: decisions)
        #expect(back.count == 2)
        for (a, b) in zip(back, segments) {
            #expect(abs(a.start - b.start) < 1e-9 && abs(a.end - b.end) < 1e-9)
        }
    }
}
