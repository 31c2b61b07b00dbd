import EarshotLab
import EarshotTestTraits
import Testing

/// Word error rate on hand-aligned pairs whose counts are known exactly.
@Suite(.computing)
struct WordErrorRateTests {
    static let reference = "the cat sat on the mat"

    @Test(arguments: [
        // hypothesis, substitutions, deletions, insertions
        ("the cat sat on the mat", 0, 0, 0),
        ("the dog sat on the mat", 1, 0, 0),
        ("the cat sat on mat", 0, 1, 0),
        ("the cat sat on the the mat", 0, 0, 1),
        ("cat sat on the mat today", 0, 1, 1),
        ("a dog stood on the mat", 3, 0, 0),
        ("", 0, 6, 0),
    ])
    func countsEachKindOfError(hypothesis: String, substitutions: Int, deletions: Int, insertions: Int) {
        let score = WordErrorRate(reference: Self.reference, hypothesis: hypothesis)
        #expect(score.substitutions == substitutions)
        #expect(score.deletions == deletions)
        #expect(score.insertions == insertions)
        #expect(score.referenceWordCount == 6)
        #expect(score.rate == Double(substitutions + deletions + insertions) / 6)
    }

    @Test func pocketSphinxMishearingOfClip0880() {
        // PocketSphinx hears "ill disposed" as "illness those": two substitutions in eight words.
        let score = WordErrorRate(
            reference: "he was not an ill disposed young man", hypothesis: "he was not an illness those young man")
        #expect(score == WordErrorRate(substitutions: 2, deletions: 0, insertions: 0, referenceWordCount: 8))
        #expect(score.rate == 0.25)
        #expect(score.description == "WER 25.0% (S 2, D 0, I 0, N 8)")
    }

    @Test func tiesPreferSubstitutions() {
        // Both "S S" and "D, match, I" cost 2; the documented choice is two substitutions.
        let score = WordErrorRate(reference: "a b", hypothesis: "b a")
        #expect(score == WordErrorRate(substitutions: 2, deletions: 0, insertions: 0, referenceWordCount: 2))
    }

    @Test func rateCanExceedOne() {
        let score = WordErrorRate(reference: "yes", hypothesis: "no no no")
        #expect(score == WordErrorRate(substitutions: 1, deletions: 0, insertions: 2, referenceWordCount: 1))
        #expect(score.rate == 3)
    }

    @Test func emptyReference() {
        #expect(WordErrorRate(reference: "", hypothesis: "").rate == 0)
        let inserted = WordErrorRate(reference: " <> ", hypothesis: "hello there")
        #expect(inserted.insertions == 2 && inserted.referenceWordCount == 0)
        #expect(inserted.rate == .infinity)
    }

    @Test func normalisationIgnoresCaseAndPunctuation() {
        #expect(
            WordErrorRate.words(in: "Mr. Dashwood's  cold-hearted, \"selfish\" son!") == [
                "mr", "dashwood's", "cold", "hearted", "selfish", "son",
            ])
        #expect(WordErrorRate.words(in: "'Tis DON’T 42nd") == ["tis", "don't", "42nd"])
        let score = WordErrorRate(
            reference: "Unless to be rather COLD-HEARTED...", hypothesis: "unless to be rather cold hearted")
        #expect(score.errors == 0)
        // An apostrophe inside a word is part of it: "its" is not "it's".
        #expect(WordErrorRate(reference: "it's", hypothesis: "its").substitutions == 1)
    }

    @Test func numbersAndTitlesScoreAsOneSpelling() {
        #expect(
            WordErrorRate.standardized(["ten", "of", "clubs", "twenty", "one", "forty", "mr", "dashwood", "one's"]) == [
                "10", "of", "clubs", "21", "40", "mister", "dashwood", "one's",
            ])
        #expect(WordErrorRate(reference: "ten of clubs", hypothesis: "10 of clubs.").errors == 0)
        #expect(WordErrorRate(reference: "and mister john", hypothesis: "And Mr. John").errors == 0)
        #expect(WordErrorRate(reference: "four queen", hypothesis: "for queen").substitutions == 1)
    }

    @Test func corpusTotalsAddCountsNotRates() {
        let short = WordErrorRate(reference: "a b", hypothesis: "a c")
        let long = WordErrorRate(reference: "a b c d e f g h", hypothesis: "a b c d e f g h")
        let total = WordErrorRate.zero + short + long
        #expect(total == WordErrorRate(substitutions: 1, deletions: 0, insertions: 0, referenceWordCount: 10))
        #expect(total.rate == 0.1)
    }
}
