extension Sequence<UInt8> {
    /// The bytes in lower-case hexadecimal, two digits each: how a SHA-256 is written and compared
    /// (model pins, manifests, language-model ids).
    public var hexadecimal: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
