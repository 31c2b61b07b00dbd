import EarshotCodecs
import EarshotServer
import EarshotServerTesting
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// `/speech/v3/speechToTextCustom` on a loopback port: real grammars, lexicons and recordings.
@Suite(.serialized, .waiting) struct SpeechToTextCustomTests {
    static let boundary = "earshot-test-boundary-2c1f"
    static let path = "/speech/v3/speechToTextCustom"

    static func multipart(_ parts: [(name: String, type: String, bytes: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for part in parts {
            body += Array(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\"\r\n"
                    + "Content-Type: \(part.type)\r\n\r\n").utf8)
            body += part.bytes + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    static func headers(token: String, context: String) -> [(String, String)] {
        SpeechFixtures.speechHeaders(
            token: token, contentType: "multipart/x-srgs-audio; boundary=\(boundary)", context: context)
    }

    static func wav(_ path: String) throws -> [UInt8] {
        try #require(FileManager.default.contents(atPath: path)).map { $0 }
    }

    static func hypothesis(_ reply: HTTPReply) -> String? {
        let recognition = reply.json?["Recognition"] as? [String: Any]
        return ((recognition?["NBest"] as? [[String: Any]])?.first)?["Hypothesis"] as? String
    }

    /// The `Text` of a `RequestError` answer.
    static func errorText(_ reply: HTTPReply) -> String {
        let error = reply.json?["RequestError"] as? [String: Any]
        let exception = (error?["ServiceException"] ?? error?["PolicyException"]) as? [String: Any]
        return exception?["Text"] as? String ?? ""
    }

    static func post(_ server: RunningService, token: String, context: String, _ body: [UInt8]) async throws -> HTTPReply {
        try await LoopbackClient.post(
            port: server.port, path: path, headers: headers(token: token, context: context), body: body,
            framing: .chunked(size: 512, interval: 0))
    }

    @Test func grammarListRecognizesTheCardsRecordings() async throws {
        let server = try await RunningService.start()
        let token = try await server.token(scope: "STTC")
        let grammar = try CardsRecordings.grammar()
        for card in try CardsRecordings.load() {
            let body = Self.multipart([
                ("x-grammar", "application/srgs+xml", grammar), ("x-voice", "audio/wav", try Self.wav(card.path)),
            ])
            let reply = try await Self.post(server, token: token, context: "GrammarList", body)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Self.hypothesis(reply) == card.transcript, "\(card.id): \(reply.text)")
        }
        try await server.stop()
    }

    @Test func genericHintsFavourTheGrammarAndStillTranscribeOtherSpeech() async throws {
        let server = try await RunningService.start()
        let token = try await server.token(scope: "SPEECH,STTC")
        let grammar = try CardsRecordings.grammar()
        let card = try #require(try CardsRecordings.load().first { $0.id == "002" })
        let hinted = try await Self.post(
            server, token: token, context: "GenericHints",
            Self.multipart([
                ("x-grammar", "application/srgs+xml", grammar), ("x-voice", "audio/wav", try Self.wav(card.path)),
            ]))
        #expect(Self.hypothesis(hinted) == "four queen of clubs", "\(hinted.text)")
        // Speech the grammar does not cover comes out as Speech to Text hears it.
        let speex = try SpeechFixtures.encoded(.speexWideband)
        let contentType = CodecFormat.speexWideband.contentType()
        let other = try await Self.post(
            server, token: token, context: "GenericHints",
            Self.multipart([("x-grammar", "application/srgs+xml", grammar), ("x-voice", contentType, speex)]))
        #expect(other.status == 200, "\(other.text)")
        #expect(Self.hypothesis(other) == (try SpeechFixtures.reference(speex, format: .speexWideband)))
        try await server.stop()
    }

    @Test func aLexiconTeachesWordsToOneRequestOnly() async throws {
        let server = try await RunningService.start { $0.recognizerCount = 1 }
        let token = try await server.token(scope: "STTC")
        let grammar = Array(
            String(decoding: try CardsRecordings.grammar(), as: UTF8.self)
                .replacingOccurrences(of: "<item>clubs</item>", with: "<item>clubz</item>").utf8)
        let lexicon = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
              <lexeme><grapheme>clubz</grapheme><phoneme>klʌbz</phoneme></lexeme>
            </lexicon>
            """.utf8)
        let card = try #require(try CardsRecordings.load().first)
        let voice = ("x-voice", "audio/wav", try Self.wav(card.path))
        let taught = try await Self.post(
            server, token: token, context: "GrammarList",
            Self.multipart([
                ("x-dictionary", "application/pls+xml", lexicon), ("x-grammar", "application/srgs+xml", grammar), voice,
            ]))
        #expect(Self.hypothesis(taught) == "ten of clubz", "\(taught.text)")
        // The same pool's next request has never heard of "clubz".
        let untaught = try await Self.post(
            server, token: token, context: "GrammarList",
            Self.multipart([("x-grammar", "application/srgs+xml", grammar), voice]))
        #expect(untaught.status == 400)
        #expect(Self.errorText(untaught).contains("clubz"), "\(untaught.text)")
        try await server.stop()
    }

    @Test func malformedRequestsGetServiceExceptionsNamingThePart() async throws {
        let server = try await RunningService.start { $0.maxGrammarBytes = 4096 }
        let token = try await server.token(scope: "STTC")
        let grammar = try CardsRecordings.grammar()
        let voice = ("x-voice", "audio/wav", try Self.wav("\(CardsRecordings.directory)/004.wav"))
        let cases: [(String, [UInt8], Int, String)] = [
            ("voice first", Self.multipart([voice, ("x-grammar", "application/srgs+xml", grammar)]), 400, "cannot "),
            ("no grammar", Self.multipart([voice]), 400, "cannot "),
            ("no voice", Self.multipart([("x-grammar", "application/srgs+xml", grammar)]), 400, "no x-voice part"),
            ("text as grammar", Self.multipart([("x-grammar", "application/srgs+xml", Array("ten of clubs".utf8)), voice]),
             400, "x-grammar part: not well-formed XML"),
            ("ABNF grammar", Self.multipart([("x-grammar", "application/srgs", grammar), voice]), 400, "ABNF"),
            ("unknown part", Self.multipart([("x-notes", "text/plain", [65]), voice]), 400, "x-notes"),
            ("unknown words", Self.multipart([
                ("x-grammar", "application/srgs+xml",
                 Array("<grammar root='r'><rule id='r'>qqzx blorf</rule></grammar>".utf8)), voice,
            ]), 400, "blorf, qqzx"),
            ("text as voice", Self.multipart([
                ("x-grammar", "application/srgs+xml", grammar), ("x-voice", "audio/wav", Array("hello world".utf8)),
            ]), 400, "stream format is not"),
            ("cut short", Array(Self.multipart([("x-grammar", "application/srgs+xml", grammar), voice]).dropLast(40)),
             400, "before the closing boundary"),
            ("huge grammar", Self.multipart([("x-grammar", "application/srgs+xml", grammar + [UInt8](repeating: 32, count: 5000)), voice]),
             413, "limit of 4096 bytes"),
        ]
        for (label, body, status, text) in cases {
            let reply = try await Self.post(server, token: token, context: "GrammarList", body)
            #expect(reply.status == status, "\(label): \(reply.text)")
            let exception = (reply.json?["RequestError"] as? [String: Any])?["ServiceException"] as? [String: Any]
            #expect(exception?["MessageId"] as? String == "SVC0001", "\(label)")
            #expect((exception?["Text"] as? String)?.contains(text) == true, "\(label): \(reply.text)")
        }
        // And the service still answers a good request.
        let good = try await Self.post(
            server, token: token, context: "GrammarList",
            Self.multipart([("x-grammar", "application/srgs+xml", grammar), voice]))
        #expect(Self.hypothesis(good) == "five five")
        try await server.stop()
    }

    @Test func headersScopesAndContextsAreChecked() async throws {
        let server = try await RunningService.start()
        let custom = try await server.token(scope: "STTC")
        let speech = try await server.token(scope: "SPEECH")
        let body = Self.multipart([
            ("x-grammar", "application/srgs+xml", try CardsRecordings.grammar()),
            ("x-voice", "audio/wav", try Self.wav("\(CardsRecordings.directory)/004.wav")),
        ])
        let wrongScope = try await Self.post(server, token: speech, context: "GrammarList", body)
        #expect(wrongScope.status == 401)
        #expect(wrongScope.header("WWW-Authenticate")?.contains("not STTC") == true)
        let wrongContext = try await Self.post(server, token: custom, context: "VoiceMail", body)
        #expect(wrongContext.status == 400)
        #expect(Self.errorText(wrongContext).contains("GenericHints, GrammarList"))
        let notMultipart = try await LoopbackClient.post(
            port: server.port, path: Self.path,
            headers: SpeechFixtures.speechHeaders(token: custom, contentType: "audio/wav", context: "GrammarList"),
            body: body)
        #expect(notMultipart.status == 400)
        #expect(Self.errorText(notMultipart).contains("expected multipart/x-srgs-audio"))
        let noBoundary = try await LoopbackClient.post(
            port: server.port, path: Self.path,
            headers: SpeechFixtures.speechHeaders(token: custom, contentType: "multipart/x-srgs-audio", context: "GrammarList"),
            body: body)
        #expect(Self.errorText(noBoundary).contains("lacks a boundary"))
        // A Speech to Text Custom token does not open Speech to Text.
        let plain = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: custom, contentType: "audio/wav"), body: try Self.wav("\(CardsRecordings.directory)/004.wav"))
        #expect(plain.status == 401)
        try await server.stop()
    }
}
