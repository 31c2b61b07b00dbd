import EarshotCore
import EarshotIO
import EarshotRecognizer
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// Grammars and lexicons on real recordings: the cards recordings of pocketsphinx-testdata with
/// the repository's SRGS cards grammar, and LibriVox sentences that the grammar does not cover.
@Suite(.computing) struct GrammarRecognitionTests {
    static func recording(_ path: String) throws -> AudioBuffer {
        let source = try AudioFileSource(path: path)
        var samples: [Float] = []
        while let block = try source.read() { samples.append(contentsOf: block.samples) }
        return AudioBuffer(format: source.format, samples: samples, startFrame: 0)
    }

    static func cards() throws -> RecognitionGrammar {
        try RecognitionGrammar(srgs: try CardsRecordings.grammar(), origin: "cards.grxml")
    }

    /// Each recording decoded as a fresh request is: adaptation reset first.
    static func transcribe(_ audio: AudioBuffer, with recognizer: PocketSphinxRecognizer) throws -> String {
        try recognizer.resetAdaptation()
        return try RecognizerFixtures.recognize(audio, blockFrames: 4096, with: recognizer).text
    }

    @Test func grammarListRecognizesEveryCardsRecording() throws {
        let recognizer = try PocketSphinxRecognizer()
        try recognizer.useGrammar(try Self.cards(), as: .only)
        for card in try CardsRecordings.load() {
            #expect(
                try Self.transcribe(try Self.recording(card.path), with: recognizer) == card.transcript, "\(card.id)")
        }
    }

    @Test func grammarListResultsCarryWordTimesInsideTheAudio() throws {
        let recognizer = try PocketSphinxRecognizer()
        try recognizer.useGrammar(try Self.cards(), as: .only)
        let card = try #require(try CardsRecordings.load().last)
        var audio = try Self.recording(card.path)
        audio.startFrame = 16_000
        let result = try RecognizerFixtures.recognize(audio, blockFrames: 1000, with: recognizer)
        let words = try #require(result.hypotheses.first?.words)
        #expect(words.map(\.word).joined(separator: " ") == card.transcript)
        #expect(words.first!.start >= 1)
        #expect(words.last!.end <= audio.endTime.seconds)
        #expect(zip(words, words.dropFirst()).allSatisfy { $0.end <= $1.start })
    }

    @Test func hintsFavourGrammarPhrasesAndLeaveOtherSpeechToTheLanguageModel() throws {
        let hinted = try PocketSphinxRecognizer()
        try hinted.useGrammar(try Self.cards(), as: .hints)
        let plain = try PocketSphinxRecognizer()
        var languageModelExact = 0
        for card in try CardsRecordings.load() {
            let audio = try Self.recording(card.path)
            #expect(try Self.transcribe(audio, with: hinted) == card.transcript, "\(card.id)")
            if try Self.transcribe(audio, with: plain) == card.transcript { languageModelExact += 1 }
        }
        // The hints matter: the language model alone gets most of these wrong ("for queen of clubs").
        #expect(languageModelExact <= 2)
        for clip in try LibriVoxClips.load().prefix(2) {
            let audio = try RecognizerFixtures.audio(of: clip)
            #expect(try Self.transcribe(audio, with: hinted) == (try Self.transcribe(audio, with: plain)), "\(clip.id)")
            #expect(try #require(hinted.lastHintDistance) > PocketSphinxRecognizer.hintTolerance)
        }
    }

    @Test func droppingTheGrammarDecodesAsAFreshRecognizer() throws {
        let recognizer = try PocketSphinxRecognizer()
        try recognizer.useGrammar(try Self.cards(), as: .only)
        let card = try #require(try CardsRecordings.load().first)
        _ = try Self.transcribe(try Self.recording(card.path), with: recognizer)
        try recognizer.useGrammar(nil)
        let clip = try RecognizerFixtures.clip(RecognizerFixtures.shortClipID)
        let audio = try RecognizerFixtures.audio(of: clip)
        #expect(
            try Self.transcribe(audio, with: recognizer) == (try Self.transcribe(audio, with: PocketSphinxRecognizer()))
        )
    }

    @Test func grammarWordsMissingFromTheDictionaryAreNamed() throws {
        let recognizer = try PocketSphinxRecognizer()
        let grammar = RecognitionGrammar(
            root: "r",
            rules: [
                .init(
                    id: "r", isPublic: true, expansion: .sequence([.token("ten"), .token("clubz"), .token("xyzzyq")]))
            ])
        let error = try #require(throws: EarshotError.self) { try recognizer.useGrammar(grammar) }
        #expect(error.code == .invalidInput)
        #expect(error.message.contains("clubz, xyzzyq"))
        #expect(error.message.contains("x-dictionary"))
    }

    @Test func lexiconWordsAreRecognized() throws {
        // "clubz" is no English word: only the lexicon can teach it, here in IPA.
        let lexicon = try PronunciationLexicon(
            pls: Array(
                """
                <lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
                  <lexeme><grapheme>clubz</grapheme><phoneme>klʌbz</phoneme></lexeme>
                </lexicon>
                """.utf8))
        let grammarText = String(decoding: try CardsRecordings.grammar(), as: UTF8.self)
            .replacingOccurrences(of: "<item>clubs</item>", with: "<item>clubz</item>")
        let grammar = try RecognitionGrammar(srgs: Array(grammarText.utf8))
        let recognizer = try PocketSphinxRecognizer()
        #expect(!recognizer.hasAddedWords)
        try recognizer.addPronunciations(lexicon)
        #expect(recognizer.hasAddedWords)
        #expect(recognizer.pronunciation(of: "clubz") == "K L AH B Z")
        try recognizer.useGrammar(grammar, as: .only)
        let card = try #require(try CardsRecordings.load().first)
        #expect(try Self.transcribe(try Self.recording(card.path), with: recognizer) == "ten of clubz")
    }

    @Test func lexiconAddsAlternatePronunciationsAndAliases() throws {
        let recognizer = try PocketSphinxRecognizer()
        let lexicon = try PronunciationLexicon(
            pls: Array(
                """
                <lexicon version="1.0" alphabet="x-arpabet" xml:lang="en-US">
                  <lexeme><grapheme>clubs</grapheme><phoneme>K L UW1 B Z</phoneme></lexeme>
                  <lexeme><grapheme>acehigh</grapheme><alias>ace high</alias></lexeme>
                </lexicon>
                """.utf8))
        try recognizer.addPronunciations(lexicon)
        #expect(recognizer.pronunciation(of: "clubs") == "K L AH B Z")
        #expect(recognizer.pronunciation(of: "clubs(2)") == "K L UW B Z")
        #expect(recognizer.pronunciation(of: "acehigh") == "EY S HH AY")
        let unknownAlias = try PronunciationLexicon(
            pls: Array(
                "<lexicon alphabet='ipa'><lexeme><grapheme>zz</grapheme><alias>qqqzz</alias></lexeme></lexicon>".utf8))
        let error = try #require(throws: EarshotError.self) { try recognizer.addPronunciations(unknownAlias) }
        #expect(error.message.contains("\"qqqzz\""))
    }
}
