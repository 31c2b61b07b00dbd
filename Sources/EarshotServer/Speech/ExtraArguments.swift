import Foundation

/// The `X-Arg` headers of a request (section 3.4): comma-separated `name=value` pairs whose values
/// are percent-encoded (a space is `%20`, never `+`). The header may appear several times.
public struct ExtraArguments: Sendable, Hashable {
    /// The pairs in the order sent; a later value of the same name wins in `subscript`.
    public var pairs: [(name: String, value: String)] { storage.map { ($0.name, $0.value) } }

    private struct Pair: Sendable, Hashable {
        var name: String
        var value: String
        init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    private var storage: [Pair] = []

    public init(headers: [String]) {
        for header in headers {
            for item in header.split(separator: ",") {
                let trimmed = item.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                let name: Substring, raw: Substring
                if let equals = trimmed.firstIndex(of: "=") {
                    name = trimmed[..<equals]
                    raw = trimmed[trimmed.index(after: equals)...]
                } else {
                    name = trimmed[...]
                    raw = ""
                }
                // A value that is not valid percent-encoding is kept as sent rather than dropped.
                let value = String(raw).removingPercentEncoding ?? String(raw)
                storage.append(Pair(name.trimmingCharacters(in: .whitespaces), value))
            }
        }
    }

    /// The last value sent for `name` (names compared without regard to case).
    public subscript(name: String) -> String? {
        storage.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether `name` is `true` (or `1`, `yes`).
    public func flag(_ name: String) -> Bool {
        guard let value = self[name]?.lowercased() else { return false }
        return value == "true" || value == "1" || value == "yes"
    }

    /// `name=value` pairs for a log line.
    public var logDescription: String { storage.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") }
}
