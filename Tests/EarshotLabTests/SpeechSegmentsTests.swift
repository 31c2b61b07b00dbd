import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct SpeechSegmentsTests {
    @Test func wordsBecomeSegmentsWithShortGapsMerged() {
        let words = [
            TimedWord(word: "a", start: 0.5, end: 0.8), TimedWord(word: "b", start: 0.95, end: 1.2),
            TimedWord(word: "c", start: 1.45, end: 1.6), TimedWord(word: "d", start: 1.79, end: 2.0),
        ]
        // 0.15 s and 0.19 s gaps merge; the 0.25 s gap does not.
        #expect(
            SpeechSegments.segments(from: words)
                == [LabeledSegment(start: 0.5, end: 1.2), LabeledSegment(start: 1.45, end: 2.0)])
    }

    @Test func activeSegmentsFindTonesInSilence() {
        // 0.5 s silence, 0.3 s tone, 0.1 s silence (merged), 0.3 s tone, 0.5 s silence, 0.2 s tone.
        var samples = [Float](repeating: 0, count: 8000)
        for length in [4800, -1600, 4800, -8000, 3200] {
            samples += (0..<abs(length)).map { (index: Int) -> Float in
                length > 0 ? Float(0.3 * sin(Double(index) * 0.3)) : 0
            }
        }
        let segments = SpeechSegments.activeSegments(of: samples, sampleRate: 16_000)
        #expect(
            segments == [LabeledSegment(start: 0.5, end: 1.2), LabeledSegment(start: 1.7, end: 1.9)])
        #expect(SpeechSegments.activeRange(of: samples, sampleRate: 16_000) == 8000..<30_400)
        #expect(SpeechSegments.activeRange(of: [0, 0, 0], sampleRate: 16_000) == nil)
    }
}
