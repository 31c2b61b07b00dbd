/// The byte-level alphabet of GPT-2's BPE, which Whisper's tokenizer uses: every byte is written as one
/// printable character, so a token is a string of such characters. Bytes that are already printable
/// and not a space (`!`…`~`, `¡`…`¬`, `®`…`ÿ`) stand for themselves; the other 68 take the code points
/// from U+0100 on, in byte order (so a space, 0x20, is `Ġ`, U+0120).
///
/// (The mapping is the one published with GPT-2, Radford et al. 2019; written here from its definition.)
enum ByteLevelAlphabet {
    /// The character of each byte.
    static let characters: [Unicode.Scalar] = {
        var table = [Unicode.Scalar](repeating: "\0", count: 256)
        var next: UInt32 = 256
        for byte in 0..<256 {
            if isPrintable(UInt8(byte)) {
                table[byte] = Unicode.Scalar(UInt8(byte))
            } else {
                table[byte] = Unicode.Scalar(next)!
                next += 1
            }
        }
        return table
    }()

    /// The byte of each character of the alphabet.
    static let bytes: [Unicode.Scalar: UInt8] = {
        var table: [Unicode.Scalar: UInt8] = [:]
        for (byte, character) in characters.enumerated() { table[character] = UInt8(byte) }
        return table
    }()

    private static func isPrintable(_ byte: UInt8) -> Bool {
        (0x21...0x7e).contains(byte) || (0xa1...0xac).contains(byte) || (0xae...0xff).contains(byte)
    }

    /// The bytes a token string spells, or nil if it holds a character outside the alphabet.
    static func decode(_ token: String) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(token.unicodeScalars.count)
        for scalar in token.unicodeScalars {
            guard let byte = bytes[scalar] else { return nil }
            result.append(byte)
        }
        return result
    }

    /// The token string that spells `bytes`.
    static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var text = String.UnicodeScalarView()
        for byte in bytes { text.append(characters[Int(byte)]) }
        return String(text)
    }
}
