public import Foundation

/// The OAuth 2.0 client-credentials rules of the service (section 3.5): which apps may have tokens,
/// what their tokens open, and for how long.
///
/// Tokens are ``SignedToken``s: the issuer keeps no record of them, so it is a pure value whose
/// events (`issue`, `refresh`, `authorize`) take the current time and a random generator, and every
/// instance holding the same ``TokenKey`` gives the same answers.
///
/// What that costs, without shared state between instances:
/// - A refresh grant rotates the refresh token (a new one comes with the new access token), but the
///   old one is not spent: it can be traded again until it expires. Only the app it was issued to,
///   authenticated with its secret, may trade it, so a refresh token stolen alone is useless.
/// - An access token works until it expires (two hours by default); nothing recalls one sooner.
/// - What does revoke: removing an app from the credentials (its access and refresh tokens are
///   refused at once), changing its secret (its refresh tokens become useless to anyone without the
///   new one), or changing the key (every token is refused and every app signs in again).
public struct TokenIssuer: Sendable {
    /// How long tokens live. The seed: access tokens two hours, refresh tokens about a day.
    public struct Lifetimes: Sendable, Hashable {
        public var accessToken: Duration
        public var refreshToken: Duration

        public init(accessToken: Duration = .seconds(2 * 3600), refreshToken: Duration = .seconds(24 * 3600)) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
        }
    }

    /// What a successful token request returns (example 3-5).
    public struct Grant: Sendable, Hashable {
        public var accessToken: String
        public var refreshToken: String
        /// Seconds the access token stays valid.
        public var expiresIn: Int
        public var scope: OAuthScope
    }

    /// Why a token request was refused. Every case is answered 401 `invalid_client` except
    /// `invalidScope` and `invalidGrant`, which are 400 (RFC 6749 section 5.2).
    public enum Refusal: Error, Sendable, Hashable {
        /// Unknown app key or wrong secret.
        case invalidClient
        /// The refresh token is not one this key signed, has expired, or was issued to another app.
        case invalidGrant
        /// The scope field is missing or names no known service.
        case invalidScope
    }

    /// The outcome of checking an access token against the scope a request needs.
    public enum Verdict: Sendable, Hashable {
        case authorized(clientID: String)
        /// Not an access token signed with this key, or one for an app no longer registered.
        case unknownToken
        case expired
        /// A valid token that does not open this service.
        case wrongScope(OAuthScope)
    }

    public let lifetimes: Lifetimes
    private let secrets: [String: String]
    var apiKeys: APIKeys
    private let key: TokenKey

    /// An issuer for the apps in `credentials` (app key → secret), signing with `key`, also accepting
    /// the static `apiKeys`.
    public init(
        credentials: [String: String], apiKeys: APIKeys = APIKeys(), lifetimes: Lifetimes = Lifetimes(),
        key: TokenKey
    ) {
        self.secrets = credentials
        self.apiKeys = apiKeys
        self.lifetimes = lifetimes
        self.key = key
    }

    /// `grant_type=client_credentials`: checks the app's key and secret and issues tokens for `scope`.
    public func issue(
        clientID: String, clientSecret: String, scope: String?, now: Date,
        using generator: inout some RandomNumberGenerator
    ) throws(Refusal) -> Grant {
        try authenticate(clientID: clientID, clientSecret: clientSecret)
        guard let scope = scope.flatMap(OAuthScope.init(field:)) else { throw .invalidScope }
        return grant(clientID: clientID, scope: scope, now: now, using: &generator)
    }

    /// `grant_type=refresh_token`: the app authenticates with its key and secret (RFC 6749 section 6)
    /// and trades a live refresh token issued to it for new tokens with the same scope.
    public func refresh(
        clientID: String, clientSecret: String, refreshToken: String, now: Date,
        using generator: inout some RandomNumberGenerator
    ) throws(Refusal) -> Grant {
        try authenticate(clientID: clientID, clientSecret: clientSecret)
        guard let token = SignedToken(decoding: refreshToken, with: key), token.kind == .refresh,
            Self.isLive(token, at: now), token.clientID == clientID
        else { throw .invalidGrant }
        return grant(clientID: clientID, scope: token.scope, now: now, using: &generator)
    }

    /// Whether `accessToken` is live at `now` and opens `scope`.
    public func authorize(accessToken: String, for scope: OAuthScope, now: Date) -> Verdict {
        if let granted = apiKeys.scopes[accessToken] {
            return granted.isSuperset(of: scope)
                ? .authorized(clientID: apiKeys.names[accessToken] ?? "api-key") : .wrongScope(granted)
        }
        guard let token = SignedToken(decoding: accessToken, with: key), token.kind == .access,
            secrets[token.clientID] != nil
        else { return .unknownToken }
        guard Self.isLive(token, at: now) else { return .expired }
        guard token.scope.isSuperset(of: scope) else { return .wrongScope(token.scope) }
        return .authorized(clientID: token.clientID)
    }

    private func authenticate(clientID: String, clientSecret: String) throws(Refusal) {
        guard let secret = secrets[clientID], Self.constantTimeEqual(secret, clientSecret) else {
            throw .invalidClient
        }
    }

    private static func isLive(_ token: SignedToken, at now: Date) -> Bool {
        now.timeIntervalSince1970 < Double(token.expiry)
    }

    private func grant(
        clientID: String, scope: OAuthScope, now: Date, using generator: inout some RandomNumberGenerator
    ) -> Grant {
        // Whole seconds, rounded up: a token never dies before the `expires_in` its client was told.
        let issued = Int64(now.timeIntervalSince1970.rounded(.up))
        let access = SignedToken(
            kind: .access, clientID: clientID, scope: scope,
            expiry: issued + lifetimes.accessToken.components.seconds, id: Self.randomHex(bytes: 16, using: &generator))
        let refresh = SignedToken(
            kind: .refresh, clientID: clientID, scope: scope,
            expiry: issued + lifetimes.refreshToken.components.seconds,
            id: Self.randomHex(bytes: 16, using: &generator))
        return Grant(
            accessToken: access.encoded(with: key), refreshToken: refresh.encoded(with: key),
            expiresIn: Int(lifetimes.accessToken.components.seconds), scope: scope)
    }

    /// `bytes` random bytes as lowercase hex.
    static func randomHex(bytes: Int, using generator: inout some RandomNumberGenerator) -> String {
        var text = ""
        text.reserveCapacity(bytes * 2)
        for _ in 0..<bytes {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            text += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }
        return text
    }

    /// Compares secrets in time that depends on their lengths only, not on where they first differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0 && left.count == right.count
    }
}
