/// The service's one token store and its failed-attempt counts, shared by every request, on the
/// real clock and system randomness.
public actor TokenAuthority {
    private var store: TokenStore
    private var attempts: FailedAttempts
    private var generator = SystemRandomNumberGenerator()

    public init(store: TokenStore, attempts: FailedAttempts = FailedAttempts()) {
        self.store = store
        self.attempts = attempts
    }

    public func issue(clientID: String, clientSecret: String, scope: String?) throws(TokenStore.Refusal)
        -> TokenStore.Grant
    {
        try store.issue(
            clientID: clientID, clientSecret: clientSecret, scope: scope, now: .now, using: &generator)
    }

    public func refresh(clientID: String, clientSecret: String, refreshToken: String) throws(TokenStore.Refusal)
        -> TokenStore.Grant
    {
        try store.refresh(
            clientID: clientID, clientSecret: clientSecret, refreshToken: refreshToken, now: .now, using: &generator)
    }

    public func authorize(accessToken: String, for scope: OAuthScope) -> TokenStore.Verdict {
        store.authorize(accessToken: accessToken, for: scope, now: .now)
    }

    /// How long a token request from these keys (app key, client address) must wait, if any is
    /// over its failure limit.
    public func retryAfter(for keys: [String]) -> Duration? { attempts.retryAfter(for: keys, now: .now) }

    /// Counts a refused token request against these keys.
    public func recordFailure(for keys: [String]) { attempts.recordFailure(for: keys, now: .now) }

    /// Tokens held (for tests and metrics).
    public var tokenCounts: (access: Int, refresh: Int) { (store.accessTokenCount, store.refreshTokenCount) }
}
