import EarshotServer
import Foundation
import Testing

/// `POST /oauth/token` over HTTP: both grants and every refusal.
@Suite(.serialized) struct OAuthRouteTests {
    func post(_ server: RunningService, _ form: String, contentType: String = "application/x-www-form-urlencoded")
        async throws -> HTTPReply
    {
        try await LoopbackClient.post(
            port: server.port, path: "/oauth/token", headers: [("Content-Type", contentType)], body: Array(form.utf8))
    }

    @Test func refreshTokensTradeForNewTokensOnce() async throws {
        let server = try await RunningService.start()
        let first = try await post(
            server, "client_id=test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=SPEECH")
        #expect(first.status == 200)
        #expect(first.header("Cache-Control") == "no-store")
        let refresh = try #require(first.json?["refresh_token"] as? String)
        let second = try await post(server, "grant_type=refresh_token&refresh_token=\(refresh)")
        #expect(second.status == 200)
        let access = try #require(second.json?["access_token"] as? String)
        #expect(access != first.json?["access_token"] as? String)
        #expect(
            await server.service.authority.authorize(accessToken: access, for: .speech)
                == .authorized(clientID: "test-app"))
        let again = try await post(server, "grant_type=refresh_token&refresh_token=\(refresh)")
        #expect(again.status == 400 && again.text == #"{"error":"invalid_grant"}"#)
        try await server.stop()
    }

    @Test func refusalsUseOAuthErrorCodes() async throws {
        let server = try await RunningService.start()
        let cases: [(String, Int, String)] = [
            ("client_id=test-app&client_secret=nope&grant_type=client_credentials&scope=SPEECH", 401, "invalid_client"),
            ("client_id=nobody&client_secret=x&grant_type=client_credentials&scope=SPEECH", 401, "invalid_client"),
            (
                "client_id=test-app&client_secret=\(server.appSecret)&grant_type=client_credentials&scope=TTS", 400,
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
}
