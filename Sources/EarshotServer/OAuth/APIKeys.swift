import EarshotCore
import Foundation

/// Static API keys, for clients that cannot fetch a token (most OpenAI-compatible clients take one
/// fixed key): each key is accepted as a Bearer token on every route, for the scopes it was given,
/// and never expires. Kept in a file the operator writes (`earshot serve --api-keys FILE`).
///
/// File format: one key per line, optionally followed by one space and its scopes as the token
/// request spells them (`SPEECH`, `STTC`, `SPEECH,STTC`; `SPEECH` when omitted), in the syntax of every
/// secrets file (``SecretsFile``: LF or CR LF line ends, blank lines and lines starting with `#`
/// skipped, nothing else on a line). A key is 16 to 256 printable ASCII characters without spaces, so
/// a short, guessable one is refused when the file is read; so is a file others may read.
public struct APIKeys: Sendable, Hashable {
    /// Each key and the scopes it grants.
    public private(set) var scopes: [String: OAuthScope]
    /// Each key's name as an app, for per-app limits and logs: `api-key:N` for the key on line N of
    /// its file (never the key itself).
    public private(set) var names: [String: String] = [:]

    /// No keys: only tokens from `/oauth/token` are accepted.
    public init() { scopes = [:] }

    public init(scopes: [String: OAuthScope]) { self.scopes = scopes }

    /// Parses the file's bytes; `origin` names the file in errors, which give the line number but never
    /// the key.
    public init(fileContents bytes: [UInt8], origin: String) throws {
        var scopes: [String: OAuthScope] = [:]
        for line in try SecretsFile.lines(of: bytes, origin: origin) {
            let place = "\(origin), line \(line.number)"
            let fields = line.text.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count <= 2, !fields.contains(where: \.isEmpty) else {
                throw EarshotError(
                    .invalidInput, "\(place): expected a key, then optionally its scopes after one space (SPEECH,STTC)")
            }
            let key = String(fields[0])
            guard (16...256).contains(key.utf8.count) else {
                throw EarshotError(
                    .invalidInput, "\(place): a key must be 16 to 256 printable ASCII characters without spaces")
            }
            var scope = OAuthScope.speech
            if fields.count == 2 {
                guard let given = OAuthScope(field: String(fields[1])) else {
                    throw EarshotError(.invalidInput, "\(place): scopes must be SPEECH, STTC or SPEECH,STTC")
                }
                scope = given
            }
            guard scopes[key] == nil else { throw EarshotError(.invalidInput, "\(place): the key appears twice") }
            scopes[key] = scope
            names[key] = "api-key:\(line.number)"
        }
        guard !scopes.isEmpty else { throw EarshotError(.invalidInput, "\(origin): no keys") }
        self.scopes = scopes
    }

    /// Parses the file's text (see ``init(fileContents:origin:)``).
    public init(parsing text: String, origin: String) throws {
        try self.init(fileContents: Array(text.utf8), origin: origin)
    }

    /// Reads a key file, refused unless only its owner may read or write it (``SecretsFile``).
    public init(contentsOfFile path: String) throws {
        try self.init(fileContents: SecretsFile.read(path, what: "the API key file"), origin: path)
    }

    public var isEmpty: Bool { scopes.isEmpty }
}
