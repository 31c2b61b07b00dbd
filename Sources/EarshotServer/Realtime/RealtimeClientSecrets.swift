import EarshotCore
import EarshotCrypto
import Foundation
import HTTPTypes

/// Short-lived client secrets for Realtime sessions (`POST /v1/realtime/client_secrets`), so a page in
/// a browser opens a session without ever holding a long-lived key.
///
/// A secret is `ek_` and a ``SignedToken`` (an access token naming the app that minted it, scope
/// `SPEECH`, its expiry) signed with a key derived from the service's ``TokenKey``: like every token
/// here it needs no shared state between instances, but it opens only `/v1/realtime`, and an access
/// token is not a client secret. Its session counts against the minting app's limits.
struct RealtimeClientSecrets: Sendable {
    private let key: TokenKey
    private let clock: WallClock

    init(tokenKey: TokenKey, clock: WallClock) {
        self.clock = clock
        key = TokenKey(key: HMACSHA256.code(for: "earshot realtime client secret v1".utf8, key: tokenKey.key))
    }

    static let prefix = "ek_"
    /// OpenAI's default lifetime: ten minutes, to open a session (a session outlives its secret).
    static let defaultLifetime = 600
    static let lifetimes = 10...7_200

    /// A secret for `app`, valid `seconds` from now, and its expiry in seconds since 1970.
    func mint(app: String, seconds: Int) -> (value: String, expiresAt: Int) {
        let expiry = Int64(clock.now.timeIntervalSince1970.rounded(.up)) + Int64(seconds)
        var generator = SystemRandomNumberGenerator()
        let token = SignedToken(
            kind: .access, clientID: app, scope: .speech, expiry: expiry,
            id: TokenIssuer.randomHex(bytes: 16, using: &generator))
        return (Self.prefix + token.encoded(with: key), Int(expiry))
    }

    /// The app whose live secret `value` is, or nil.
    func app(for value: String) -> String? {
        guard value.hasPrefix(Self.prefix),
            let token = SignedToken(decoding: String(value.dropFirst(Self.prefix.count)), with: key),
            token.kind == .access, clock.now.timeIntervalSince1970 < Double(token.expiry)
        else { return nil }
        return token.clientID
    }
}

/// Where a Realtime client puts its key: `Authorization: Bearer KEY` (the `openai` packages, servers),
/// or, from a browser, which cannot set headers on a WebSocket, the subprotocol
/// `openai-insecure-api-key.KEY` beside `realtime` (OpenAI's form).
enum RealtimeCredential {
    static let subprotocolPrefix = "openai-insecure-api-key."

    /// The key the request carries, if any.
    static func key(in headers: HTTPFields) -> String? {
        if let authorization = headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        for field in headers[values: .secWebSocketProtocol] {
            for name in field.split(separator: ",") {
                let name = name.trimmingCharacters(in: .whitespaces)
                if name.hasPrefix(subprotocolPrefix) { return String(name.dropFirst(subprotocolPrefix.count)) }
            }
        }
        return nil
    }

    /// The subprotocol to answer with: `realtime` when the client offered it (a browser fails the
    /// handshake if it offered subprotocols and none is chosen), else none.
    static func chosenSubprotocol(in headers: HTTPFields) -> String? {
        let offered = headers[values: .secWebSocketProtocol].flatMap {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return offered.contains("realtime") ? "realtime" : nil
    }
}
