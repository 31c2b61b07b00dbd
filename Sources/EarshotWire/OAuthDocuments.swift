public import Foundation

/// The OAuth token endpoint's answer (RFC 6749 section 5.1), as `earshot serve` writes it and the
/// client reads it. The Speech API sent `expires_in` as a string of seconds; other servers send a
/// number, so both are read and a string is written.
public struct OAuthTokenDocument: Codable, Sendable, Equatable {
    public var accessToken: String
    /// Seconds the access token lives.
    public var expiresIn: Double
    public var refreshToken: String?

    public init(accessToken: String, expiresIn: Double, refreshToken: String?) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", expiresIn = "expires_in", refreshToken = "refresh_token"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        if let text = try? container.decodeIfPresent(String.self, forKey: .expiresIn) {
            guard let seconds = Double(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .expiresIn, in: container, debugDescription: "expires_in \"\(text)\" is not a number")
            }
            expiresIn = seconds
        } else {
            expiresIn = try container.decodeIfPresent(Double.self, forKey: .expiresIn) ?? 7200
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encode(String(Int(expiresIn)), forKey: .expiresIn)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
    }
}

/// An OAuth token endpoint's refusal (RFC 6749 section 5.2): `{"error":"invalid_client"}`.
public struct OAuthErrorDocument: Codable, Sendable, Equatable {
    public var error: String
    public var errorDescription: String?

    public init(error: String, errorDescription: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
    }

    enum CodingKeys: String, CodingKey { case error, errorDescription = "error_description" }
}

extension JSONEncoder {
    /// How Earshot writes the wire's JSON documents: keys sorted, so equal documents are equal bytes.
    public static var wire: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
