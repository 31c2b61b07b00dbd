import AsyncHTTPClient
import EarshotCore
import EarshotWire
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// OAuth access tokens for an app (section 3.5): fetched with the client-credentials grant,
/// refreshed with the refresh token shortly before they expire by `clock` (the service's expiry is
/// a time of day too), fetched anew after a 401.
actor TokenProvider {
    private let client: HTTPClient
    private let tokenURL: String
    private let appKey: String
    private let secret: String
    private let scope: String
    private let connectionTimeout: Double
    private let clock: WallClock
    private var current: (access: String, refresh: String?, renewAt: Date)?

    init(
        client: HTTPClient, tokenURL: String, appKey: String, secret: String, scope: String, connectionTimeout: Double,
        clock: WallClock = .system
    ) {
        self.clock = clock
        self.client = client
        self.tokenURL = tokenURL
        self.appKey = appKey
        self.secret = secret
        self.scope = scope
        self.connectionTimeout = connectionTimeout
    }

    /// A token that will stay valid a while (renewed a minute, or a tenth of its life, before it expires).
    func token() async throws(SpeechClientError) -> String {
        if let current, current.renewAt > clock.now { return current.access }
        if let refresh = current?.refresh,
            let refreshed = try? await request([
                "grant_type": "refresh_token", "refresh_token": refresh, "client_id": appKey, "client_secret": secret,
            ])
        {
            return refreshed
        }
        return try await request([
            "grant_type": "client_credentials", "client_id": appKey, "client_secret": secret, "scope": scope,
        ])
    }

    /// Forgets the current token (the service refused it).
    func invalidate() { current = nil }

    private func request(_ form: [String: String]) async throws(SpeechClientError) -> String {
        var request = HTTPClientRequest(url: tokenURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        let body = form.sorted { $0.key < $1.key }
            .map { "\($0.key)=\(ExtraArgumentsHeader.percentEncoded($0.value))" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        let reply: [UInt8]
        let status: Int
        do {
            let response = try await client.execute(request, timeout: .seconds(Int64(connectionTimeout) + 30))
            status = Int(response.status.code)
            reply = Array(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch {
            throw HTTPFailure.classify(error, during: "the token request to \(tokenURL)")
        }
        guard status == 200, let document = try? JSONDecoder().decode(OAuthTokenDocument.self, from: Data(reply))
        else {
            throw .httpStatus(
                status == 200 ? 502 : status,
                RequestError(json: reply) ?? RequestError(oauth: reply, tokenURL: tokenURL))
        }
        let lifetime = document.expiresIn
        current = (
            document.accessToken, document.refreshToken,
            clock.now.addingTimeInterval(lifetime - min(60, lifetime / 10))
        )
        return document.accessToken
    }
}
