/// Pieces for writing JSON by hand, where a document's key order and bytes must be fixed (manifests
/// that rebuild byte-identically, the Speech API response in the seed's field order) and
/// `JSONEncoder` cannot promise either.
public enum JSONText {
    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped (RFC 8259),
    /// everything else as is.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
