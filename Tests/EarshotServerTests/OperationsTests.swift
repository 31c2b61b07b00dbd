import EarshotCodecs
import EarshotServer
import EarshotServerTesting
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// The readiness a load balancer sees, as a pure value.
@Suite(.waiting)
struct ReadinessTests {
    @Test func readinessMovesOneWay() {
        #expect(Readiness.starting.recognizersLoaded() == .ready)
        #expect(Readiness.ready.drain() == .draining)
        #expect(Readiness.starting.drain() == .draining)
        // Recognizers loading late never make a draining service ready again.
        #expect(Readiness.draining.recognizersLoaded() == .draining)
        #expect([Readiness.starting, .ready, .draining].map(\.acceptsRequests) == [false, true, false])
    }
}

/// The samples of a Prometheus text exposition, by series (`name{labels}` as written).
struct Exposition {
    var samples: [String: Double] = [:]
    var types: [String: String] = [:]

    init(_ text: String) throws {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                try #require(parts.count == 4, "\(line)")
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            let space = try #require(line.lastIndex(of: " "), "\(line)")
            guard let value = Double(String(line[line.index(after: space)...])) else {
                Issue.record("not a number at the end of the metrics line: \(line)")
                continue
            }
            samples[String(line[..<space])] = value
        }
    }

    func value(_ series: String) -> Double { samples[series] ?? 0 }
}

/// `GET /health` and `GET /metrics` of the real service.
@Suite(.serialized, .waiting) struct OperationsTests {
    func scrape(_ server: RunningService) async throws -> Exposition {
        let reply = try await LoopbackClient.get(port: server.port, path: "/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        return try Exposition(reply.text)
    }

    @Test func metricsMoveWithRealRequests() async throws {
        let server = try await RunningService.start { $0.recognizerCount = 3 }
        let before = try await scrape(server)
        #expect(before.value("earshot_recognizers") == 3)
        #expect(before.value("earshot_recognizers_in_use") == 0)

        let token = try await server.token()
        let wav = try SpeechFixtures.encoded(.wav)
        let reply = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/wav", context: "Generic"),
            body: wav)
        #expect(reply.status == 200)
        let refused = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: "not-a-token", contentType: "audio/wav"), body: wav)
        #expect(refused.status == 401)
        #expect(try await LoopbackClient.get(port: server.port, path: "/no/such/page").status == 404)

        let after = try await scrape(server)
        #expect(after.types["earshot_http_request_duration_seconds"] == "histogram")
        #expect(after.types["earshot_http_requests_total"] == "counter")
        let speech = #"route="/speech/v3/speechToText""#
        #expect(after.value(#"earshot_http_requests_total{route="/oauth/token",status="200"}"#) == 1)
        #expect(after.value("earshot_http_requests_total{\(speech),status=\"200\"}") == 1)
        #expect(after.value("earshot_http_requests_total{\(speech),status=\"401\"}") == 1)
        #expect(after.value(#"earshot_http_requests_total{route="NotFound",status="404"}"#) == 1)
        // Both speech requests are in the latency histogram, in its +Inf bucket and its count.
        #expect(after.value("earshot_http_request_duration_seconds_count{\(speech)}") == 2)
        #expect(after.value("earshot_http_request_duration_seconds_bucket{\(speech),le=\"+Inf\"}") == 2)
        #expect(after.value("earshot_http_request_duration_seconds_sum{\(speech)}") > 0)
        // The clip's 2.99 s (its encoded length, to the frame).
        let (_, duration) = try SpeechFixtures.referenceRecognition(wav, format: .wav)
        #expect(abs(after.value("earshot_audio_recognized_seconds_total") - duration) < 0.05)
        #expect(after.value("earshot_recognizers_in_use") == 0)
        try await server.stop()
    }

    /// A client that leaves mid-upload — closing its end (FIN) or resetting the connection — is counted
    /// as nginx counts it, 499, not as a 400 the service answered or a 500 it failed with (issue 51, item 17).
    @Test(arguments: [false, true]) func hangUpsAreCountedAs499s(reset: Bool) async throws {
        let server = try await RunningService.start { $0.recognizerCount = 1 }
        let token = try await server.token()
        let speech = #"route="/speech/v3/speechToText""#
        let audio = try SpeechFixtures.encoded(.l16)
        // Mid-recognition, before a recognizer is lent (the first 1 KiB), and with the head alone.
        for (index, sent) in [audio.count / 2, 500, 0].enumerated() {
            let connection = try LoopbackConnection(port: server.port)
            connection.send(
                "POST /speech/v3/speechToText HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: \(CodecFormat.l16.contentType())\r\nX-SpeechContext: Generic\r\n"
                    + "Content-Length: \(audio.count)\r\n\r\n")
            connection.send(Array(audio.prefix(sent)))
            if sent > 1_024 {
                for _ in 0..<500 where server.service.pool.busyCount == 0 {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            if reset { connection.reset() } else { connection.hangUp() }
            // The next one starts once this one has been answered (and counted).
            for _ in 0..<200 {
                let counted = try await scrape(server).samples.filter {
                    $0.key.hasPrefix("earshot_http_requests_total{\(speech)")
                }.values.reduce(0, +)
                if counted > Double(index) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let metrics = try await scrape(server)
        #expect(metrics.value("earshot_http_requests_total{\(speech),status=\"499\"}") == 3)
        #expect(metrics.value("earshot_http_requests_total{\(speech),status=\"400\"}") == 0)
        #expect(metrics.value("earshot_http_requests_total{\(speech),status=\"500\"}") == 0)
        try await server.stop()
    }

    @Test func aFullPoolsRefusalsAreCountedAs503s() async throws {
        let server = try await RunningService.start { $0.recognizerCount = 1 }
        let token = try await server.token()
        let amr = try SpeechFixtures.encoded(.amr)
        // The held upload keeps the only recognizer until the refused request has been answered.
        async let slow = LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr,
            framing: .chunked(size: 256, interval: 0.1))
        var refusals = 0
        for _ in 0..<40 where refusals == 0 {
            try await Task.sleep(for: .milliseconds(100))
            guard server.service.pool.busyCount == 1 else { continue }
            let metrics = try await scrape(server)
            #expect(metrics.value("earshot_recognizers_in_use") == 1)
            let refused = try await LoopbackClient.post(
                port: server.port, path: "/speech/v3/speechToText",
                headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"), body: amr)
            if refused.status == 503 { refusals += 1 }
        }
        #expect(try await slow.status == 200)
        let after = try await scrape(server)
        #expect(refusals == 1)
        #expect(after.value("earshot_unavailable_responses_total") == Double(refusals))
        #expect(
            after.value(#"earshot_http_requests_total{route="/speech/v3/speechToText",status="503"}"#)
                == Double(refusals))
        try await server.stop()
    }

    @Test func healthIsReadyThenDrainingOnGracefulShutdown() async throws {
        // A long drain delay holds the listener open, so the draining answer is there to be read for as
        // long as the test needs; the test then ends the server itself.
        let server = try await RunningService.start { $0.drainDelay = .seconds(600) }
        let ready = try await LoopbackClient.get(port: server.port, path: "/health")
        #expect(ready.status == 200 && ready.text == "ready\n")
        await server.beginShutdown()
        var health = ready
        for _ in 0..<100 where health.status == 200 {
            try await Task.sleep(for: .milliseconds(100))
            health = try await LoopbackClient.get(port: server.port, path: "/health")
        }
        #expect(health.status == 503 && health.text == "draining\n")
        // Still serving while draining: a load balancer that has not polled yet loses nothing.
        _ = try await server.token()
        await server.cancel()
    }

    /// Waits (bounded) until the server's listener refuses new connections, as it does once the drain
    /// has closed it.
    private func listenerCloses(_ server: RunningService) async throws -> Bool {
        for _ in 0..<200 {
            if (try? LoopbackConnection(port: server.port)) == nil { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// A connection accepted before the drain whose request comes after it: what nginx does when it
    /// connects to an instance just as SIGTERM arrives. Closing it unanswered would reset the request.
    @Test func aConnectionAcceptedBeforeTheDrainHasItsFirstRequestAnswered() async throws {
        let server = try await RunningService.start()
        let early = try LoopbackConnection(port: server.port)
        // The listener accepts in order: once a later connection is answered, `early` was accepted.
        #expect(try await LoopbackClient.get(port: server.port, path: "/health").status == 200)
        await server.beginShutdown()
        try #require(try await listenerCloses(server), "the listener stayed open after graceful shutdown began")
        let form = "client_id=test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=SPEECH"
        #expect(
            early.send(
                "POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)"))
        _ = try await onBlockingExecutor { early.read(for: 30) }
        #expect(early.statuses == [200] && early.text.contains("access_token"), "\(early.text)")
        #expect(early.isClosedByPeer && !early.wasReset)
        try await server.stop()
    }

    /// Connections attempted while the drain closes the listener (nginx passing requests to an
    /// instance it does not yet know is stopping) are answered or refused, which a balancer passes to
    /// another instance; none is accepted and then reset.
    @Test func connectionsDuringTheDrainAreAnsweredOrRefusedNeverReset() async throws {
        let server = try await RunningService.start()
        let form = "client_id=test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=SPEECH"
        let request =
            "POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)"
        // Eighty attempts half a millisecond apart; the twentieth begins the drain first.
        let outcomes = try await concurrentlyOnBlockingExecutor(80) { index in
            try await Task.sleep(for: .microseconds(500 * index))
            if index == 20 { await server.beginShutdown() }
            guard let connection = try? LoopbackConnection(port: server.port) else { return "refused" }
            connection.send(request)
            connection.read(for: 10)
            if connection.statuses == [200] { return "answered" }
            return connection.wasReset ? "reset" : "unanswered: \(connection.text)"
        }
        #expect(outcomes.allSatisfy { $0 == "answered" || $0 == "refused" }, "\(outcomes)")
        try await server.stop()
    }

    /// One that never sends anything holds the drain for the short grace, not the whole header deadline.
    @Test func aSilentConnectionHoldsTheDrainOnlyBriefly() async throws {
        let server = try await RunningService.start { $0.idleTimeout = .seconds(120) }
        let silent = try LoopbackConnection(port: server.port)
        #expect(try await LoopbackClient.get(port: server.port, path: "/health").status == 200)
        await server.beginShutdown()
        let closedAfter = try await onBlockingExecutor { silent.secondsUntilClosed(timeout: 60) }
        #expect(closedAfter != nil && closedAfter! < 30, "closed after \(String(describing: closedAfter)) s")
        try await server.stop()
    }
}
