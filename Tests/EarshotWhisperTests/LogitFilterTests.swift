import EarshotTestTraits
import Testing

@testable import EarshotWhisper

/// The timestamp grammar and suppression rules, on rows of logits whose winner each rule decides.
@Suite(.computing) struct LogitFilterTests {
    let tokenizer: WhisperTokenizer
    let filter: LogitFilter

    init() throws {
        tokenizer = try WhisperFixtures.model().tokenizer
        filter = LogitFilter(
            tokenizer: tokenizer, suppressed: tokenizer.defaultSuppressedTokens, suppressedAtBegin: [220, 50256],
            timestamps: true, maxInitialTimestampIndex: 50)
    }

    /// The tokens left allowed after the rules, for a row where `favoured` have logit 20 and the rest 0
    /// (with nothing favoured, the 1 501 timestamps together outweigh any one token, and force one).
    func allowed(after generated: [Int], favoured: [Int] = []) -> Set<Int> {
        var logits = [Float](repeating: 0, count: tokenizer.count)
        for token in favoured { logits[token] = 20 }
        var scratch = [Float](repeating: 0, count: tokenizer.count)
        logits.withUnsafeMutableBufferPointer { row in
            scratch.withUnsafeMutableBufferPointer {
                filter.apply(to: row.baseAddress!, generated: generated[...], scratch: $0.baseAddress!)
            }
        }
        return Set(logits.indices.filter { logits[$0] > LogProbabilities.suppressed })
    }

    var begin: Int { tokenizer.timestampBegin }

    @Test func theFirstTokenIsATimestampNoLaterThanOneSecond() {
        #expect(allowed(after: []) == Set(begin...(begin + 50)))
    }

    @Test func afterAClosedPairTextOrTheEndFollows() {
        let after = allowed(after: [begin, 50, begin + 20, begin + 20])
        #expect(after.allSatisfy { $0 < begin })
        #expect(after.contains(tokenizer.endOfText) && after.contains(50))
        #expect(!after.contains(tokenizer.noTimestamps) && !after.contains(tokenizer.startOfTranscript))
    }

    @Test func afterASegmentsEndOnlyTheEndOrALaterTimestampFollows() {
        let after = allowed(after: [begin, 50, 51, begin + 20], favoured: [50, tokenizer.endOfText])
        #expect(!after.contains(50) && after.contains(tokenizer.endOfText))
        #expect(after.contains(begin + 20) && !after.contains(begin + 19), "the next segment may start where this ended")
    }

    @Test func insideASegmentItsEndComesAfterItsStart() {
        let after = allowed(after: [begin + 10, 50], favoured: [50])
        #expect(!after.contains(begin + 10) && after.contains(begin + 11) && after.contains(50))
        #expect(allowed(after: [begin + 10, 50]).allSatisfy { $0 > begin + 10 }, "flat logits: a timestamp is forced")
    }

    @Test func timestampsTogetherLikelierThanAnyTextForceATimestamp() {
        // Every timestamp after 0.20 s at logit 5: together far likelier than the one text token at 5.
        let after = allowed(after: [begin, 50], favoured: [51] + Array((begin + 11)..<tokenizer.count))
        #expect(after.allSatisfy { $0 > begin })
    }

    @Test func speakerTagsAndMusicSignsAreNeverEmitted() {
        let symbols = ["♪", " (", " [", " -"].map { tokenizer.encode($0)[0] }
        let after = allowed(after: [begin, 50], favoured: symbols + [tokenizer.encode(" hello")[0], tokenizer.encode(",")[0]])
        for token in symbols { #expect(!after.contains(token), "\(token) is allowed") }
        #expect(after.contains(tokenizer.encode(" hello")[0]) && after.contains(tokenizer.encode(",")[0]))
    }
}
