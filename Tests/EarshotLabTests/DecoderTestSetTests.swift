import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

/// What a decoder sweep decodes: labelled speech cut into utterances as a live endpoint would cut it.
@Suite(.computing)
struct DecoderTestSetTests {
    static func segment(_ start: Double, _ end: Double) -> LabeledSegment {
        LabeledSegment(start: start, end: end)
    }

    @Test func shortPausesJoinAndEachRunIsPaddedWithinTheRecording() {
        // 0.5 s pause: joined; 2 s pause: a new utterance; the padding stops at the recording's ends.
        let cuts = DecoderTestSet.cuts(
            of: [Self.segment(0.1, 1.0), Self.segment(1.5, 2.0), Self.segment(4.0, 5.9)], duration: 6.0)
        #expect(cuts == [0..<36_800, 59_200..<96_000])
    }

    @Test func theCommittedLongSampleIsTwoUtterancesOfTwentyTwoWords() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("corpora/long/sample").path
        let set = try DecoderTestSet(corpora: [try Corpus.load(directory: directory)])
        #expect(set.utteranceCount == 2)
        #expect(set.recordings.first?.transcript.split(separator: " ").count == 22)
        let buffers = set.recordings.flatMap(\.utterances).flatMap { $0 }
        #expect(buffers.allSatisfy { $0.format == .wideband && $0.frameCount <= 1_600 })
        // Speech 1.087–3.617 s and 6.451–11.272 s: the 2.8 s pause between them ends an utterance.
        #expect(abs(set.audioSeconds - (3.617 - 1.087 + 0.6 + 11.272 - 6.451 + 0.6)) < 0.001)
    }
}
