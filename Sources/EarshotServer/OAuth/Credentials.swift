import EarshotCore
import Foundation

/// The apps allowed to ask for tokens: app key → secret (the seed's App Key and Secret Key).
public struct Credentials: Sendable, Hashable {
    public var secrets: [String: String]

    public init(secrets: [String: String]) { self.secrets = secrets }

    /// Parses one `app_key:secret` line per app; blank lines and lines starting with `#` are skipped.
    /// `origin` names the file in errors, which give the line number but never the secret.
    public init(parsing text: String, origin: String) throws {
        var secrets: [String: String] = [:]
        for (number, trimmed) in OperatorFile.lines(of: text) {
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw EarshotError(.invalidInput, "\(origin), line \(number): expected app_key:secret")
            }
            let key = String(trimmed[..<colon]), secret = String(trimmed[trimmed.index(after: colon)...])
            guard !key.isEmpty, !secret.isEmpty else {
                throw EarshotError(
                    .invalidInput, "\(origin), line \(number): expected a non-empty app key and secret")
            }
            guard secrets[key] == nil else {
                throw EarshotError(.invalidInput, "\(origin), line \(number): app key \(key) appears twice")
            }
            secrets[key] = secret
        }
        guard !secrets.isEmpty else {
            throw EarshotError(.invalidInput, "\(origin): no app_key:secret lines")
        }
        self.secrets = secrets
    }

    /// Reads a credentials file.
    public init(contentsOfFile path: String) throws {
        try self.init(parsing: OperatorFile.read(path, what: "the credentials file"), origin: path)
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
