import EarshotCrypto
import Foundation

/// A self-contained token: what it is for, the app it was issued to, the services it opens and when
/// it expires, signed with the service's ``TokenKey`` (HMAC-SHA256), so any instance holding the same
/// key can check it without asking another, and a restart does not forget it.
///
/// Text form: `et1.<claims>.<signature>`, where `<claims>` is the base64url (unpadded) of a small JSON
/// object (`typ` access|refresh, `cid` app key, `scp` scopes as the token request spells them, `exp`
/// expiry in whole seconds since 1970, `jti` 128 random bits in hex) and `<signature>` the base64url
/// HMAC-SHA256 of `et1.<claims>`. The claims are readable by whoever holds the token (they name the
/// app key and scopes, nothing secret); only the key can produce a valid signature. The expiry is wall-clock
/// time, so instances' clocks must agree to within the tolerance an operator accepts (NTP).
public struct SignedToken: Sendable, Hashable {
    /// Access tokens open the services; refresh tokens only buy new tokens. The kind is signed, so
    /// one cannot be shown as the other.
    public enum Kind: String, Sendable, Hashable {
        case access
        case refresh
    }

    public var kind: Kind
    public var clientID: String
    public var scope: OAuthScope
    /// Seconds since 1970 (UTC) at which the token stops being accepted.
    public var expiry: Int64
    /// Random, so two tokens issued in the same second to the same app differ.
    public var id: String

    public init(kind: Kind, clientID: String, scope: OAuthScope, expiry: Int64, id: String) {
        self.kind = kind
        self.clientID = clientID
        self.scope = scope
        self.expiry = expiry
        self.id = id
    }

    /// The version prefix; a later format gets another, and this one's tokens stop being accepted.
    static let prefix = "et1."
    /// Longer text is refused before any work: a token is a few hundred bytes.
    static let maximumLength = 4_096

    private struct Claims: Codable {
        var typ: String
        var cid: String
        var scp: String
        var exp: Int64
        var jti: String
    }

    /// The token's text, signed with `key`.
    public func encoded(with key: TokenKey) -> String {
        let claims = Claims(typ: kind.rawValue, cid: clientID, scp: scope.description, exp: expiry, jti: id)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding five strings and an integer cannot fail.
        let json = (try? encoder.encode(claims)) ?? Data()
        let signed = Self.prefix + Self.base64URL(json)
        return signed + "."
            + Self.base64URL(Data(HMACSHA256.code(for: signed.utf8, key: key.key)))
    }

    /// The token `text` holds, or nil unless it is one signed with `key`. The signature is checked
    /// (in constant time) before the claims are read; expiry and scope are the caller's to judge.
    public init?(decoding text: String, with key: TokenKey) {
        guard text.utf8.count <= Self.maximumLength, text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.dropFirst(Self.prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let json = Self.data(base64URL: parts[0]),
            let signature = Self.data(base64URL: parts[1]),
            HMACSHA256.isValid(signature, for: (Self.prefix + parts[0]).utf8, key: key.key),
            let claims = try? JSONDecoder().decode(Claims.self, from: json), let kind = Kind(rawValue: claims.typ),
            let scope = OAuthScope(field: claims.scp)
        else { return nil }
        self.init(kind: kind, clientID: claims.cid, scope: scope, expiry: claims.exp, id: claims.jti)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of unpadded base64url `text`, or nil unless `text` is exactly how ``base64URL(_:)``
    /// writes them. The last character of a length not a multiple of 4 carries 2 or 4 bits that encode
    /// nothing, which a decoder ignores: without this check each signature would have 4 spellings (2
    /// spare bits), all verifying, and a token would not be one string.
    static func data(base64URL text: Substring) -> Data? {
        guard
            text.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0)
                    || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard), base64URL(data) == text else { return nil }
        return data
    }
}
