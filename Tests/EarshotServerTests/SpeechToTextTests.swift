import EarshotCodecs
import EarshotServer
import EarshotServerTesting
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// The service on a loopback port, driven over real HTTP with real speech.
@Suite(.serialized, .waiting) struct SpeechToTextTests {
    /// Every wire format of the Speech API, recognized while it streams in chunked, matches what the
    /// embedded recognizer makes of the same audio decoded whole.
    @Test(arguments: [
        CodecFormat.speexWideband, .speexNarrowband, .amr, .wav, .l16, .flac, .opus,
    ])
    func everyContentTypeMatchesTheEmbeddedRecognizer(_ format: CodecFormat) async throws {
        let server = try await RunningService.start()
        defer { Task { try await server.stop() } }
        let audio = try SpeechFixtures.encoded(format)
        let (expected, duration) = try SpeechFixtures.referenceRecognition(audio, format: format)
        #expect(!expected.isEmpty)
        let token = try await server.token()
        let reply = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: format.contentType()), body: audio,
            framing: .chunked(size: 512, interval: 0))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.header("Content-Type") == "application/json")
        let recognition = try #require(reply.json?["Recognition"] as? [String: Any])
        #expect(recognition["Status"] as? String == "OK")
        let best = try #require((recognition["NBest"] as? [[String: Any]])?.first)
        #expect(best["Hypothesis"] as? String == expected)
        let metrics = try #require((recognition["Info"] as? [String: Any])?["metrics"] as? [String: Any])
        #expect(metrics["audioBytes"] as? Int == audio.count)
        #expect(abs((metrics["audioTime"] as? Double ?? 0) - duration) < 0.001)
        #expect((recognition["ResponseId"] as? String)?.count == 32)
        #expect(reply.header("X-ResponseId") == recognition["ResponseId"] as? String)
        try await server.stop()
    }

    @Test func contentLengthBodiesAndStreamingWAVWork() async throws {
        let server = try await RunningService.start()
        let wav = try SpeechFixtures.encoded(.wav)
        // The streaming form: RIFF and data sizes unknown (0xFFFFFFFF), as the SDK sends while recording.
        #expect(Array(wav[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])
        let token = try await server.token()
        let reply = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/wav", context: "Generic"),
            body: wav)
        #expect(reply.status == 200)
        let text = try SpeechFixtures.reference(wav, format: .wav)
        #expect(reply.text.contains("\"Hypothesis\":\"\(text)\""))
        try await server.stop()
    }

    @Test func acceptSelectsXMLOrEMMA() async throws {
        let server = try await RunningService.start()
        let token = try await server.token()
        let audio = try SpeechFixtures.encoded(.flac)
        let expected = try SpeechFixtures.reference(audio, format: .flac)
        for (accept, root) in [("application/xml", "<Recognition>"), ("application/emma+xml", "<emma:emma ")] {
            let reply = try await LoopbackClient.post(
                port: server.port, path: "/speech/v3/speechToText",
                headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/flac") + [("Accept", accept)],
                body: audio)
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == accept)
            #expect(reply.text.contains(root))
            #expect(reply.text.contains(expected))
        }
        try await server.stop()
    }

    @Test func silenceIsNoSpeech() async throws {
        let server = try await RunningService.start()
        let token = try await server.token()
        // Two seconds of digital silence as L16 at 16 kHz.
        let reply = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/L16;rate=16000"),
            body: [UInt8](repeating: 0, count: 64_000))
        #expect(reply.status == 200)
        let recognition = try #require(reply.json?["Recognition"] as? [String: Any])
        #expect(recognition["Status"] as? String == "No Speech")
        #expect(recognition["NBest"] == nil)
        try await server.stop()
    }

    @Test func badExpiredAndWrongScopeTokensAreRefused() async throws {
        let time = ManualWallClock()
        let server = try await RunningService.start(clock: time.clock) { $0.tokenLifetimes.accessToken = .seconds(1) }
        let audio = try SpeechFixtures.encoded(.amr)
        func post(_ authorization: String?) async throws -> HTTPReply {
            var headers: [(String, String)] = [("Content-Type", "audio/amr"), ("X-SpeechContext", "VoiceMail")]
            if let authorization { headers.append(("Authorization", authorization)) }
            return try await LoopbackClient.post(
                port: server.port, path: "/speech/v3/speechToText", headers: headers, body: audio)
        }
        func expectRefused(_ reply: HTTPReply, _ reason: String) throws {
            #expect(reply.status == 401, "\(reason)")
            let challenge = try #require(reply.header("WWW-Authenticate"))
            #expect(challenge.hasPrefix("Bearer realm=earshot, error=invalid_token, error_description="))
            let exception = (reply.json?["RequestError"] as? [String: Any])?["PolicyException"] as? [String: Any]
            #expect(exception?["MessageId"] as? String == "POL0001")
            #expect(exception?["Text"] as? String == "Unauthorized Request")
        }
        try expectRefused(try await post(nil), "no token")
        try expectRefused(try await post("Bearer 0123456789abcdef0123456789abcdef"), "a token never issued")
        try expectRefused(try await post("Basic dGVzdDp0ZXN0"), "not a bearer token")
        try expectRefused(try await post("Bearer " + (try await server.token(scope: "STTC"))), "an STTC token")
        let token = try await server.token()
        #expect(try await post("bearer " + token).status == 200, "the scheme is case-insensitive")
        // Expiry is kept in whole seconds, rounded up from the moment of issue, so a 1 s token lives
        // between 1 and 2 s of the service's clock.
        time.advance(by: 0.9)
        #expect(try await post("Bearer " + token).status == 200, "a token not yet expired")
        time.advance(by: 1.2)
        try expectRefused(try await post("BEARER " + token), "an expired token")
        try await server.stop()
    }

    @Test(arguments: [
        ([("Content-Type", "audio/amr")], "X-SpeechContext"),
        (
            [("Content-Type", "audio/amr"), ("X-SpeechContext", "Dictation")],
            "Dictation is not a context of this service; expected one of VoiceMail"
        ),
        ([("Content-Type", "audio/amr"), ("X-SpeechContext", "GrammarList")], "speechToTextCustom"),
        ([("Content-Type", "audio/x-ms-wma"), ("X-SpeechContext", "Generic")], "audio/x-ms-wma is not an audio type"),
        ([("X-SpeechContext", "Generic")], "Content-Type header is required"),
    ])
    func badHeadersGetAHelpfulServiceException(headers: [(String, String)], text: String) async throws {
        let server = try await RunningService.start()
        let token = try await server.token()
        let reply = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: headers + [("Authorization", "Bearer \(token)")], body: try SpeechFixtures.encoded(.amr))
        #expect(reply.status == 400)
        let exception = try #require(
            (reply.json?["RequestError"] as? [String: Any])?["ServiceException"] as? [String: Any])
        #expect(exception["MessageId"] as? String == "SVC0001")
        #expect((exception["Text"] as? String)?.contains(text) == true, "\(exception)")
        try await server.stop()
    }

    @Test func malformedAudioIsRefusedAndTheServiceCarriesOn() async throws {
        let server = try await RunningService.start()
        let token = try await server.token()
        let amr = try SpeechFixtures.encoded(.amr)
        let cases: [(String, [UInt8], String)] = [
            ("audio/amr", Array("This is a text file, not audio.\n".utf8), "stream format is not AMR"),
            ("audio/amr", Array(amr.prefix(amr.count - 7)), "ends inside a frame"),
            ("audio/x-speex-with-header-byte;rate=16000", [40] + [UInt8](repeating: 1, count: 10), "more bytes"),
            ("audio/wav", Array("RIFX".utf8) + [UInt8](repeating: 0, count: 40), "not a WAV stream"),
        ]
        for (type, body, text) in cases {
            let reply = try await LoopbackClient.post(
                port: server.port, path: "/speech/v3/speechToText",
                headers: SpeechFixtures.speechHeaders(token: token, contentType: type), body: body,
                framing: .chunked(size: 512, interval: 0))
            #expect(reply.status == 400, "\(type)")
            #expect(reply.text.contains(text), "\(reply.text)")
        }
        // The recognizers the failed requests used are back in the pool, in working order.
        let good = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr)
        #expect(good.status == 200)
        #expect(server.service.pool.busyCount == 0)
        try await server.stop()
    }

    @Test func tooMuchAudioIs413() async throws {
        let server = try await RunningService.start { $0.maxAudioDuration = 1.5 }
        let token = try await server.token()
        let reply = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"),
            body: try SpeechFixtures.encoded(.amr), framing: .chunked(size: 512, interval: 0))
        #expect(reply.status == 413)
        #expect(reply.text.contains("maximum of 1.5 s"))
        try await server.stop()
    }

    @Test func aStalledUploadTimesOutWithoutHoldingARecognizer() async throws {
        let server = try await RunningService.start {
            $0.readTimeout = .milliseconds(600)
            $0.recognizerCount = 1
        }
        let token = try await server.token()
        let amr = try SpeechFixtures.encoded(.amr)
        let started = ContinuousClock.now
        // Sends 1 KiB then nothing more, without ending the body.
        let stalled = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr,
            framing: .chunked(size: 1024, interval: 0), closeAfter: 1024, halfClose: false)
        #expect(stalled.status == 408)
        // Generous: the point is that a stalled upload ends, even on a machine busy with other tests.
        #expect(ContinuousClock.now - started < .seconds(30))
        let next = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr)
        #expect(next.status == 200)
        try await server.stop()
    }

    @Test func aFullPoolAnswers503WithRetryAfter() async throws {
        let server = try await RunningService.start { $0.recognizerCount = 1 }
        let token = try await server.token()
        let amr = try SpeechFixtures.encoded(.amr)
        // One slow upload (about 2 s) holds the only recognizer while a second request arrives.
        async let slow = LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr,
            framing: .chunked(size: 256, interval: 0.1))
        try await Task.sleep(for: .milliseconds(500))
        let refused = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(try await slow.status == 200)
        try await server.stop()
    }
}

/// Bad requests running beside a good one do not change its answer.
@Suite(.serialized, .waiting) struct IsolationTests {
    @Test func badUploadsDoNotDisturbAGoodOneRunningBesideThem() async throws {
        // 3 s, not less: under the full suite a handler can wait over a second for a thread, and its
        // quick 400 would turn into a 408.
        let server = try await RunningService.start {
            $0.readTimeout = .seconds(3)
            $0.recognizerCount = 6
        }
        let token = try await server.token()
        let clip = try #require(SpeechFixtures.clips.first { $0.id.hasSuffix("0890") })
        let audio = try SpeechFixtures.encoded(.wav, clip: clip)
        let expected = try SpeechFixtures.reference(audio, format: .wav)
        let headers = SpeechFixtures.speechHeaders(token: token, contentType: "audio/wav")
        // 5.3 s of speech sent over about 2.6 s while bad requests come and go.
        async let good = LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText", headers: headers, body: audio,
            framing: .chunked(size: 4_096, interval: 2.6 * 4_096 / Double(audio.count)))
        let amr = try SpeechFixtures.encoded(.amr)
        async let text = LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"),
            body: Array("This is a text file, not audio.\n".utf8))
        async let truncated = LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"),
            body: Array(amr.prefix(amr.count - 5)))
        async let stalled = LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr,
            framing: .chunked(size: 512, interval: 0), closeAfter: 512, halfClose: false)
        async let abandoned = LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr,
            framing: .chunked(size: 512, interval: 0), closeAfter: 1_024)
        let answers = try await (text.status, truncated.status, stalled.status)
        #expect(answers == (400, 400, 408))
        _ = try? await abandoned
        let reply = try await good
        #expect(reply.status == 200)
        #expect(
            reply.json.flatMap { ($0["Recognition"] as? [String: Any])?["NBest"] as? [[String: Any]] }?
                .first?["Hypothesis"] as? String == expected)
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.service.pool.busyCount == 0)
        try await server.stop()
    }
}
