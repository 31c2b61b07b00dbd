import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// The pieces of word alignment whose answers are known by hand: dynamic time warping, the median
/// filter, the standardization along tokens, and the grouping of tokens into words.
@Suite(.computing) struct TokenAlignmentTests {
    @Test func dynamicTimeWarpingFollowsTheWeightsAndPrefersAStepInTime() {
        // Token 0 is heard in frames 0–1, token 1 in frames 2–4. The expected paths are what
        // openai/whisper's `dtw_cpu` gives for the same matrices (and CTranslate2's `negative_dtw`).
        let weights: [Float] = [
            1, 1, 0, 0, 0,
            0, 0, 1, 1, 1,
        ]
        let path = TokenAlignment.dynamicTimeWarping(negated: weights, rows: 2, columns: 5)
        #expect(path.map { [$0.row, $0.frame] } == [[0, 0], [0, 1], [1, 1], [1, 2], [1, 3], [1, 4]])
        #expect(WordTiming.jumpFrames(path) == [0, 1], "token 1 enters at frame 1, where the path steps down")
        // All equal: every tie goes to a step in time, from the first token's row down to the last.
        let flat = TokenAlignment.dynamicTimeWarping(negated: [Float](repeating: 0, count: 6), rows: 2, columns: 3)
        #expect(flat.map { [$0.row, $0.frame] } == [[0, 0], [1, 0], [1, 1], [1, 2]])
    }

    @Test func theMedianFilterReflectsAtTheEdges() {
        var row: [Float] = [9, 1, 2, 3, 4, 5, 6, 100]
        row.withUnsafeMutableBufferPointer { TokenAlignment.medianFilter($0.baseAddress!, rows: 1, columns: 8, width: 7) }
        // Column 0 sees 3 2 1 9 1 2 3 (reflected): median 2. The spikes at both ends are filtered out
        // (numpy's median over np.pad(row, 3, mode="reflect") gives the same).
        #expect(row == [2, 2, 3, 4, 4, 5, 5, 5])
    }

    @Test func standardizingMakesEachFrameZeroMeanUnitVariance() {
        var x: [Float] = [1, 10, 3, 20]  // 2 rows × 2 frames
        x.withUnsafeMutableBufferPointer { TokenAlignment.standardizeColumns($0.baseAddress!, rows: 2, columns: 2) }
        #expect(x == [-1, -1, 1, 1])
    }

    @Test func tokensGroupIntoWordsAtSpacesAndPunctuation() throws {
        let tokenizer = try WhisperFixtures.model().tokenizer
        let tokens = tokenizer.encode(" Unless to be rather cold-hearted, Mr. Dashwood")
        let words = WordTiming.words(of: tokens + [tokenizer.endOfText], tokenizer: tokenizer).map(\.word)
        #expect(words == [" Unless", " to", " be", " rather", " cold", "-hearted", ",", " Mr", ".", " Dashwood", ""])
        #expect(words.dropLast().joined() == " Unless to be rather cold-hearted, Mr. Dashwood")
    }

    @Test func punctuationJoinsTheWordItBelongsTo() {
        func word(_ text: String) -> WordTiming.AlignedWord {
            WordTiming.AlignedWord(word: text, tokens: [0], start: 0, end: 0, probability: 1)
        }
        var words = [word(" \""), word(" Hello"), word(","), word(" world"), word(".\"")]
        WordTiming.mergePunctuation(&words)
        // As faster-whisper's merge_punctuations: `."` is not one of the appended marks, so it stays apart.
        #expect(words.map(\.word).filter { !$0.isEmpty } == [" \" Hello,", " world", ".\""])
    }

    @Test func theCompressionRatioIsZlibsAsFasterWhisperMeasuresIt() {
        // Python: len(b) / len(zlib.compress(b)) for b = ("la " * 40).strip().encode() → 119 / 14.
        let text = String(repeating: "la ", count: 40).trimmingCharacters(in: .whitespaces)
        #expect(WhisperTranscriber.compressionRatio(text) == 119.0 / 14.0)
        #expect(WhisperTranscriber.compressionRatio("") == 0)
    }
}
