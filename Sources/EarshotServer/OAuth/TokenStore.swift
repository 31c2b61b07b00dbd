import Foundation

/// The OAuth 2.0 client-credentials state of the service (section 3.5): registered apps, the access
/// and refresh tokens issued to them, and the rules that decide whether a token opens a service.
///
/// A pure value driven by events (`issue`, `refresh`, `authorize`), each given the current instant,
/// so lifetimes are tested without waiting and without a server. Tokens are random: 128 bits for
/// access tokens (32 hex digits, as example 3-5) and 160 bits for refresh tokens (40 hex digits),
/// from the generator the caller passes (`SystemRandomNumberGenerator` in the service). A refresh
/// grant rotates the refresh token: the old one stops working, and only the app it was issued to,
/// authenticated with its secret, may trade it. Expired tokens are dropped whenever a new one is
/// issued, and each app holds at most `maximumTokensPerClient` live tokens of each kind (its oldest
/// go first), so the store's size is bounded by the registered apps, whatever a client does.
public struct TokenStore: Sendable {
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
        /// The refresh token is unknown or expired.
        case invalidGrant
        /// The scope field is missing or names no known service.
        case invalidScope
    }

    /// The outcome of checking an access token against the scope a request needs.
    public enum Verdict: Sendable, Hashable {
        case authorized(clientID: String)
        /// No token, or one this store never issued.
        case unknownToken
        case expired
        /// A valid token that does not open this service.
        case wrongScope(OAuthScope)
    }

    private struct Issued: Sendable {
        var clientID: String
        var scope: OAuthScope
        var expiry: ContinuousClock.Instant
    }

    public let lifetimes: Lifetimes
    /// The most live access tokens (and, apart, refresh tokens) one app may hold.
    public let maximumTokensPerClient: Int
    private let secrets: [String: String]
    private let apiKeys: APIKeys
    private var accessTokens: [String: Issued] = [:]
    private var refreshTokens: [String: Issued] = [:]

    /// A store for the apps in `credentials` (app key → secret), also accepting the static `apiKeys`.
    public init(
        credentials: [String: String], apiKeys: APIKeys = APIKeys(), lifetimes: Lifetimes = Lifetimes(),
        maximumTokensPerClient: Int = 100
    ) {
        precondition(maximumTokensPerClient > 0, "an app must be able to hold a token")
        self.secrets = credentials
        self.apiKeys = apiKeys
        self.lifetimes = lifetimes
        self.maximumTokensPerClient = maximumTokensPerClient
    }

    /// Access tokens held (for tests and metrics).
    public var accessTokenCount: Int { accessTokens.count }

    /// Refresh tokens held (for tests and metrics).
    public var refreshTokenCount: Int { refreshTokens.count }

    /// `grant_type=client_credentials`: checks the app's key and secret and issues tokens for `scope`.
    public mutating func issue(
        clientID: String, clientSecret: String, scope: String?, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) throws(Refusal) -> Grant {
        guard let secret = secrets[clientID], Self.constantTimeEqual(secret, clientSecret) else {
            throw .invalidClient
        }
        guard let scope = scope.flatMap(OAuthScope.init(field:)) else { throw .invalidScope }
        return grant(clientID: clientID, scope: scope, now: now, using: &generator)
    }

    /// `grant_type=refresh_token`: the app authenticates with its key and secret (RFC 6749 section 6)
    /// and trades a live refresh token issued to it for new tokens with the same scope. A token
    /// shown by another app, or after it expired, is refused and stays as it was.
    public mutating func refresh(
        clientID: String, clientSecret: String, refreshToken: String, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) throws(Refusal) -> Grant {
        guard let secret = secrets[clientID], Self.constantTimeEqual(secret, clientSecret) else {
            throw .invalidClient
        }
        guard let issued = refreshTokens[refreshToken], issued.expiry > now, issued.clientID == clientID else {
            throw .invalidGrant
        }
        refreshTokens[refreshToken] = nil
        return grant(clientID: issued.clientID, scope: issued.scope, now: now, using: &generator)
    }

    /// Whether `accessToken` is live at `now` and opens `scope`.
    public func authorize(accessToken: String, for scope: OAuthScope, now: ContinuousClock.Instant) -> Verdict {
        if let granted = apiKeys.scopes[accessToken] {
            return granted.isSuperset(of: scope) ? .authorized(clientID: "api-key") : .wrongScope(granted)
        }
        guard let issued = accessTokens[accessToken] else { return .unknownToken }
        guard issued.expiry > now else { return .expired }
        guard issued.scope.isSuperset(of: scope) else { return .wrongScope(issued.scope) }
        return .authorized(clientID: issued.clientID)
    }

    private mutating func grant(
        clientID: String, scope: OAuthScope, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) -> Grant {
        accessTokens = accessTokens.filter { $0.value.expiry > now }
        refreshTokens = refreshTokens.filter { $0.value.expiry > now }
        Self.makeRoom(for: clientID, in: &accessTokens, keeping: maximumTokensPerClient - 1)
        Self.makeRoom(for: clientID, in: &refreshTokens, keeping: maximumTokensPerClient - 1)
        let access = Self.randomHex(bytes: 16, using: &generator)
        let refresh = Self.randomHex(bytes: 20, using: &generator)
        accessTokens[access] = Issued(clientID: clientID, scope: scope, expiry: now + lifetimes.accessToken)
        refreshTokens[refresh] = Issued(clientID: clientID, scope: scope, expiry: now + lifetimes.refreshToken)
        return Grant(
            accessToken: access, refreshToken: refresh, expiresIn: Int(lifetimes.accessToken.components.seconds),
            scope: scope)
    }

    /// Drops `clientID`'s tokens that expire first until it holds at most `keeping`.
    private static func makeRoom(for clientID: String, in tokens: inout [String: Issued], keeping: Int) {
        let held = tokens.filter { $0.value.clientID == clientID }
        guard held.count > keeping else { return }
        for (token, _) in held.sorted(by: { $0.value.expiry < $1.value.expiry }).prefix(held.count - keeping) {
            tokens[token] = nil
        }
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
