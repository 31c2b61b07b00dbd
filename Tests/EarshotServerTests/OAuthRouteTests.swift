import EarshotServer
import EarshotServerTesting
import EarshotTestTraits
import Foundation
import Testing

/// `POST /oauth/token` over HTTP: both grants and every refusal.
@Suite(.serialized, .waiting) struct OAuthRouteTests {
    func post(_ server: RunningService, _ form: String, contentType: String = "application/x-www-form-urlencoded")
        async throws -> HTTPReply
    {
        try await LoopbackClient.post(
            port: server.port, path: "/oauth/token", headers: [("Content-Type", contentType)], body: Array(form.utf8))
    }

    @Test func refreshTokensTradeForNewTokens() async throws {
        let server = try await RunningService.start()
        let first = try await post(
            server, "client_id=test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=SPEECH")
        #expect(first.status == 200)
        #expect(first.header("Cache-Control") == "no-store")
        let refresh = try #require(first.json?["refresh_token"] as? String)
        let second = try await post(
            server,
            "client_id=test-app&client_secret=\(server.appSecret)&grant_type=refresh_token&refresh_token=\(refresh)")
        #expect(second.status == 200)
        let access = try #require(second.json?["access_token"] as? String)
        #expect(access != first.json?["access_token"] as? String)
        #expect(
            server.service.authority.authorize(accessToken: access, for: .speech) == .authorized(clientID: "test-app"))
        let rotated = try #require(second.json?["refresh_token"] as? String)
        #expect(rotated != refresh)
        let again = try await post(
            server,
            "client_id=test-app&client_secret=\(server.appSecret)&grant_type=refresh_token&refresh_token=\(rotated)")
        #expect(again.status == 200)
        try await server.stop()
    }

    @Test func refusalsUseOAuthErrorCodes() async throws {
        let server = try await RunningService.start()
        let cases: [(String, Int, String)] = [
            ("client_id=test-app&client_secret=nope&grant_type=client_credentials&scope=SPEECH", 401, "invalid_client"),
            ("client_id=nobody&client_secret=x&grant_type=client_credentials&scope=SPEECH", 401, "invalid_client"),
            (
                "client_id=test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=MMS", 400,
                "invalid_scope"
            ),
            ("client_id=test-app&client_secret=\(server.appSecret)&grant_type=password", 400, "unsupported_grant_type"),
        ]
        for (form, status, error) in cases {
            let reply = try await post(server, form)
            #expect(reply.status == status, "\(error)")
            #expect(reply.text == #"{"error":"\#(error)"}"#)
        }
        let json = try await post(server, "{}", contentType: "application/json")
        #expect(json.status == 400 && json.text == #"{"error":"invalid_request"}"#)
        try await server.stop()
    }

    @Test func formDecodingHandlesPlusAndPercentEscapes() async throws {
        let server = try await RunningService.start {
            $0.credentials = Credentials(secrets: ["app one": "s&cret=+x"])
        }
        let reply = try await post(
            server, "client_id=app+one&client_secret=s%26cret%3D%2Bx&grant_type=client_credentials&scope=SPEECH%2CSTTC")
        #expect(reply.status == 200, "\(reply.text)")
        try await server.stop()
    }

    @Test func theRefreshGrantAuthenticatesTheAppItWasIssuedTo() async throws {
        let server = try await RunningService.start()
        let first = try await post(
            server, "client_id=test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=SPEECH")
        let refresh = try #require(first.json?["refresh_token"] as? String)
        let attempts: [(String, Int, String)] = [
            ("grant_type=refresh_token&refresh_token=\(refresh)", 401, "invalid_client"),
            (
                "client_id=test-app&client_secret=wrong&grant_type=refresh_token&refresh_token=\(refresh)", 401,
                "invalid_client"
            ),
            (
                "client_id=nobody&client_secret=x&grant_type=refresh_token&refresh_token=\(refresh)", 401,
                "invalid_client"
            ),
            // Another registered app, with its own right secret, cannot use test-app's token.
            (
                "client_id=other-app&client_secret=other-secret&grant_type=refresh_token&refresh_token=\(refresh)", 400,
                "invalid_grant"
            ),
        ]
        for (form, status, error) in attempts {
            let reply = try await post(server, form)
            #expect(reply.status == status && reply.text == #"{"error":"\#(error)"}"#, "\(form): \(reply.text)")
        }
        // None of those spent the token: its owner still trades it.
        let owner = try await post(
            server,
            "client_id=test-app&client_secret=\(server.appSecret)&grant_type=refresh_token&refresh_token=\(refresh)")
        #expect(owner.status == 200, "\(owner.text)")
        try await server.stop()
    }

    @Test func credentialsMatchExactly() async throws {
        let server = try await RunningService.start()
        for form in [
            "client_id=test-app%0A&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=SPEECH",
            "client_id=test-app&client_secret=\(server.appSecret)%20&grant_type=client_credentials&scope=SPEECH",
            "client_id=+test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=SPEECH",
        ] {
            let reply = try await post(server, form)
            #expect(reply.status == 401, "\(form)")
        }
        try await server.stop()
    }

    @Test func failedAttemptsAreRateLimitedPerAppAndAddress() async throws {
        let server = try await RunningService.start {
            $0.failedTokenRequests = 3
            $0.failedTokenWindow = .seconds(30)
        }
        let wrong = "client_id=test-app&client_secret=guess&grant_type=client_credentials&scope=SPEECH"
        let firstAttempt = ContinuousClock.now
        for _ in 0..<3 { #expect(try await post(server, wrong).status == 401) }
        let limited = try await post(server, wrong)
        #expect(limited.status == 429)
        // The window opened with the first failure: what is left of it, however slowly the machine ran.
        let elapsed = Int(LoopbackClient.seconds(.now - firstAttempt).rounded(.up))
        let retryAfter = try #require(limited.header("Retry-After").flatMap(Int.init))
        #expect((30 - elapsed - 1...30).contains(retryAfter), "\(retryAfter) s after \(elapsed) s")
        #expect(limited.json?["error"] as? String == "too_many_attempts")
        // The right secret waits too (otherwise guessing would go on), and so does another app from
        // the same address.
        let right = "client_id=test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=SPEECH"
        #expect(try await post(server, right).status == 429)
        #expect(
            try await post(
                server, "client_id=other-app&client_secret=other-secret&grant_type=client_credentials&scope=SPEECH"
            )
            .status == 429)
        try await server.stop()
    }

    @Test func tokensOutliveTheInstanceThatIssuedThemWhenTheKeyIsShared() async throws {
        let key = TokenKey.random()
        let first = try await RunningService.start { $0.tokenKey = key }
        let grant = try await post(
            first, "client_id=test-app&client_secret=\(first.appSecret)&grant_type=client_credentials&scope=SPEECH")
        let access = try #require(grant.json?["access_token"] as? String)
        let refresh = try #require(grant.json?["refresh_token"] as? String)
        try await first.stop()
        // Another instance (or the same one restarted) with the key: the client is still signed in.
        let second = try await RunningService.start(secret: first.appSecret) { $0.tokenKey = key }
        #expect(
            second.service.authority.authorize(accessToken: access, for: .speech) == .authorized(clientID: "test-app"))
        let traded = try await post(
            second,
            "client_id=test-app&client_secret=\(second.appSecret)&grant_type=refresh_token&refresh_token=\(refresh)")
        #expect(traded.status == 200, "\(traded.text)")
        try await second.stop()
        // An instance with its own key refuses both.
        let stranger = try await RunningService.start(secret: first.appSecret)
        #expect(stranger.service.authority.authorize(accessToken: access, for: .speech) == .unknownToken)
        let refused = try await post(
            stranger,
            "client_id=test-app&client_secret=\(stranger.appSecret)&grant_type=refresh_token&refresh_token=\(refresh)")
        #expect(refused.status == 400 && refused.text == #"{"error":"invalid_grant"}"#)
        try await stranger.stop()
    }
}
