public import EarshotCore
import Foundation
import Synchronization

/// The service's token rules and its failed-attempt counts, shared by every request, on `clock` (the
/// system's unless a test gives one) and system randomness. The issuer is stateless (signed tokens) but
/// for its API keys, which a reload replaces; the failed attempts are this instance's own.
public actor TokenAuthority {
    /// The time tokens are issued and checked at.
    public nonisolated let clock: WallClock
    private let issuerState: Mutex<TokenIssuer>
    private var attempts: FailedAttempts
    private var generator = SystemRandomNumberGenerator()

    public init(issuer: TokenIssuer, attempts: FailedAttempts = FailedAttempts(), clock: WallClock = .system) {
        issuerState = Mutex(issuer)
        self.attempts = attempts
        self.clock = clock
    }

    private nonisolated var issuer: TokenIssuer { issuerState.withLock { $0 } }

    /// Accepts `keys` from now on, instead of the API keys before (tokens already issued stay valid).
    public nonisolated func replaceAPIKeys(_ keys: APIKeys) { issuerState.withLock { $0.apiKeys = keys } }

    public func issue(clientID: String, clientSecret: String, scope: String?) throws(TokenIssuer.Refusal)
        -> TokenIssuer.Grant
    {
        try issuer.issue(
            clientID: clientID, clientSecret: clientSecret, scope: scope, now: clock.now, using: &generator)
    }

    public func refresh(clientID: String, clientSecret: String, refreshToken: String) throws(TokenIssuer.Refusal)
        -> TokenIssuer.Grant
    {
        try issuer.refresh(
            clientID: clientID, clientSecret: clientSecret, refreshToken: refreshToken, now: clock.now,
            using: &generator)
    }

    public nonisolated func authorize(accessToken: String, for scope: OAuthScope) -> TokenIssuer.Verdict {
        issuer.authorize(accessToken: accessToken, for: scope, now: clock.now)
    }

    /// How long a token request from these keys (app key, client address) must wait, if any is
    /// over its failure limit.
    public func retryAfter(for keys: [String]) -> Duration? { attempts.retryAfter(for: keys, now: .now) }

    /// Counts a refused token request against these keys.
    public func recordFailure(for keys: [String]) { attempts.recordFailure(for: keys, now: .now) }
}
