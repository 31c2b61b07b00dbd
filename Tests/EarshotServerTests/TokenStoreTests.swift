import EarshotCore
import EarshotServer
import Testing

/// A deterministic generator, so token values are reproducible in these tests only.
private struct CountingGenerator: RandomNumberGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

struct TokenStoreTests {
    let start = ContinuousClock.now
    let lifetimes = TokenStore.Lifetimes(accessToken: .seconds(60), refreshToken: .seconds(600))

    func store() -> TokenStore {
        TokenStore(credentials: ["app": "s3cret", "other": "x"], lifetimes: lifetimes)
    }

    @Test func clientCredentialsGrantTokensOfTheSeedsShape() throws {
        var store = store()
        var random = CountingGenerator()
        let grant = try store.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        #expect(grant.accessToken.count == 32 && grant.refreshToken.count == 40)
        #expect(grant.accessToken.allSatisfy(\.isHexDigit) && grant.refreshToken.allSatisfy(\.isHexDigit))
        #expect(grant.expiresIn == 60)
        #expect(grant.scope == .speech)
        #expect(
            store.authorize(accessToken: grant.accessToken, for: .speech, now: start) == .authorized(clientID: "app"))
    }

    @Test func badCredentialsAndScopesAreRefused() {
        var store = store()
        var random = CountingGenerator()
        #expect(throws: TokenStore.Refusal.invalidClient) {
            try store.issue(clientID: "app", clientSecret: "s3creT", scope: "SPEECH", now: start, using: &random)
        }
        #expect(throws: TokenStore.Refusal.invalidClient) {
            try store.issue(clientID: "nobody", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        }
        #expect(throws: TokenStore.Refusal.invalidScope) {
            try store.issue(clientID: "app", clientSecret: "s3cret", scope: "TTS", now: start, using: &random)
        }
        #expect(throws: TokenStore.Refusal.invalidScope) {
            try store.issue(clientID: "app", clientSecret: "s3cret", scope: nil, now: start, using: &random)
        }
        #expect(store.accessTokenCount == 0)
    }

    @Test func accessTokensExpireAfterTheirLifetime() throws {
        var store = store()
        var random = CountingGenerator()
        let grant = try store.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        let justBefore = start + .seconds(59)
        #expect(
            store.authorize(accessToken: grant.accessToken, for: .speech, now: justBefore)
                == .authorized(clientID: "app"))
        #expect(store.authorize(accessToken: grant.accessToken, for: .speech, now: start + .seconds(60)) == .expired)
        #expect(
            store.authorize(accessToken: "0123456789abcdef0123456789abcdef", for: .speech, now: start) == .unknownToken)
    }

    @Test func aTokenOpensOnlyTheServicesOfItsScope() throws {
        var store = store()
        var random = CountingGenerator()
        let custom = try store.issue(clientID: "app", clientSecret: "s3cret", scope: "STTC", now: start, using: &random)
        #expect(
            store.authorize(accessToken: custom.accessToken, for: .speech, now: start)
                == .wrongScope(.speechToTextCustom))
        let both = try store.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH,STTC", now: start, using: &random)
        #expect(both.scope == [.speech, .speechToTextCustom])
        for scope in [OAuthScope.speech, .speechToTextCustom] {
            #expect(
                store.authorize(accessToken: both.accessToken, for: scope, now: start) == .authorized(clientID: "app"))
        }
    }

    @Test func refreshTokensRotateAndExpire() throws {
        var store = store()
        var random = CountingGenerator()
        let first = try store.issue(clientID: "app", clientSecret: "s3cret", scope: "STTC", now: start, using: &random)
        let later = start + .seconds(300)
        let second = try store.refresh(
            clientID: "app", clientSecret: "s3cret", refreshToken: first.refreshToken, now: later, using: &random)
        #expect(second.scope == .speechToTextCustom)
        #expect(second.accessToken != first.accessToken && second.refreshToken != first.refreshToken)
        #expect(
            store.authorize(accessToken: second.accessToken, for: .speechToTextCustom, now: later)
                == .authorized(clientID: "app"))
        #expect(throws: TokenStore.Refusal.invalidGrant, "a used refresh token is spent") {
            try store.refresh(
                clientID: "app", clientSecret: "s3cret", refreshToken: first.refreshToken, now: later, using: &random)
        }
        #expect(throws: TokenStore.Refusal.invalidGrant, "refresh tokens expire too") {
            try store.refresh(
                clientID: "app", clientSecret: "s3cret", refreshToken: second.refreshToken, now: later + .seconds(600),
                using: &random)
        }
    }

    @Test func onlyTheAuthenticatedOwnerTradesARefreshToken() throws {
        var store = store()
        var random = CountingGenerator()
        let grant = try store.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        #expect(throws: TokenStore.Refusal.invalidClient) {
            try store.refresh(
                clientID: "app", clientSecret: "wrong", refreshToken: grant.refreshToken, now: start, using: &random)
        }
        #expect(throws: TokenStore.Refusal.invalidGrant, "another app's token") {
            try store.refresh(
                clientID: "other", clientSecret: "x", refreshToken: grant.refreshToken, now: start, using: &random)
        }
        // Refused attempts leave the token to its owner.
        _ = try store.refresh(
            clientID: "app", clientSecret: "s3cret", refreshToken: grant.refreshToken, now: start, using: &random)
    }

    @Test func eachAppsTokensAreCappedOldestFirst() throws {
        var store = TokenStore(
            credentials: ["app": "s3cret", "other": "x"], lifetimes: lifetimes, maximumTokensPerClient: 3)
        var random = CountingGenerator()
        let others = try store.issue(clientID: "other", clientSecret: "x", scope: "SPEECH", now: start, using: &random)
        var grants: [TokenStore.Grant] = []
        for second in 0..<10 {
            grants.append(
                try store.issue(
                    clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start + .seconds(second),
                    using: &random))
        }
        #expect(store.accessTokenCount == 4 && store.refreshTokenCount == 4)
        #expect(
            store.authorize(accessToken: grants[9].accessToken, for: .speech, now: start + .seconds(10))
                != .unknownToken)
        #expect(
            store.authorize(accessToken: grants[6].accessToken, for: .speech, now: start + .seconds(10))
                == .unknownToken)
        // One app's flood never drops another's tokens.
        #expect(
            store.authorize(accessToken: others.accessToken, for: .speech, now: start + .seconds(10)) != .unknownToken)
    }

    @Test func expiredTokensAreDroppedWhenNewOnesAreIssued() throws {
        var store = store()
        var random = CountingGenerator()
        for _ in 0..<3 {
            _ = try store.issue(clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        }
        #expect(store.accessTokenCount == 3)
        _ = try store.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start + .seconds(61), using: &random)
        #expect(store.accessTokenCount == 1)
    }

    @Test func scopeFieldsParse() {
        #expect(OAuthScope(field: "SPEECH") == .speech)
        #expect(OAuthScope(field: "sttc") == .speechToTextCustom)
        #expect(OAuthScope(field: "SPEECH, STTC") == [.speech, .speechToTextCustom])
        #expect(OAuthScope(field: "") == nil)
        #expect(OAuthScope(field: "SPEECH,TTS") == nil)
    }

    @Test func credentialsFilesParseAndNameTheirFaults() throws {
        let credentials = try Credentials(parsing: "# apps\nkey1:secret:with:colons\n\nkey2:two\n", origin: "creds")
        #expect(credentials.secrets == ["key1": "secret:with:colons", "key2": "two"])
        #expect(throws: (any Error).self) { try Credentials(parsing: "key1\n", origin: "creds") }
        #expect(throws: (any Error).self) { try Credentials(parsing: "# nothing\n", origin: "creds") }
        let random = Credentials.random()
        #expect(random.credentials.secrets == [random.appKey: random.secret])
        #expect(random.secret.count == 32)
    }
}

/// Static API keys: read from a file with their scopes, accepted for those scopes only.
struct APIKeysTests {
    @Test func aKeyFileGivesEachKeyItsScopes() throws {
        let keys = try APIKeys(
            parsing: "# ops keys\n\nabcdefghijklmnop\nqrstuvwxyz012345 SPEECH,STTC\n", origin: "keys.txt")
        #expect(keys.scopes == ["abcdefghijklmnop": .speech, "qrstuvwxyz012345": [.speech, .speechToTextCustom]])
        let store = TokenStore(credentials: ["app": "s3cret"], apiKeys: keys)
        let now = ContinuousClock.now
        #expect(
            store.authorize(accessToken: "abcdefghijklmnop", for: .speech, now: now) == .authorized(clientID: "api-key")
        )
        #expect(
            store.authorize(accessToken: "abcdefghijklmnop", for: .speechToTextCustom, now: now) == .wrongScope(.speech)
        )
        #expect(
            store.authorize(accessToken: "qrstuvwxyz012345", for: .speechToTextCustom, now: now)
                == .authorized(clientID: "api-key"))
        #expect(store.authorize(accessToken: "abcdefghijklmno", for: .speech, now: now) == .unknownToken)
    }

    @Test(arguments: [
        ("short-key\n", "keys.txt, line 1: a key must be 16 to 256 printable ASCII characters"),
        ("abcdefghijklmnop\nabcdefghijklmnop\n", "keys.txt, line 2: the key appears twice"),
        ("abcdefghijklmnop ADMIN\n", "keys.txt, line 1: scopes must be SPEECH, STTC or SPEECH,STTC"),
        ("abcdefghijklmnop SPEECH extra\n", "keys.txt, line 1: expected a key, then optionally its scopes"),
        ("# nothing\n\n", "keys.txt: no keys"),
    ])
    func aBadKeyFileIsRefusedNamingTheLineButNotTheKey(text: String, message: String) {
        let error = #expect(throws: EarshotError.self) { try APIKeys(parsing: text, origin: "keys.txt") }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("abcdefghijklmnop") == false)
    }
}
