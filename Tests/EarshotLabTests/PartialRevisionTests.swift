import EarshotLab
import EarshotTestTraits
import Testing

/// Issue 47: how many of the words a partial result showed the final result changed.
@Suite(.computing) struct PartialRevisionTests {
    @Test func wordsTheFinalTranscriptKeepsAreNotRevised() {
        // Casing, punctuation and numbers written as words are read as the word error rate reads them.
        #expect(
            PartialRevision(partial: "Ten of", final: "10 of clubs.") == PartialRevision(shownWords: 2, revisedWords: 0)
        )
        // A word the final result puts in front leaves the shown ones as they were.
        let extended = PartialRevision(
            partial: "Mr. John Dashwood had", final: "And Mr. John Dashwood had then leisure")
        #expect(extended == PartialRevision(shownWords: 4, revisedWords: 0))
    }

    @Test func aShownWordReplacedOrDroppedIsRevised() {
        let replaced = PartialRevision(partial: "four queen of clothes seven", final: "Four queen of clubs, seven.")
        #expect(replaced == PartialRevision(shownWords: 5, revisedWords: 1))
        #expect(
            PartialRevision(partial: "rear left left", final: "Rear, left.")
                == PartialRevision(shownWords: 3, revisedWords: 1))
        // Nothing shown, nothing revised.
        #expect(PartialRevision(partial: "", final: "Front, right.") == .zero)
    }

    @Test func talliesAddUp() {
        let sum =
            PartialRevision(partial: "go forward", final: "Go forward 10 meters.")
            + PartialRevision(partial: "side right", final: "Side, left.")
        #expect(sum == PartialRevision(shownWords: 4, revisedWords: 1))
    }
}
