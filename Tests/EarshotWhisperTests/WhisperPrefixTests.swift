import EarshotCore
import EarshotRecognizer
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// Partial results that extend rather than restart (issue 47, item 3): a decode forced to continue a
/// prefix continues it as the free decode would, and the recognizer confirms only whole words that two
/// decodes agree on, so its partial text only ever grows — over a 25 s utterance too.
@Suite(.computing) struct WhisperPrefixTests {
    static let clips = [
        "0870", "0880", "0890", "0920", "0930",
    ].map { "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-\($0).wav" }

    static var greedy: WhisperOptions {
        WhisperOptions(beamSize: 1, temperatures: [0], wordTimestamps: false)
    }

    /// Forcing the first words the free greedy decode chose gives back the free decode's text: the
    /// forced tokens are run as if generated, and the search goes on from them.
    @Test func aForcedPrefixContinuesAsTheFreeDecodeWould() throws {
        let model = try WhisperFixtures.model()
        let samples = try WhisperFixtures.samples(Self.clips[0])
        let transcriber = try WhisperTranscriber(model: model, options: Self.greedy)
        let free = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0) }
        let text = free.flatMap(\.tokens).filter { $0 < model.tokenizer.endOfText }
        #expect(text.count > 12)
        var forced = Self.greedy
        forced.prefix = Array(text.prefix(8))
        let continued = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: forced) }
        #expect(continued.map(\.text).joined() == free.map(\.text).joined())
        #expect(continued.flatMap(\.tokens).filter { $0 < model.tokenizer.endOfText }.starts(with: forced.prefix))

        // A prefix the model would not say is continued all the same: it is the text's start.
        forced.prefix = model.tokenizer.encode(" Elephants")
        let steered = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: forced) }
        #expect(steered.map(\.text).joined().hasPrefix(" Elephants"), "\(steered.map(\.text))")

        // Only greedy decoding continues a prefix.
        forced.beamSize = 5
        #expect(throws: EarshotError.self) {
            try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: forced) }
        }
    }

    /// Agreement stops at whole words: a word the two decodes share only in part is not confirmed.
    @Test func onlyWholeWordsTheTwoDecodesShareAreConfirmed() throws {
        let tokenizer = try WhisperFixtures.model().tokenizer
        let confirmed = tokenizer.encode(" Had he")
        let previous = confirmed + tokenizer.encode(" married a more amiable")
        let latest = confirmed + tokenizer.encode(" married a more amiableness")
        let agreed = WhisperRecognizer.agreedWords(previous, latest, after: confirmed, tokenizer: tokenizer)
        #expect(tokenizer.decode(agreed) == " married a more")
        // Both decodes end on the same word: it is whole.
        let same = WhisperRecognizer.agreedWords(previous, previous, after: confirmed, tokenizer: tokenizer)
        #expect(tokenizer.decode(same) == " married a more amiable")
        // A decode that revises the confirmed words confirms nothing more.
        let revised = tokenizer.encode(" And he married a more amiable")
        #expect(WhisperRecognizer.agreedWords(previous, revised, after: confirmed, tokenizer: tokenizer).isEmpty)
    }

    /// 25 s of continuous reading, half a second at a time: every partial extends the one before, they
    /// keep coming to the end, and the last one holds most of the final transcript's words.
    @Test func partialsOfALongUtteranceOnlyGrowToTheEnd() throws {
        let samples = try Self.clips.flatMap { try WhisperFixtures.samples($0) }
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model(), partialPacing: .everySecondOfAudio)
        try recognizer.startUtterance()
        // Each new text, with the seconds of audio fed when it came.
        var partials: [(seconds: Double, text: String)] = []
        for (seconds, partial) in try WhisperRecognizerTests.partials(recognizer, samples)
        where partial.text != partials.last?.text {
            partials.append((seconds, partial.text))
        }
        let final = try recognizer.endUtterance().text
        for (earlier, later) in zip(partials, partials.dropFirst()) {
            #expect(later.text.hasPrefix(earlier.text), "\(earlier.text) → \(later.text)")
        }
        #expect(partials.count >= 10, "\(partials.map(\.seconds))")
        #expect((partials.last?.seconds ?? 0) >= 20, "the partials stopped at \(partials.last?.seconds ?? 0) s")
        let partialWords = partials.last?.text.split(separator: " ").count ?? 0
        let finalWords = final.split(separator: " ").count
        #expect(Double(partialWords) >= 0.75 * Double(finalWords), "\(partials.last?.text ?? "") vs \(final)")
    }
}
