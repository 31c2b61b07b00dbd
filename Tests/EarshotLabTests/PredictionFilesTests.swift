import EarshotCore
import EarshotTesting
import EarshotTestTraits
import EarshotVAD
import Foundation
import Testing

@testable import EarshotLab

/// Another tool's predictions: segments (`NAME.csv`) are scored as the tool gave them, probabilities
/// (`NAME.prob`) are smoothed as our detectors' are.
@Suite(.computing) struct PredictionFilesTests {
    static let segments = "start,end\n0.50,1.20\n1.60,2.30\n"

    @Test func segmentsAreScoredAsGivenWithoutOurSmoothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Array(Self.segments.utf8), to: "x.csv")
        let track = try PredictionFiles.segments(at: path, duration: 3)
        #expect(track.isDecided)
        // Default smoothing would pad each segment by 30 ms and hold it 50 ms longer; as given, the
        // decisions are the segments to the 10 ms cell.
        let replay = try track.replay(
            smoothing: SmoothingConfiguration(), endpointer: try EndpointerConfiguration(), keepingDecisions: true)
        let spans = replay.decisions.speechSegments().map {
            [($0.lowerBound.seconds * 100).rounded() / 100, ($0.upperBound.seconds * 100).rounded() / 100]
        }
        #expect(spans == [[0.5, 1.2], [1.6, 2.3]])
    }

    @Test func probabilitiesAreSmoothedLikeOurs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cells = (0..<300).map { $0 >= 50 && $0 < 120 ? "1" : "0" }.joined(separator: "\n")
        let path = try directory.write(Array(cells.utf8), to: "x.prob")
        let track = try PredictionFiles.probabilities(at: path)
        #expect(!track.isDecided)
        let replay = try track.replay(
            smoothing: SmoothingConfiguration(), endpointer: try EndpointerConfiguration(), keepingDecisions: true)
        let span = try #require(replay.decisions.speechSegments().first)
        #expect(span.lowerBound.seconds < 0.5 && span.upperBound.seconds > 1.2, "padded: \(span)")
    }
}
