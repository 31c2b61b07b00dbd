import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotServer

/// The one syntax and permission rule of every secrets file (`--credentials`, `--api-keys`,
/// `--token-key`): CR LF line ends, comments only as whole lines, nothing trimmed, owner-only files,
/// and errors that name the file and line but never the secret.
@Suite(.waiting)
struct SecretsFileTests {
    @Test func linesEndWithLineFeedsOrCarriageReturnAndLineFeedAndKeepTheirNumbers() throws {
        let text = "# apps\r\napp1:one\r\n\r\n   \n\t\napp2:t#o\nlast:line"
        let lines = try SecretsFile.lines(of: Array(text.utf8), origin: "f")
        #expect(
            lines == [
                .init(number: 2, text: "app1:one"), .init(number: 6, text: "app2:t#o"),
                .init(number: 7, text: "last:line"),
            ])
        #expect(try SecretsFile.lines(of: [], origin: "f").isEmpty)
        #expect(try SecretsFile.lines(of: Array("\n\r\n#\n".utf8), origin: "f").isEmpty)
    }

    @Test func aCredentialsFileWithCarriageReturnsGivesEveryAppItsExactSecret() throws {
        let credentials = try Credentials(
            parsing: "# apps\r\napp1:secretone\r\napp2:secrettwo\r\n\r\napp3:se#cret:with:colons\r\n",
            origin: "apps.txt")
        #expect(credentials.secrets == ["app1": "secretone", "app2": "secrettwo", "app3": "se#cret:with:colons"])
        let mixed = try Credentials(parsing: "app1:one\napp2:two\r\napp3:three", origin: "apps.txt")
        #expect(mixed.secrets == ["app1": "one", "app2": "two", "app3": "three"])
    }

    @Test(arguments: [
        (
            "# apps\napp5 : hunter2\n",
            "apps.txt, line 2: a space; expected app_key:secret with no space around the colon"
        ),
        ("app5:hunter2 # old\n", "apps.txt, line 1: a space; expected app_key:secret"),
        ("app5:hun ter2\n", "apps.txt, line 1: a space; expected app_key:secret"),
        ("app1:x\n\n app5:hunter2\n", "apps.txt, line 3: a space before or after the entry"),
        ("app5:hunter2 \r\n", "apps.txt, line 1: a space before or after the entry"),
        ("  # indented comment hunter2\n", "apps.txt, line 1: a space before or after the entry"),
        ("app5:hun\tter2\n", "apps.txt, line 1, column 9: a tab; expected printable ASCII"),
        ("app5:hunter2\rapp6:x\n", "apps.txt, line 1, column 13: a carriage return without a line feed after it"),
        ("app1:x\r\napp5:hünter2\r\n", "apps.txt, line 2, column 7: a byte outside ASCII"),
        ("app5:hunter2\u{0}\n", "apps.txt, line 1, column 13: a control character"),
        ("\u{FEFF}app5:hunter2\n", "apps.txt, line 1: the file starts with a byte-order mark"),
        ("hunter2\n", "apps.txt, line 1: no colon; expected app_key:secret"),
        (":hunter2\n", "apps.txt, line 1: expected a non-empty app key and secret"),
        ("app5:\n", "apps.txt, line 1: expected a non-empty app key and secret"),
        ("app5:hunter2\r\napp5:hunter3\r\n", "apps.txt, line 2: app key app5 appears twice"),
        ("# hunter2\r\n\r\n", "apps.txt: no app_key:secret lines"),
    ])
    func aLooseCredentialsLineIsRefusedNamingTheLineButNotTheSecret(text: String, message: String) {
        let error = #expect(throws: EarshotError.self) { try Credentials(parsing: text, origin: "apps.txt") }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("hunter") == false, "\(error?.message ?? "")")
    }

    @Test func anAPIKeyFileReadsCarriageReturnsAndOneSpaceBeforeTheScopes() throws {
        let keys = try APIKeys(
            parsing: "# ops keys\r\n\r\nabcdefghijklmnop\r\nqrstuvwxyz012345 SPEECH,STTC\r\n", origin: "keys.txt")
        #expect(keys.scopes == ["abcdefghijklmnop": .speech, "qrstuvwxyz012345": [.speech, .speechToTextCustom]])
    }

    @Test(arguments: [
        (
            "# keys\r\nabcdefghijklmnop  SPEECH\r\n",
            "keys.txt, line 2: expected a key, then optionally its scopes after one space"
        ),
        ("abcdefghijklmnop\tSPEECH\n", "keys.txt, line 1, column 17: a tab"),
        ("abcdefghijklmnop # old\n", "keys.txt, line 1: expected a key, then optionally its scopes"),
        ("abcdefghijklmnop SPEECH, STTC\n", "keys.txt, line 1: expected a key, then optionally its scopes"),
        ("abcdefghijklmnop \n", "keys.txt, line 1: a space before or after the entry"),
        ("# comment\r\n\r\n", "keys.txt: no keys"),
    ])
    func aLooseAPIKeyLineIsRefusedNamingTheLineButNotTheKey(text: String, message: String) {
        let error = #expect(throws: EarshotError.self) { try APIKeys(parsing: text, origin: "keys.txt") }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("abcdefghijklmnop") == false)
    }

    static let hex = "00112233445566778899aabbccddeeff0f1e2d3c4b5a69788796a5b4c3d2e1f0"

    @Test func aHexTokenKeyIsReadAsEverySecretsFileIs() throws {
        let plain = try TokenKey(fileContents: Array(Self.hex.utf8), origin: "k")
        let token = SignedToken(kind: .access, clientID: "app", scope: .speech, expiry: 1, id: "i").encoded(with: plain)
        for text in [
            Self.hex + "\n", Self.hex + "\r\n", "# made with openssl rand -hex 32\r\n" + Self.hex + "\r\n\r\n",
        ] {
            let key = try TokenKey(fileContents: Array(text.utf8), origin: "k")
            #expect(SignedToken(decoding: token, with: key)?.clientID == "app", "\(text.debugDescription)")
        }
    }

    @Test(arguments: [
        (SecretsFileTests.hex + " \n", "keys/token.key, line 1: a space before or after the entry"),
        (
            SecretsFileTests.hex + "\n" + SecretsFileTests.hex + "\n",
            "keys/token.key, line 2: a second line; expected the key as one line of hex digits"
        ),
        (SecretsFileTests.hex + " # old\n", "keys/token.key, line 1: expected hex digits only"),
        ("correct horse battery staple, correct horse\n", "keys/token.key, line 1: expected hex digits only"),
        ("# no key\n", "keys/token.key: no key; expected one line of hex digits"),
    ])
    func aLooseTokenKeyIsRefusedNamingTheLineButNotTheKey(text: String, message: String) {
        let error = #expect(throws: EarshotError.self) {
            try TokenKey(fileContents: Array(text.utf8), origin: "keys/token.key")
        }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("0011223344") == false)
    }

    /// Each kind of secrets file, how to read it, and how its errors name it.
    static let kinds: [(name: String, what: String, contents: String, read: @Sendable (String) throws -> Void)] = [
        ("apps.txt", "the credentials file", "app1:secretone\n", { _ = try Credentials(contentsOfFile: $0) }),
        ("keys.txt", "the API key file", "abcdefghijklmnop\n", { _ = try APIKeys(contentsOfFile: $0) }),
        ("token.key", "the token key file", SecretsFileTests.hex + "\n", { _ = try TokenKey(contentsOfFile: $0) }),
    ]

    @Test func everySecretsFileMustBeItsOwnersAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for kind in Self.kinds {
            let path = try directory.write(Array(kind.contents.utf8), to: kind.name)
            for mode in [0o644, 0o666, 0o640, 0o604, 0o660, 0o610, 0o601] {
                try #require(chmod(path, mode_t(mode)) == 0)
                let error = #expect(throws: EarshotError.self, "\(kind.name) at \(String(mode, radix: 8))") {
                    try kind.read(path)
                }
                #expect(
                    error?.message
                        == "\(path): \(kind.what) may be read or written by other users (mode \(String(mode, radix: 8))); chmod 600 it"
                )
            }
            for mode in [0o600, 0o400] {
                try #require(chmod(path, mode_t(mode)) == 0)
                try kind.read(path)
            }
            // A link is judged by the file it points to.
            let link = directory.file("link-" + kind.name)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            try kind.read(link)
            try #require(chmod(path, 0o640) == 0)
            #expect(throws: EarshotError.self) { try kind.read(link) }
            let missing = #expect(throws: EarshotError.self) { try kind.read(path + ".missing") }
            #expect(missing?.message == "\(path).missing: cannot read \(kind.what): no such file or directory")
        }
    }
}
