import EarshotCodecs
import EarshotServer
import EarshotServerTesting
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// The Earshot extension: NDJSON partial hypotheses while the upload continues, then the final document.
@Suite(.serialized, .waiting) struct PartialResultsTests {
    @Test func partialHypothesesArriveWhileUploadingThenTheFinalDocument() async throws {
        let server = try await RunningService.start()
        let clip = try #require(SpeechFixtures.clips.first { $0.id.hasSuffix("0870") })
        let audio = try SpeechFixtures.encoded(.speexWideband, clip: clip)
        let expected = try SpeechFixtures.reference(audio, format: .speexWideband)
        let token = try await server.token()
        // 7.1 s of speech sent at about twice real time; the client holds back the second half until the
        // answer begins, which only the partial-results extension does.
        let reply = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(
                token: token, contentType: CodecFormat.speexWideband.contentType(), context: "Generic")
                + [("X-Arg", "ClientApp=test, PartialResults=true"), ("Accept", "application/x-ndjson")],
            body: audio, framing: .chunked(size: 512, interval: 3.5 * 512 / Double(audio.count)),
            holdAfter: audio.count / 2)
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "application/x-ndjson")
        #expect(reply.beganMidUpload, "a partial result arrived while half the audio was still unsent")
        let lines = reply.text.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
        }
        let partials = lines.dropLast().compactMap { $0["PartialResult"] as? [String: Any] }
        #expect(partials.count == lines.count - 1, "every line but the last is a partial result")
        #expect(partials.count >= 3)
        let times = partials.compactMap { $0["audioTime"] as? Double }
        #expect(times == times.sorted() && times.count == partials.count)
        let final = try #require(lines.last?["Recognition"] as? [String: Any])
        #expect((final["NBest"] as? [[String: Any]])?.first?["Hypothesis"] as? String == expected)
        #expect(partials.allSatisfy { $0["ResponseId"] as? String == final["ResponseId"] as? String })
        try await server.stop()
    }

    @Test func clientsThatDoNotAskSeeThePlainAPI() async throws {
        let server = try await RunningService.start()
        let token = try await server.token()
        let audio = try SpeechFixtures.encoded(.amr)
        for extra in [[("X-Arg", "PartialResults=true")], [("Accept", "application/x-ndjson")]] {
            let reply = try await LoopbackClient.post(
                port: server.port, path: "/speech/v3/speechToText",
                headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr") + extra, body: audio)
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/json")
            #expect(reply.json?["Recognition"] != nil)
        }
        try await server.stop()
    }

    @Test func anErrorAfterTheAnswerBeganIsTheLastLine() async throws {
        let server = try await RunningService.start()
        let token = try await server.token()
        let reply = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr")
                + [("X-Arg", "PartialResults=true"), ("Accept", "application/x-ndjson")],
            body: Array("This is a text file, not audio.\n".utf8))
        #expect(reply.status == 200)
        let last = try #require(
            try JSONSerialization.jsonObject(with: Data(reply.text.split(separator: "\n").last!.utf8))
                as? [String: Any])
        #expect(last["status"] as? Int == 400)
        let exception = (last["RequestError"] as? [String: Any])?["ServiceException"] as? [String: Any]
        #expect(exception?["MessageId"] as? String == "SVC0001")
        #expect(server.service.pool.busyCount == 0)
        try await server.stop()
    }
}
