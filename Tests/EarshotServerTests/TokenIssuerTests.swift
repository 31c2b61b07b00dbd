import EarshotCore
import EarshotServer
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// A deterministic generator, so token values are reproducible in these tests only.
private struct CountingGenerator: RandomNumberGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

/// The token rules, driven by instants and a seeded generator, without a server.
@Suite(.waiting)
struct TokenIssuerTests {
    /// A whole second, so expiries fall exactly on the lifetimes.
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let lifetimes = TokenIssuer.Lifetimes(accessToken: .seconds(60), refreshToken: .seconds(600))
    let key = TokenKey.random()

    func issuer(key: TokenKey? = nil, apps: [String: String] = ["app": "s3cret", "other": "x"]) -> TokenIssuer {
        TokenIssuer(credentials: apps, lifetimes: lifetimes, key: key ?? self.key)
    }

    @Test func clientCredentialsGrantSignedTokensNamingAppScopeAndExpiry() throws {
        let issuer = issuer()
        var random = CountingGenerator()
        let grant = try issuer.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        #expect(grant.expiresIn == 60)
        #expect(grant.scope == .speech)
        let access = try #require(SignedToken(decoding: grant.accessToken, with: key))
        #expect(access.kind == .access && access.clientID == "app" && access.scope == .speech)
        #expect(access.expiry == 1_800_000_060)
        let refresh = try #require(SignedToken(decoding: grant.refreshToken, with: key))
        #expect(refresh.kind == .refresh && refresh.expiry == 1_800_000_600 && refresh.id != access.id)
        #expect(
            issuer.authorize(accessToken: grant.accessToken, for: .speech, now: start) == .authorized(clientID: "app"))
    }

    @Test func anotherIssuerWithTheSameKeyAcceptsTheTokensAndOneWithAnotherKeyDoesNot() throws {
        var random = CountingGenerator()
        let grant = try issuer().issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        // A second instance, or this one after a restart, started with the same key.
        let sameKey = issuer(key: key)
        #expect(
            sameKey.authorize(accessToken: grant.accessToken, for: .speech, now: start) == .authorized(clientID: "app"))
        _ = try sameKey.refresh(
            clientID: "app", clientSecret: "s3cret", refreshToken: grant.refreshToken, now: start, using: &random)
        let otherKey = issuer(key: .random())
        #expect(otherKey.authorize(accessToken: grant.accessToken, for: .speech, now: start) == .unknownToken)
        #expect(throws: TokenIssuer.Refusal.invalidGrant) {
            try otherKey.refresh(
                clientID: "app", clientSecret: "s3cret", refreshToken: grant.refreshToken, now: start, using: &random)
        }
    }

    @Test func badCredentialsAndScopesAreRefused() {
        let issuer = issuer()
        var random = CountingGenerator()
        #expect(throws: TokenIssuer.Refusal.invalidClient) {
            try issuer.issue(clientID: "app", clientSecret: "s3creT", scope: "SPEECH", now: start, using: &random)
        }
        #expect(throws: TokenIssuer.Refusal.invalidClient) {
            try issuer.issue(clientID: "nobody", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        }
        #expect(throws: TokenIssuer.Refusal.invalidScope) {
            try issuer.issue(clientID: "app", clientSecret: "s3cret", scope: "MMS", now: start, using: &random)
        }
        #expect(throws: TokenIssuer.Refusal.invalidScope) {
            try issuer.issue(clientID: "app", clientSecret: "s3cret", scope: nil, now: start, using: &random)
        }
    }

    @Test func accessTokensExpireAfterTheirLifetime() throws {
        let issuer = issuer()
        var random = CountingGenerator()
        let grant = try issuer.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        #expect(
            issuer.authorize(accessToken: grant.accessToken, for: .speech, now: start + 59.999)
                == .authorized(clientID: "app"))
        #expect(issuer.authorize(accessToken: grant.accessToken, for: .speech, now: start + 60) == .expired)
        #expect(
            issuer.authorize(accessToken: "0123456789abcdef0123456789abcdef", for: .speech, now: start) == .unknownToken
        )
    }

    @Test func aTokenOpensOnlyTheServicesOfItsScope() throws {
        let issuer = issuer()
        var random = CountingGenerator()
        let custom = try issuer.issue(
            clientID: "app", clientSecret: "s3cret", scope: "STTC", now: start, using: &random)
        #expect(
            issuer.authorize(accessToken: custom.accessToken, for: .speech, now: start)
                == .wrongScope(.speechToTextCustom))
        let both = try issuer.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH,STTC", now: start, using: &random)
        #expect(both.scope == [.speech, .speechToTextCustom])
        for scope in [OAuthScope.speech, .speechToTextCustom] {
            #expect(
                issuer.authorize(accessToken: both.accessToken, for: scope, now: start) == .authorized(clientID: "app"))
        }
    }

    @Test func refreshTokensRotateAndExpire() throws {
        let issuer = issuer()
        var random = CountingGenerator()
        let first = try issuer.issue(clientID: "app", clientSecret: "s3cret", scope: "STTC", now: start, using: &random)
        let later = start + 300
        let second = try issuer.refresh(
            clientID: "app", clientSecret: "s3cret", refreshToken: first.refreshToken, now: later, using: &random)
        #expect(second.scope == .speechToTextCustom)
        #expect(second.accessToken != first.accessToken && second.refreshToken != first.refreshToken)
        #expect(
            issuer.authorize(accessToken: second.accessToken, for: .speechToTextCustom, now: later)
                == .authorized(clientID: "app"))
        // The documented limit of stateless tokens: the rotated-out token still trades until it expires.
        _ = try issuer.refresh(
            clientID: "app", clientSecret: "s3cret", refreshToken: first.refreshToken, now: later, using: &random)
        #expect(throws: TokenIssuer.Refusal.invalidGrant, "refresh tokens expire") {
            try issuer.refresh(
                clientID: "app", clientSecret: "s3cret", refreshToken: first.refreshToken, now: start + 600,
                using: &random)
        }
        // The new one lives its full lifetime from the refresh.
        _ = try issuer.refresh(
            clientID: "app", clientSecret: "s3cret", refreshToken: second.refreshToken, now: later + 599,
            using: &random)
    }

    @Test func onlyTheAuthenticatedOwnerTradesARefreshToken() throws {
        let issuer = issuer()
        var random = CountingGenerator()
        let grant = try issuer.issue(
            clientID: "app", clientSecret: "s3cret", scope: "SPEECH", now: start, using: &random)
        #expect(throws: TokenIssuer.Refusal.invalidClient) {
            try issuer.refresh(
                clientID: "app", clientSecret: "wrong", refreshToken: grant.refreshToken, now: start, using: &random)
        }
        #expect(throws: TokenIssuer.Refusal.invalidGrant, "another app's token") {
            try issuer.refresh(
                clientID: "other", clientSecret: "x", refreshToken: grant.refreshToken, now: start, using: &random)
        }
        #expect(throws: TokenIssuer.Refusal.invalidGrant, "an access token is not a refresh token") {
            try issuer.refresh(
                clientID: "app", clientSecret: "s3cret", refreshToken: grant.accessToken, now: start, using: &random)
        }
        #expect(issuer.authorize(accessToken: grant.refreshToken, for: .speech, now: start) == .unknownToken)
        _ = try issuer.refresh(
            clientID: "app", clientSecret: "s3cret", refreshToken: grant.refreshToken, now: start, using: &random)
    }

    @Test func removingAnAppRevokesItsTokens() throws {
        var random = CountingGenerator()
        let grant = try issuer().issue(
            clientID: "other", clientSecret: "x", scope: "SPEECH", now: start, using: &random)
        let withoutIt = issuer(apps: ["app": "s3cret"])
        #expect(withoutIt.authorize(accessToken: grant.accessToken, for: .speech, now: start) == .unknownToken)
        #expect(throws: TokenIssuer.Refusal.invalidClient) {
            try withoutIt.refresh(
                clientID: "other", clientSecret: "x", refreshToken: grant.refreshToken, now: start, using: &random)
        }
    }

    @Test func anAlteredTokenIsRefused() throws {
        let issuer = issuer()
        var random = CountingGenerator()
        let grant = try issuer.issue(
            clientID: "app", clientSecret: "s3cret", scope: "STTC", now: start, using: &random)
        let token = try #require(SignedToken(decoding: grant.accessToken, with: key))
        // The claims re-signed with another key, or changed under the original signature.
        var wider = token
        wider.scope = [.speech, .speechToTextCustom]
        let forged = wider.encoded(with: .random())
        #expect(issuer.authorize(accessToken: forged, for: .speech, now: start) == .unknownToken)
        let signature = grant.accessToken.split(separator: ".").last!
        let spliced = String(forged.split(separator: ".").dropLast().joined(separator: ".")) + "." + signature
        #expect(issuer.authorize(accessToken: spliced, for: .speech, now: start) == .unknownToken)
        for mangled in [
            String(grant.accessToken.dropLast()), grant.accessToken + "A", "et1.", "et1..", "",
            String(repeating: "a", count: 10_000), grant.accessToken.replacingOccurrences(of: "et1.", with: "et2."),
        ] {
            #expect(issuer.authorize(accessToken: mangled, for: .speechToTextCustom, now: start) == .unknownToken)
        }
    }

    @Test func scopeFieldsParse() {
        #expect(OAuthScope(field: "SPEECH") == .speech)
        #expect(OAuthScope(field: "sttc") == .speechToTextCustom)
        #expect(OAuthScope(field: "SPEECH, STTC") == [.speech, .speechToTextCustom])
        #expect(OAuthScope(field: "") == nil)
        #expect(OAuthScope(field: "tts") == .textToSpeech)
        #expect(OAuthScope(field: "SPEECH,TTS")?.description == "SPEECH,TTS")
        #expect(OAuthScope(field: "SPEECH,MMS") == nil)
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
@Suite(.waiting)
struct APIKeysTests {
    @Test func aKeyFileGivesEachKeyItsScopes() throws {
        let keys = try APIKeys(
            parsing: "# ops keys\n\nabcdefghijklmnop\nqrstuvwxyz012345 SPEECH,STTC\n", origin: "keys.txt")
        #expect(keys.scopes == ["abcdefghijklmnop": .speech, "qrstuvwxyz012345": [.speech, .speechToTextCustom]])
        let store = TokenIssuer(credentials: ["app": "s3cret"], apiKeys: keys, key: .random())
        let now = Date()
        // Each key is its own app, named by its line (never by the key), for per-app limits and logs.
        #expect(
            store.authorize(accessToken: "abcdefghijklmnop", for: .speech, now: now) == .authorized(clientID: "api-key:3")
        )
        #expect(
            store.authorize(accessToken: "abcdefghijklmnop", for: .speechToTextCustom, now: now) == .wrongScope(.speech)
        )
        #expect(
            store.authorize(accessToken: "qrstuvwxyz012345", for: .speechToTextCustom, now: now)
                == .authorized(clientID: "api-key:4"))
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

/// Token key files: the key's forms, and every refusal naming the file.
@Suite(.waiting)
struct TokenKeyTests {
    let hex = "00112233445566778899aabbccddeeff0f1e2d3c4b5a69788796a5b4c3d2e1f0"

    @Test func hexAndRawKeysReadAndAgree() throws {
        let fromHex = try TokenKey(fileContents: Array((hex + "\n").utf8), origin: "k")
        var raw: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            raw.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        let fromRaw = try TokenKey(fileContents: raw, origin: "k")
        // The same key: a token one signs, the other accepts.
        let token = SignedToken(kind: .access, clientID: "app", scope: .speech, expiry: 1, id: "i").encoded(
            with: fromHex)
        #expect(SignedToken(decoding: token, with: fromRaw)?.clientID == "app")
    }

    @Test(arguments: [
        ("abcdef", "keys/token.key: the token key is 3 bytes; it needs at least 32"),
        ("abc", "keys/token.key: the token key has an odd number of hex digits"),
        (String(repeating: "a", count: 64), "keys/token.key: the token key does not look random"),
        ("correct horse battery staple, correct horse", "keys/token.key, line 1: expected hex digits only"),
        (String(repeating: "\u{1}\u{2}", count: 20), "keys/token.key: the token key does not look random"),
        (String(repeating: "0123456789abcdef", count: 200), "keys/token.key: the token key is longer than 1 024 bytes"),
    ])
    func aWeakKeyIsRefusedNamingTheFile(text: String, message: String) {
        let error = #expect(throws: EarshotError.self) {
            try TokenKey(fileContents: Array(text.utf8), origin: "keys/token.key")
        }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }

    @Test func aKeyFileOthersCanReadIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("token.key")
        try Data(hex.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let error = #expect(throws: EarshotError.self) { try TokenKey(contentsOfFile: path) }
        #expect(
            error?.message
                == "\(path): the token key file may be read or written by other users (mode 644); chmod 600 it")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        _ = try TokenKey(contentsOfFile: path)
        let missing = #expect(throws: EarshotError.self) { try TokenKey(contentsOfFile: path + ".missing") }
        #expect(missing?.message == "\(path).missing: cannot read the token key file: no such file or directory")
    }
}
