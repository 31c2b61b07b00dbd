import EarshotCodecs
import EarshotServer
import EarshotServerTesting
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// The Speech API's language and task (issue 49, item 4): `Content-Language` picks the language as
/// the 2013 service did (`en-US` → `en`), and `X-Arg: Task=translate` asks for English text. A
/// recognizer that cannot honour them — PocketSphinx, the in-process service's model, is English and
/// does not translate — answers 400 naming the header, never an English transcript of another
/// language; a malformed value is a 400 naming the header too.
@Suite(.waiting) struct SpeechLanguageHeaderTests {
    func post(_ server: RunningService, token: String, _ extra: [(String, String)]) async throws -> HTTPReply {
        try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/wav", context: "Generic") + extra,
            body: try SpeechFixtures.encoded(.wav))
    }

    /// The `RequestError`'s exception: its `Text` and `Variables`.
    func refusal(_ reply: HTTPReply) -> (text: String, variables: String) {
        let error = reply.json?["RequestError"] as? [String: Any]
        let exception = error?["ServiceException"] as? [String: Any]
        return (exception?["Text"] as? String ?? "", exception?["Variables"] as? String ?? "")
    }

    @Test func languageAndTaskReachTheRecognizerOrAreRefusedNamingTheHeader() async throws {
        let server = try await RunningService.start()
        let token = try await server.token()
        #expect(try await post(server, token: token, [("Content-Language", "en-US")]).status == 200)
        #expect(try await post(server, token: token, [("X-Arg", "Task=transcribe")]).status == 200)

        let french = try await post(server, token: token, [("Content-Language", "fr-FR")])
        #expect(french.status == 400)
        #expect(refusal(french).variables == "Content-Language", "\(refusal(french))")
        #expect(refusal(french).text.contains("language 'fr'"), "\(refusal(french))")

        let translate = try await post(server, token: token, [("X-Arg", "Task=translate")])
        #expect(translate.status == 400)
        #expect(refusal(translate).variables == "X-Arg" && refusal(translate).text.contains("translate"))

        let malformed = try await post(server, token: token, [("Content-Language", "1234")])
        #expect(malformed.status == 400 && refusal(malformed).variables == "Content-Language")
        let unknownTask = try await post(server, token: token, [("X-Arg", "Task=dance")])
        #expect(unknownTask.status == 400 && refusal(unknownTask).text.contains("expected transcribe or translate"))
        // Nothing was lent for long: every refusal gave its recognizer back.
        #expect(server.service.pools.busyCount == 0)
        try await server.stop()
    }
}
