import EarshotServer
import EarshotServerTesting
import EarshotTestTraits
import EarshotTesting
import Foundation
import HTTPTypes
import Testing

/// OpenAI's Realtime transcription protocol on `/v1/realtime`, against a real service on loopback
/// (PocketSphinx, the in-process service's model, and the spectral detector): each event, each
/// refusal, and the limits.
@Suite(.serialized, .waiting) struct RealtimeProtocolTests {
    static let apiKey = "sk-realtime-test-0123456789abcdef"

    static func start(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) async throws -> RunningService {
        try await RunningService.start { configuration in
            configuration.apiKeys = APIKeys(scopes: [apiKey: .speech])
            configure(&configuration)
        }
    }

    func error(_ event: [String: Any]?) -> [String: Any]? {
        guard event?["type"] as? String == "error" else { return nil }
        return event?["error"] as? [String: Any]
    }

    @Test func aManualTurnIsCommittedAndTranscribedAndTheBufferClears() async throws {
        let server = try await Self.start()
        let client = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(try await server.token()))
        let created = try #require(await client.next())
        #expect(created["type"] as? String == "session.created")
        let session = try #require(created["session"] as? [String: Any])
        #expect(session["type"] as? String == "transcription")
        let input = (session["audio"] as? [String: Any])?["input"] as? [String: Any]
        let format = input?["format"] as? [String: Any]
        #expect(format?["type"] as? String == "audio/pcm" && format?["rate"] as? Int == 24_000, "\(session)")
        #expect((input?["turn_detection"] as? [String: Any])?["type"] as? String == "server_vad")

        try client.send([
            "type": "session.update", "event_id": "update-1",
            "session": [
                "type": "transcription",
                "audio": [
                    "input": [
                        "format": ["type": "audio/pcm", "rate": 16_000],
                        "transcription": ["model": "pocketsphinx-en-us", "language": "en"], "turn_detection": NSNull(),
                    ]
                ],
            ],
        ])
        let updated = try #require(await client.next())
        #expect(updated["type"] as? String == "session.updated", "\(updated)")
        let updatedInput =
            ((updated["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any]
        #expect((updatedInput?["format"] as? [String: Any])?["rate"] as? Int == 16_000)
        #expect(updatedInput?["turn_detection"] is NSNull, "null: the client commits")

        let clip = try RealtimeAudio.clip
        try client.append(try RealtimeAudio.pcm(of: clip.path))
        try client.send(["type": "input_audio_buffer.commit"])
        let turn = await client.events(through: "conversation.item.input_audio_transcription.completed")
        let types = turn.compactMap { $0["type"] as? String }
        #expect(!types.contains("input_audio_buffer.speech_started"), "no turn detection: \(types)")
        let committed = try #require(turn.first { $0["type"] as? String == "input_audio_buffer.committed" })
        let completed = try #require(turn.last)
        #expect(completed["type"] as? String == "conversation.item.input_audio_transcription.completed", "\(types)")
        #expect(completed["item_id"] as? String == committed["item_id"] as? String)
        let transcript = try #require(completed["transcript"] as? String)
        #expect(transcript.lowercased().hasPrefix("had he married"), "\(transcript)")
        #expect((completed["usage"] as? [String: Any])?["type"] as? String == "duration")

        // A commit with nothing appended since is refused, naming the event; the session goes on.
        try client.send(["type": "input_audio_buffer.commit", "event_id": "empty-commit"])
        let empty = try #require(error(await client.next()))
        #expect(empty["code"] as? String == "input_audio_buffer_commit_empty")
        #expect(empty["event_id"] as? String == "empty-commit")
        try client.append(RealtimeAudio.silence(seconds: 0.5))
        try client.send(["type": "input_audio_buffer.clear"])
        #expect(await client.next()?["type"] as? String == "input_audio_buffer.cleared")
        try client.send(["type": "input_audio_buffer.commit"])
        #expect(error(await client.next())?["code"] as? String == "input_audio_buffer_commit_empty", "cleared")
        try await client.close()
        try await server.stop()
    }

    @Test func serverVADFindsTheTurnStopsItAndCompletesIt() async throws {
        let server = try await Self.start()
        let client = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(await client.next()?["type"] as? String == "session.created")
        try client.send(RealtimeTestClient.update(turnDetection: RealtimeTestClient.serverVAD))
        #expect(await client.next()?["type"] as? String == "session.updated")
        let clip = try RealtimeAudio.clip
        try client.append(RealtimeAudio.silence(seconds: 1) + (try RealtimeAudio.pcm(of: clip.path)))
        try client.append(RealtimeAudio.silence(seconds: 1.5))
        let turn = await client.events(through: "conversation.item.input_audio_transcription.completed")
        let types = turn.compactMap { $0["type"] as? String }.filter { !$0.hasSuffix(".delta") }
        #expect(
            types == [
                "input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped",
                "input_audio_buffer.committed", "conversation.item.input_audio_transcription.completed",
            ], "\(types)")
        let started = try #require(turn.first { $0["type"] as? String == "input_audio_buffer.speech_started" })
        let stopped = try #require(turn.first { $0["type"] as? String == "input_audio_buffer.speech_stopped" })
        // The clip starts after 1 s of silence and lasts 6.05 s; the stop is 0.5 s of silence after its end.
        let start = try #require(started["audio_start_ms"] as? Int)
        let end = try #require(stopped["audio_end_ms"] as? Int)
        #expect((500...1_300).contains(start), "audio_start_ms \(start)")
        #expect((6_500...8_000).contains(end), "audio_end_ms \(end)")
        #expect(started["item_id"] as? String == stopped["item_id"] as? String)
        let transcript = try #require(turn.last?["transcript"] as? String)
        #expect(transcript.lowercased().hasPrefix("had he married"), "\(transcript)")
        try await client.close()
        try await server.stop()
    }

    @Test func badEventsGetErrorsNamingTheFieldAndTheSessionStaysUsable() async throws {
        let server = try await Self.start()
        let client = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(await client.next()?["type"] as? String == "session.created")
        client.sendText("{not json")
        #expect(error(await client.next())?["code"] as? String == "invalid_json")
        try client.send(["type": "response.create", "event_id": "evt-unknown"])
        let unknown = try #require(error(await client.next()))
        #expect(unknown["code"] as? String == "unknown_event_type")
        #expect(unknown["param"] as? String == "type" && unknown["event_id"] as? String == "evt-unknown")
        try client.send(["type": "input_audio_buffer.append", "audio": "!!not base64!!", "event_id": "evt-b64"])
        let base64 = try #require(error(await client.next()))
        #expect(base64["param"] as? String == "audio" && base64["event_id"] as? String == "evt-b64", "\(base64)")
        let refusals: [([String: Any], String)] = [
            (
                ["audio": ["input": ["format": ["type": "audio/pcm", "rate": 44_100]]]],
                "session.audio.input.format.rate"
            ),
            (["audio": ["input": ["format": ["type": "audio/opus"]]]], "session.audio.input.format.type"),
            (
                ["audio": ["input": ["turn_detection": ["type": "semantic_vad"]]]],
                "session.audio.input.turn_detection.type"
            ),
            (
                ["audio": ["input": ["turn_detection": ["type": "server_vad", "threshold": 1.5]]]],
                "session.audio.input.turn_detection.threshold"
            ),
            (
                ["audio": ["input": ["transcription": ["model": "gpt-4o-transcribe"]]]],
                "session.audio.input.transcription.model"
            ),
            (["audio": ["input": ["transcription": ["language": "xx"]]]], "session.audio.input.transcription.language"),
            (["type": "realtime"], "session.type"),
        ]
        for (session, param) in refusals {
            try client.send(["type": "session.update", "event_id": "evt-\(param)", "session": session])
            let refused = try #require(error(await client.next()), "\(param)")
            #expect(refused["param"] as? String == param, "\(refused)")
            #expect(refused["event_id"] as? String == "evt-\(param)")
            #expect(refused["type"] as? String == "invalid_request_error")
            if param.hasSuffix("turn_detection.type") {
                #expect((refused["message"] as? String)?.contains("semantic_vad") == true, "\(refused)")
            }
        }
        // The beta names: transcription_session.update and input_audio_format, answered in kind.
        try client.send([
            "type": "transcription_session.update",
            "session": [
                "input_audio_format": "g711_ulaw", "input_audio_transcription": ["model": "whisper-1"],
                "turn_detection": NSNull(),
            ],
        ])
        let beta = try #require(await client.next())
        #expect(beta["type"] as? String == "transcription_session.updated", "\(beta)")
        let input = ((beta["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any]
        #expect((input?["format"] as? [String: Any])?["type"] as? String == "audio/pcmu", "\(beta)")
        // Still usable: μ-law audio (here: silence, 0xFF) is taken and committed.
        try client.append([UInt8](repeating: 0xFF, count: 8_000))
        try client.send(["type": "input_audio_buffer.commit"])
        let turn = await client.events(through: "conversation.item.input_audio_transcription.completed")
        #expect(turn.last?["transcript"] as? String == "", "silence: \(turn)")
        try await client.close()
        try await server.stop()
    }

    @Test func keysAreCheckedAsOnEveryRouteAndClientSecretsOpenSessions() async throws {
        let server = try await Self.start()
        for headers in [[], ["Authorization: Bearer sk-wrong-0123456789abcdefgh"]] {
            let refused = try RawWebSocket(port: server.port, headers: headers)
            #expect(refused.waitFor(#""code":"invalid_api_key""#), "\(refused.received)")
            #expect(refused.received.contains("Incorrect API key provided"))
            #expect(refused.closed(with: 1008), "\(refused.received)")
        }
        // A browser's form: the key as a subprotocol.
        let browser = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.subprotocol(Self.apiKey))
        #expect(await browser.next()?["type"] as? String == "session.created")
        try await browser.close()

        // A client secret minted for a key holder opens a session; the key itself never reaches the page.
        let minted = try await LoopbackClient.post(
            port: server.port, path: "/v1/realtime/client_secrets",
            headers: [("Authorization", "Bearer \(Self.apiKey)"), ("Content-Type", "application/json")],
            body: Array(#"{"expires_after": {"anchor": "created_at", "seconds": 60}}"#.utf8))
        #expect(minted.status == 200, "\(minted.text)")
        let answer = try #require(try JSONSerialization.jsonObject(with: minted.body) as? [String: Any])
        let secret = try #require(answer["value"] as? String)
        #expect(secret.hasPrefix("ek_"))
        let expiresAt = try #require(answer["expires_at"] as? Int)
        #expect(abs(Double(expiresAt) - Date().timeIntervalSince1970 - 60) < 5)
        let withSecret = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.subprotocol(secret))
        #expect(await withSecret.next()?["type"] as? String == "session.created")
        try await withSecret.close()
        let forged = try RawWebSocket(
            port: server.port, headers: ["Sec-WebSocket-Protocol: realtime, openai-insecure-api-key.\(secret)x"])
        #expect(forged.waitFor(#""code":"invalid_api_key""#), "\(forged.received)")
        // A secret is not a key anywhere else: it cannot mint another.
        let again = try await LoopbackClient.post(
            port: server.port, path: "/v1/realtime/client_secrets", headers: [("Authorization", "Bearer \(secret)")],
            body: [])
        #expect(again.status == 401)
        let unauthenticated = try await LoopbackClient.post(
            port: server.port, path: "/v1/realtime/client_secrets", headers: [], body: [])
        #expect(unauthenticated.status == 401)
        let badExpiry = try await LoopbackClient.post(
            port: server.port, path: "/v1/realtime/client_secrets",
            headers: [("Authorization", "Bearer \(Self.apiKey)")],
            body: Array(#"{"expires_after": {"seconds": 5}}"#.utf8))
        #expect(badExpiry.status == 400 && badExpiry.text.contains("expires_after.seconds"), "\(badExpiry.text)")
        try await server.stop()
    }

    @Test func sessionsAtOnceIdleTimeAndMessageSizeAreBounded() async throws {
        let server = try await Self.start { configuration in
            configuration.realtime.maxSessions = 1
            configuration.realtime.idleTimeout = .seconds(2)
            configuration.realtime.maxMessageBytes = 4_096
        }
        let first = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(await first.next()?["type"] as? String == "session.created")
        let second = try RawWebSocket(port: server.port, headers: ["Authorization: Bearer \(Self.apiKey)"])
        #expect(second.waitFor(#""code":"session_limit_reached""#), "\(second.received)")
        #expect(second.closed(with: 1013), "\(second.received)")
        // The first, silent, is closed at its idle time with an error naming the option.
        let idle = try #require(error(await first.next(timeout: .seconds(30))))
        #expect(idle["code"] as? String == "idle_timeout")
        #expect((idle["message"] as? String)?.contains("--realtime-idle-timeout") == true)
        #expect(try await first.closed() == 1008)

        // A message over the bound closes the connection (1009); the sessions' count is given back.
        let large = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(await large.next()?["type"] as? String == "session.created")
        try large.append(RealtimeAudio.silence(seconds: 1), chunk: 32_000)
        #expect(try await large.closed() == 1009)
        // The count is given back when the server has ended that session, which may come just after the
        // client saw the close (a CI run connected first and was refused): a new session is admitted once
        // it has, and until then refused only as over the limit.
        var admitted = false
        for _ in 0..<200 where !admitted {
            let after = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
            let event = await after.next()
            admitted = event?["type"] as? String == "session.created"
            if !admitted { #expect(error(event)?["code"] as? String == "session_limit_reached", "\(event ?? [:])") }
            _ = try? await after.close()
        }
        #expect(admitted)
        try await server.stop()
    }

    /// A client that sends audio faster than real time is read no further ahead of the wall clock than
    /// `maxAudioAhead`.
    @Test func audioAheadOfRealTimeWaitsForTheClock() async throws {
        let server = try await Self.start { configuration in configuration.realtime.maxAudioAhead = 1 }
        let opened = ContinuousClock.now
        let client = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(await client.next()?["type"] as? String == "session.created")
        try client.send([
            "type": "session.update",
            "session": [
                "type": "transcription",
                "audio": ["input": ["format": ["type": "audio/pcm", "rate": 16_000], "turn_detection": NSNull()]],
            ],
        ])
        #expect(await client.next()?["type"] as? String == "session.updated")
        // 4 s of audio at once, then the commit: the service reads the last of it 3 s after the session
        // began at the earliest (1 s ahead of the clock), so the commit is handled no sooner. (Its
        // `committed` comes with the turn's decode: on a loaded machine, much later.)
        try client.append(RealtimeAudio.silence(seconds: 4))
        try client.send(["type": "input_audio_buffer.commit"])
        let events = await client.events(through: "input_audio_buffer.committed")
        #expect(events.last?["type"] as? String == "input_audio_buffer.committed", "\(events)")
        #expect(ContinuousClock.now - opened >= .seconds(3), "4 s of audio taken 1 s ahead of the clock")
        _ = try await client.close()
        try await server.stop()
    }

    /// A session is closed at its maximum length, with an error naming the option.
    @Test func aSessionEndsAtItsMaximumLength() async throws {
        let server = try await Self.start { configuration in
            configuration.realtime.maxSessionDuration = .seconds(3)
        }
        let opened = ContinuousClock.now
        let client = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(await client.next()?["type"] as? String == "session.created")
        var expired: [String: Any]?
        while let event = await client.next(timeout: .seconds(120)) {
            if let refusal = error(event) {
                expired = refusal
                break
            }
        }
        #expect(expired?["code"] as? String == "session_expired", "\(expired ?? [:])")
        #expect(
            (expired?["message"] as? String)?.contains("--realtime-max-session-duration") == true,
            "\(expired ?? [:])")
        #expect(try await client.closed() == 1000)
        #expect(ContinuousClock.now - opened >= .seconds(3))
        try await server.stop()
    }

    /// A client that never reads its events is closed once `maxQueuedEvents` wait for it, and its
    /// session is given back.
    @Test func aClientThatReadsNoEventsIsClosedAndItsSessionGivenBack() async throws {
        let server = try await Self.start { configuration in
            configuration.realtime.maxSessions = 1
            configuration.realtime.maxQueuedEvents = 16
        }
        // A small receive buffer, never read: the service's events stay in its queue.
        let silent = try RawWebSocket(
            port: server.port, headers: ["Authorization: Bearer \(Self.apiKey)"], receiveBufferBytes: 4_096,
            sendTimeout: 120)
        // Each message that is not JSON gets an error event. The service closes the connection when its
        // queue overflows, and then a send fails. Sends are bounded by time, not by count: the kernel's
        // buffers take megabytes of frames, and on a loaded machine all of an earlier bound's 400 000
        // were taken before the service had read enough of them to overflow.
        var sent = 0
        let giveUpSending = ContinuousClock.now + .seconds(240)
        while ContinuousClock.now < giveUpSending, silent.sendFrame("x") { sent += 1 }
        // The close is what ended the sends (not the clock or the send timeout): what is left to read
        // ends with it.
        silent.connection.read(for: 30)
        #expect(silent.connection.isClosedByPeer, "the service kept a client that read none of \(sent) error events")
        // Its session is given back as its handler ends (a moment after the close): the next is refused
        // (session_limit_reached) until then, and then opened.
        var opened = false
        var refusals: [String] = []
        let giveUp = ContinuousClock.now + .seconds(90)
        while !opened, ContinuousClock.now < giveUp {
            let next = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
            let first = await next.next()
            opened = first?["type"] as? String == "session.created"
            if !opened {
                refusals.append(error(first)?["code"] as? String ?? "\(first ?? [:])")
                try next.send(["type": "session.update", "session": ["type": "transcription"]])
                try await Task.sleep(for: .milliseconds(250))
            }
            _ = try await next.close()
        }
        #expect(opened, "the session was not given back: \(refusals)")
        #expect(refusals.allSatisfy { $0 == "session_limit_reached" }, "\(refusals)")
        try await server.stop()
    }

    /// A refused session waits for the client's first message before its close (hummingbird-websocket's
    /// client loses a close that arrives with the 101): meanwhile it holds no session and none of its
    /// app's recognitions.
    @Test func aRefusedSessionHoldsNothingWhileItsCloseWaits() async throws {
        let server = try await Self.start { configuration in
            configuration.recognizerCount = 1
            configuration.maxRecognitionsPerApp = 2
            configuration.realtime.maxSessions = 2
        }
        let first = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(await first.next()?["type"] as? String == "session.created")
        // The one recognizer is taken: the second is refused and, as it sends nothing, waits for its close.
        let second = try RawWebSocket(port: server.port, headers: ["Authorization: Bearer \(Self.apiKey)"])
        #expect(second.waitFor(#""code":"overloaded""#), "\(second.received)")
        // Were the second's session and recognition still held, the third would find both bounds reached
        // (session_limit_reached); it finds only the recognizer taken.
        let third = try RawWebSocket(port: server.port, headers: ["Authorization: Bearer \(Self.apiKey)"])
        #expect(third.waitFor(#""code":"overloaded""#), "\(third.received)")
        #expect(!third.received.contains("session_limit_reached"), "\(third.received)")
        #expect(second.closed(with: 1013), "\(second.received)")
        #expect(third.closed(with: 1013), "\(third.received)")
        // A client that answers the refusal with a message of its own is closed at once.
        let fourth = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(error(await fourth.next())?["code"] as? String == "overloaded")
        try fourth.send(["type": "transcription_session.update", "session": [:]])
        let start = ContinuousClock.now
        #expect(try await fourth.closed() == 1013)
        // The service's grace is 3 s (RealtimeRoute.refusalGrace).
        #expect(ContinuousClock.now - start < .seconds(3), "the close waited out the grace")
        _ = try await first.close()
        try await server.stop()
    }

    @Test func theTryItPageIsServedFromTheBinaryWithNoKeyInIt() async throws {
        let server = try await Self.start()
        let page = try await LoopbackClient.get(port: server.port, path: "/")
        #expect(page.status == 200)
        #expect(page.text.contains("audioWorklet") && page.text.contains("/v1/realtime/client_secrets"))
        #expect(!page.text.contains("http://") && !page.text.contains("https://"), "no external resource")
        try await server.stop()
    }
}
