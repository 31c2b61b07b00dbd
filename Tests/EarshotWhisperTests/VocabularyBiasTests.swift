import EarshotRecognizer
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// The bias toward a custom vocabulary, on rows of zeros: which tokens gain the bonus, what a word
/// begun and abandoned gives back, and that ending stays level with going on.
@Suite(.computing) struct VocabularyBiasTests {
    let tokenizer: WhisperTokenizer
    let bias: VocabularyBias

    init() throws {
        tokenizer = try WhisperFixtures.model().tokenizer
        bias = try #require(VocabularyBias(words: ["Tartakower", "knight"], bonus: 2, tokenizer: tokenizer))
    }

    func scores(after generated: [Int]) -> [Float] {
        var row = [Float](repeating: 0, count: tokenizer.count)
        row.withUnsafeMutableBufferPointer {
            bias.apply(to: $0.baseAddress!, count: $0.count, generated: generated[...])
        }
        return row
    }

    @Test func aWordsFirstTokenGainsTheBonusInEveryForm() throws {
        let row = scores(after: [])
        for form in [" Tartakower", " tartakower", " knight", " Knight"] {
            let first = try #require(tokenizer.encode(form).first)
            #expect(row[first] == 2, "\(form)")
        }
        let firsts = Set([" Tartakower", " tartakower", " knight", " Knight"].map { tokenizer.encode($0)[0] })
        #expect(Set(row.indices.filter { $0 < tokenizer.endOfText && row[$0] != 0 }) == firsts)
        // Ending stands level with starting a word.
        #expect(row[tokenizer.endOfText] == 2 && row[tokenizer.timestampBegin + 10] == 2)
    }

    @Test func aWordBegunGainsForEachTokenAndGivesItAllBackWhenAbandoned() throws {
        let spelled = tokenizer.encode(" Tartakower")
        try #require(spelled.count >= 3, "the test needs a word of several tokens")
        let begun = Array(spelled.prefix(2))
        let row = scores(after: [50, 60] + begun)
        // Continuing gains the bonus; anything else gives back the two tokens' bonus.
        #expect(row[spelled[2]] == 2)
        let period = tokenizer.encode(".")[0]
        #expect(row[period] == -4)
        #expect(row[tokenizer.endOfText] == -2)
        // Starting another vocabulary word instead: the refund, and that word's own bonus.
        #expect(row[tokenizer.encode(" knight")[0]] == -2)
    }

    @Test func aFinishedWordOwesNothing() {
        let row = scores(after: tokenizer.encode(" The knight"))
        #expect(row[tokenizer.encode(".")[0]] == 0)
        #expect(row[tokenizer.encode(" Tartakower")[0]] == 2)
    }

    /// Issue 51, item 5: the bonus paid for saying a word again, so Whisper repeated a phrase after the
    /// speech ("Play the Winawer variation. The Winawer variation."). A word said once in the window,
    /// in any form, gains no more — neither its first token nor the rest of it.
    @Test func aWordSaidInTheWindowGainsNoMore() throws {
        let knight = tokenizer.encode(" knight")[0]
        let comma = tokenizer.encode(",")[0]
        let row = scores(after: [knight, comma])
        #expect(row[knight] == 0)
        #expect(row[tokenizer.encode(" Knight")[0]] == 0, "another form of the same word")
        #expect(row[tokenizer.encode(" Tartakower")[0]] == 2, "other words keep theirs")
        let spelled = tokenizer.encode(" Tartakower")
        try #require(spelled.count >= 3)
        // Said once, then begun again: its next token gains nothing, and leaving it costs nothing.
        let again = scores(after: spelled + [comma] + Array(spelled.prefix(2)))
        #expect(again[spelled[2]] == 0)
        #expect(again[tokenizer.encode(".")[0]] == 0)
    }

    @Test func timestampsEndAWord() {
        let spelled = tokenizer.encode(" Tartakower")
        // A timestamp after the word's first token: the word is not in progress any more.
        let row = scores(after: [spelled[0], tokenizer.timestampBegin + 10])
        #expect(row[tokenizer.encode(".")[0]] == 0)
    }

    /// Issue 51, item 6: with the model's word order, a new word gains only where the phrases and
    /// templates let it follow the word before (looking past punctuation), and ending gains only where
    /// a phrase may end; after a finished command nothing new is begun on the bias's account.
    @Test func theWordOrderDecidesWhatMayFollowAndWhereAPhraseEnds() throws {
        let data = try JSONDecoder().decode(
            CustomLanguageModelData.self,
            from: Data(
                #"""
                {"locale": "en_US", "identifier": "t", "version": "1", "phrases": [{"phrase": "Play the Tartakower", "count": 1}],
                 "templates": [{"classes": {"piece": ["knight", "rook"], "rank": ["1", "2"]},
                                "templates": [{"template": "<piece> to <piece> <rank>", "count": 10}]}]}
                """#.utf8))
        let order = data.wordOrder()
        #expect(order.finals == ["tartakower", "1", "2"])
        let followers = { (word: String) in Set(order.next[word, default: []].flatMap { order.groups[$0] }) }
        #expect(followers("knight") == ["to", "1", "2"] && followers("to") == ["knight", "rook"])
        #expect(followers("play") == ["the"] && followers("1") == [])

        let ordered = try #require(
            VocabularyBias(
                words: ["Play", "the", "Tartakower", "knight", "rook", "to", "1", "2"], bonus: 2, tokenizer: tokenizer,
                order: order))
        func row(_ text: String) -> [Float] {
            var row = [Float](repeating: 0, count: tokenizer.count)
            row.withUnsafeMutableBufferPointer {
                ordered.apply(to: $0.baseAddress!, count: $0.count, generated: tokenizer.encode(text)[...])
            }
            return row
        }
        let (to, rook, one, play) = (
            tokenizer.encode(" to")[0], tokenizer.encode(" rook")[0], tokenizer.encode(" 1")[0],
            tokenizer.encode(" Play")[0]
        )
        for text in [" knight", " knight,"] {
            let after = row(text)
            #expect(after[to] == 2 && after[one] == 2, "\(text)")
            #expect(after[rook] == 0 && after[play] == 0, "\(text)")
            #expect(after[tokenizer.endOfText] == 0, "a move does not end at its piece")
        }
        let middle = row(" knight to")
        #expect(middle[rook] == 2 && middle[to] == 0)
        let done = row(" knight to rook 1.")
        #expect(done[tokenizer.endOfText] == 2 && done[tokenizer.timestampBegin + 10] == 2)
        #expect(done[play] == 0 && done[rook] == 0, "a finished command is not begun again")
        // After a word the model does not know, the order says nothing: every word may start.
        let unknown = row(" hello")
        #expect(unknown[rook] == 2 && unknown[play] == 2 && unknown[tokenizer.endOfText] == 2)
    }

    @Test func noWordsOrNoBonusIsNoBias() {
        #expect(VocabularyBias(words: [], bonus: 2, tokenizer: tokenizer) == nil)
        #expect(VocabularyBias(words: ["knight"], bonus: 0, tokenizer: tokenizer) == nil)
    }
}
