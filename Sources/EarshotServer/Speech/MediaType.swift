import Foundation

/// A header value of the form `type; name=value; name="quoted value"`: `Content-Type` (RFC 9110)
/// and `Content-Disposition` (RFC 6266) both. The type and parameter names are lower-cased (they
/// are case-insensitive); values keep their case, without quotes.
struct MediaType: Sendable, Equatable {
    var type: String
    var parameters: [String: String]

    init(header: String) {
        let pieces = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        type = (pieces.first ?? "").lowercased()
        var parameters: [String: String] = [:]
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let value = piece[piece.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            parameters[piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = value
        }
        self.parameters = parameters
    }
}
