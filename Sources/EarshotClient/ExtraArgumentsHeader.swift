public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `X-Arg` header of section 3.4: comma-separated `Name=Value` pairs, values percent-encoded
/// with `%20` for a space (not form encoding's `+`).
public enum ExtraArgumentsHeader {
    /// The header value for `defaults` (when sent) merged with `arguments`, which replace a default
    /// of the same name and otherwise follow in their order.
    public static func value(
        arguments: [(name: String, value: String)], defaults: [(String, String)]
    ) -> String {
        var pairs = defaults
        for (name, value) in arguments {
            if let index = pairs.firstIndex(where: { $0.0 == name }) {
                pairs[index].1 = value
            } else {
                pairs.append((name, value))
            }
        }
        return pairs.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: ", ")
    }

    /// The SDK's generated arguments, for this machine and `now`.
    public static func defaults(clientApp: String, clientVersion: String, now: Date = Date()) -> [(String, String)] {
        var system = utsname()
        uname(&system)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
        return [
            ("ClientSdk", "Earshot-Linux-\(clientVersion)"),
            ("DeviceType", field(system.machine)),
            ("DeviceOs", "Linux-\(field(system.release))"),
            ("DeviceTime", formatter.string(from: now)),
            ("ClientApp", clientApp),
            ("ClientVersion", clientVersion),
        ]
    }

    /// Percent-encodes all but RFC 3986's unreserved characters, so a space is `%20`.
    public static func percentEncoded(_ value: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
