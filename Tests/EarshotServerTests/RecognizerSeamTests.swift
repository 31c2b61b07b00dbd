import EarshotCodecs
import EarshotCore
import EarshotRecognizer
import EarshotServer
import EarshotServerTesting
import EarshotTesting
import EarshotTestTraits
import Foundation
import Synchronization
import Testing

/// The service's routes know their recognizers only through ``GrammarRecognizer``: given PocketSphinx
/// behind a recorder of what is asked of it, the service answers as with PocketSphinx itself, and every
/// reset, sample, grammar and result goes through the protocol.
@Suite(.serialized, .waiting) struct RecognizerSeamTests {
    /// What the routes asked of the recognizers, across all of them.
    final class Ledger: Sendable {
        struct Entries {
            var loads = 0
            var resets = 0
            var utterances = 0
            var abandoned = 0
            var frames = 0
            var grammars: [GrammarUse?] = []
            var lexicons = 0
        }
        let entries = Mutex(Entries())
        func record(_ change: (inout Entries) -> Void) { entries.withLock { change(&$0) } }
        var now: Entries { entries.withLock { $0 } }
    }

    /// PocketSphinx, with each call written down first.
    final class RecordingRecognizer: GrammarRecognizer {
        let inner: PocketSphinxRecognizer
        let ledger: Ledger

        init(ledger: Ledger) throws {
            inner = try PocketSphinxRecognizer()
            self.ledger = ledger
            ledger.record { $0.loads += 1 }
        }

        var format: AudioFormat { inner.format }
        var hasAddedWords: Bool { inner.hasAddedWords }

        func startUtterance() throws {
            ledger.record { $0.utterances += 1 }
            try inner.startUtterance()
        }

        func accept(_ buffer: AudioBuffer) throws {
            ledger.record { $0.frames += buffer.frameCount }
            try inner.accept(buffer)
        }

        func accept(_ buffer: AudioBuffer, frames: Range<Int>) throws {
            ledger.record { $0.frames += frames.count }
            try inner.accept(buffer, frames: frames)
        }

        func partialResult() throws -> RecognitionResult? { try inner.partialResult() }
        func endUtterance() throws -> RecognitionResult { try inner.endUtterance() }

        func abandonUtterance() {
            ledger.record { $0.abandoned += 1 }
            inner.abandonUtterance()
        }

        func resetAdaptation() throws {
            ledger.record { $0.resets += 1 }
            try inner.resetAdaptation()
        }

        func addPronunciations(_ lexicon: PronunciationLexicon) throws {
            ledger.record { $0.lexicons += 1 }
            try inner.addPronunciations(lexicon)
        }

        func useGrammar(_ grammar: RecognitionGrammar?, as use: GrammarUse) throws {
            ledger.record { $0.grammars.append(grammar == nil ? nil : use) }
            try inner.useGrammar(grammar, as: use)
        }
    }

    static func startService(_ ledger: Ledger) async throws -> RunningService {
        try await RunningService.start(loadRecognizer: { try RecordingRecognizer(ledger: ledger) }) {
            $0.recognizerCount = 1
        }
    }

    @Test func speechToTextAndOpenAIRecognizeThroughTheProtocol() async throws {
        let ledger = Ledger()
        let server = try await Self.startService(ledger)
        let token = try await server.token()
        // 16 kHz L16: the recognizer's own format, so every sample reaches it unresampled.
        let audio = try SpeechFixtures.encoded(.l16)
        let expected = try SpeechFixtures.reference(audio, format: .l16)

        let speech = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: CodecFormat.l16.contentType()),
            body: audio)
        #expect(speech.status == 200, "\(speech.text)")
        let recognition = speech.json?["Recognition"] as? [String: Any]
        let best = (recognition?["NBest"] as? [[String: Any]])?.first
        #expect(best?["Hypothesis"] as? String == expected)
        var seen = ledger.now
        #expect(seen.loads == 1 && seen.resets == 1 && seen.utterances == 1)
        #expect(seen.frames == audio.count / 2)
        // Taken back into the pool with the grammar dropped.
        #expect(seen.grammars == [nil])

        let boundary = "earshot-seam"
        let form =
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\npocketsphinx-en-us\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"speech.wav\"\r\n"
            + "Content-Type: audio/wav\r\n\r\n"
        let wav = try SpeechFixtures.encoded(.wav)
        let openAI = try await LoopbackClient.post(
            port: server.port, path: "/v1/audio/transcriptions",
            headers: [
                ("Authorization", "Bearer \(token)"), ("Content-Type", "multipart/form-data; boundary=\(boundary)"),
            ],
            body: Array(form.utf8) + wav + Array("\r\n--\(boundary)--\r\n".utf8))
        #expect(openAI.status == 200, "\(openAI.text)")
        #expect(openAI.json?["text"] as? String == (try SpeechFixtures.reference(wav, format: .wav)))
        seen = ledger.now
        #expect(seen.loads == 1 && seen.resets == 2 && seen.utterances == 2)
        #expect(seen.frames > audio.count / 2)
        #expect(seen.abandoned == 0)

        // A body that is not what it claims: the utterance is abandoned, not ended for a result.
        let garbage = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"),
            body: Array("this is not AMR".utf8))
        #expect(garbage.status == 400, "\(garbage.text)")
        seen = ledger.now
        #expect(seen.utterances == 3 && seen.abandoned == 1)
        try await server.stop()
    }

    @Test func grammarsAndLexiconsReachTheRecognizerThroughTheProtocol() async throws {
        let ledger = Ledger()
        let server = try await Self.startService(ledger)
        let token = try await server.token(scope: "STTC")
        let card = try #require(try CardsRecordings.load().first)
        let voice = ("x-voice", "audio/wav", try SpeechToTextCustomTests.wav(card.path))
        let grammar = ("x-grammar", "application/srgs+xml", try CardsRecordings.grammar())

        let listed = try await SpeechToTextCustomTests.post(
            server, token: token, context: "GrammarList", SpeechToTextCustomTests.multipart([grammar, voice]))
        #expect(SpeechToTextCustomTests.hypothesis(listed) == card.transcript, "\(listed.text)")
        #expect(ledger.now.grammars == [.only, nil])

        let hinted = try await SpeechToTextCustomTests.post(
            server, token: token, context: "GenericHints", SpeechToTextCustomTests.multipart([grammar, voice]))
        #expect(hinted.status == 200, "\(hinted.text)")
        #expect(ledger.now.grammars == [.only, nil, .hints, nil])

        // A lexicon changes the dictionary for good: the pool drops that recognizer and loads another.
        let lexicon = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
              <lexeme><grapheme>clubz</grapheme><phoneme>klʌbz</phoneme></lexeme>
            </lexicon>
            """.utf8)
        let taught = try await SpeechToTextCustomTests.post(
            server, token: token, context: "GrammarList",
            SpeechToTextCustomTests.multipart([("x-dictionary", "application/pls+xml", lexicon), grammar, voice]))
        #expect(taught.status == 200, "\(taught.text)")
        #expect(ledger.now.lexicons == 1 && ledger.now.loads == 1)
        let after = try await SpeechToTextCustomTests.post(
            server, token: token, context: "GrammarList", SpeechToTextCustomTests.multipart([grammar, voice]))
        #expect(SpeechToTextCustomTests.hypothesis(after) == card.transcript, "\(after.text)")
        #expect(ledger.now.loads == 2)
        try await server.stop()
    }
}
