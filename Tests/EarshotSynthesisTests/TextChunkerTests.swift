import EarshotTestTraits
import Testing

@testable import EarshotSynthesis

/// Where ``TextChunker`` cuts: after a sentence, else after a word, else between characters; never
/// more than the bound, and nothing lost.
@Suite(.computing) struct TextChunkerTests {
    @Test func sentencesAreCutAfterTheirPunctuationAndTheWhitespaceAfterIt() {
        let text = "Hello there. How are you?  Fine; thanks!\nBye"
        let pieces = TextChunker().sentences(text)
        #expect(pieces == ["Hello there. ", "How are you? ", " Fine; ", "thanks!\n", "Bye"])
        #expect(pieces.joined() == text)
        // Punctuation inside a word is no sentence's end.
        #expect(TextChunker().sentences("It costs 3.50 dollars, e.g.twice.") == ["It costs 3.50 dollars, e.g.twice."])
    }

    @Test func textWithinTheBoundIsOneChunk() {
        let text = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background."
        #expect(TextChunker(maxCharacters: 200).chunks(text) == [Substring(text)])
    }

    /// Packed chunks end at the last sentence within reach, even when a later word bound fits.
    @Test func chunksPreferASentenceBoundToALaterWordBound() {
        let text = "One two. Three four five six seven"
        #expect(TextChunker(maxCharacters: 20).chunks(text) == ["One two. ", "Three four five six ", "seven"])
    }

    @Test func aLongSentenceIsCutAtWordBounds() {
        let text = String(repeating: "nine ", count: 100) + "end"
        let chunker = TextChunker(maxCharacters: 48)
        let pieces = chunker.sentences(text)
        #expect(pieces.joined() == text)
        #expect(pieces.allSatisfy { $0.count <= 48 })
        #expect(pieces.dropLast().allSatisfy { $0.count == 45 && $0.hasSuffix(" ") }, "\(pieces)")
    }

    @Test func aWordLongerThanTheBoundIsCutBetweenCharacters() {
        let text = String(repeating: "9", count: 4_096)
        let pieces = TextChunker(maxCharacters: 200).chunks(text)
        #expect(pieces.count == 21)
        #expect(pieces.dropLast().allSatisfy { $0.count == 200 } && pieces.last?.count == 96)
        #expect(pieces.joined() == text)
        #expect(TextChunker(maxCharacters: 200).sentences(text) == pieces)
    }

    /// Characters, not bytes or scalars: a flag of two scalars or an accented letter is never split.
    @Test func cutsFallBetweenCharacters() {
        let text = String(repeating: "é🇫🇷", count: 50)
        let pieces = TextChunker(maxCharacters: 7).chunks(text)
        #expect(pieces.joined() == text)
        #expect(pieces.allSatisfy { $0.count <= 7 })
        #expect(pieces.allSatisfy { $0.unicodeScalars.first != "\u{1F1F7}" })
    }

    /// Whatever the text, the pieces join back to it and keep to the bound.
    @Test(arguments: [1, 2, 5, 17, 64, 200])
    func nothingIsLostAndTheBoundHolds(maxCharacters: Int) {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abc 9.!?;\n  é") + ["🇫🇷"]
        for _ in 0..<50 {
            let length = Int.random(in: 0...600, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            let chunker = TextChunker(maxCharacters: maxCharacters)
            for pieces in [chunker.chunks(text), chunker.sentences(text)] {
                #expect(pieces.joined() == text)
                #expect(pieces.allSatisfy { !$0.isEmpty && $0.count <= maxCharacters })
            }
        }
    }
}
