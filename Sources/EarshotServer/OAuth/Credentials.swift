import EarshotCore
import Foundation

/// The apps allowed to ask for tokens: app key → secret (the seed's App Key and Secret Key).
public struct Credentials: Sendable, Hashable {
    public var secrets: [String: String]

    public init(secrets: [String: String]) { self.secrets = secrets }

    /// Parses one `app_key:secret` line per app, in the syntax of every secrets file (``SecretsFile``:
    /// LF or CR LF line ends, blank lines and lines starting with `#` skipped). The app key is what comes
    /// before the first colon, the secret everything after it (colons included); both are printable ASCII
    /// without spaces, so a space around the colon, inside the secret or before a trailing comment is
    /// refused rather than kept. `origin` names the file in errors, which give the line number but never
    /// the secret.
    public init(fileContents bytes: [UInt8], origin: String) throws {
        var secrets: [String: String] = [:]
        for line in try SecretsFile.lines(of: bytes, origin: origin) {
            let place = "\(origin), line \(line.number)"
            guard !line.text.contains(" ") else {
                throw EarshotError(
                    .invalidInput,
                    "\(place): a space; expected app_key:secret with no space around the colon or inside the secret "
                        + "(a comment is a line of its own, starting with #)")
            }
            guard let colon = line.text.firstIndex(of: ":") else {
                throw EarshotError(.invalidInput, "\(place): no colon; expected app_key:secret")
            }
            let key = String(line.text[..<colon]), secret = String(line.text[line.text.index(after: colon)...])
            guard !key.isEmpty, !secret.isEmpty else {
                throw EarshotError(
                    .invalidInput, "\(place): expected a non-empty app key and secret (app_key:secret)")
            }
            guard secrets[key] == nil else {
                throw EarshotError(.invalidInput, "\(place): app key \(key) appears twice")
            }
            secrets[key] = secret
        }
        guard !secrets.isEmpty else {
            throw EarshotError(.invalidInput, "\(origin): no app_key:secret lines")
        }
        self.secrets = secrets
    }

    /// Parses a credentials file's text (see ``init(fileContents:origin:)``).
    public init(parsing text: String, origin: String) throws {
        try self.init(fileContents: Array(text.utf8), origin: origin)
    }

    /// Reads a credentials file, refused unless only its owner may read or write it (``SecretsFile``).
    public init(contentsOfFile path: String) throws {
        try self.init(fileContents: SecretsFile.read(path, what: "the credentials file"), origin: path)
    }

    /// One app with a random key (64 bits) and secret (128 bits), so no server runs with a
    /// well-known default secret.
    public static func random() -> (credentials: Credentials, appKey: String, secret: String) {
        var generator = SystemRandomNumberGenerator()
        let key = "app-" + TokenIssuer.randomHex(bytes: 8, using: &generator)
        let secret = TokenIssuer.randomHex(bytes: 16, using: &generator)
        return (Credentials(secrets: [key: secret]), key, secret)
    }
}
