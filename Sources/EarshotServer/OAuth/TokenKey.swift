import EarshotCore
import EarshotCrypto
import Foundation

/// The secret that signs and checks tokens (``SignedToken``). Every instance started with the same
/// key accepts the others' tokens; without one (`earshot serve` with no `--token-key`) each process
/// makes a random key, so its tokens die with it.
///
/// Key file (`earshot serve --token-key FILE`): at least 32 bytes (256 bits) of key, either as hex
/// digits (64 or more, on one line, read as every secrets file is — ``SecretsFile``: a line feed or
/// carriage return and line feed may end it, `#` comment lines may surround it: `openssl rand -hex 32`)
/// or as raw bytes (`head -c 32 /dev/urandom`; a file of printable ASCII and line ends is taken for
/// the hex form). Refused, with an error naming the file: a file anyone but its owner may read or
/// write (the key signs every client's tokens: `chmod 600` it), text that is not one line of hex
/// digits, fewer than 32 bytes, more than 1 024, or a key with fewer than 16 distinct byte values — a
/// repeated character or a short phrase, not proof of randomness but a guard against the obvious
/// mistakes.
public struct TokenKey: Sendable {
    let key: [UInt8]

    init(key: [UInt8]) { self.key = key }

    /// A fresh 256-bit key from the system's random source.
    public static func random() -> TokenKey { TokenKey(key: HMACSHA256.randomKey()) }

    /// A key from a file's bytes; `origin` names the file in errors, which never quote the key.
    public init(fileContents bytes: [UInt8], origin: String) throws {
        var material = bytes
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) || [0x09, 0x0A, 0x0D].contains($0) }) {
            // Text: the hex form, on one line. (32 random bytes are all printable by chance once in 10^14.)
            let lines = try SecretsFile.lines(of: bytes, origin: origin)
            guard let line = lines.first else {
                throw EarshotError(
                    .invalidInput, "\(origin): no key; expected one line of hex digits (openssl rand -hex 32)")
            }
            guard lines.count == 1 else {
                throw EarshotError(
                    .invalidInput,
                    "\(origin), line \(lines[1].number): a second line; expected the key as one line of hex digits")
            }
            let digits = Array(line.text.utf8)
            guard digits.allSatisfy({ Self.hexValue($0) != nil }) else {
                throw EarshotError(
                    .invalidInput,
                    "\(origin), line \(line.number): expected hex digits only (openssl rand -hex 32), or the key's raw bytes"
                )
            }
            guard digits.count % 2 == 0 else {
                throw EarshotError(.invalidInput, "\(origin): the token key has an odd number of hex digits")
            }
            material = stride(from: 0, to: digits.count, by: 2).map {
                (Self.hexValue(digits[$0])! << 4) | Self.hexValue(digits[$0 + 1])!
            }
        }
        guard material.count >= 32 else {
            throw EarshotError(
                .invalidInput,
                "\(origin): the token key is \(material.count) bytes; it needs at least 32 (64 hex digits: openssl rand -hex 32)"
            )
        }
        guard material.count <= 1_024 else {
            throw EarshotError(
                .invalidInput, "\(origin): the token key is longer than 1 024 bytes; is this the right file?")
        }
        guard Set(material).count >= 16 else {
            throw EarshotError(
                .invalidInput,
                "\(origin): the token key does not look random (fewer than 16 distinct bytes); make one with openssl rand -hex 32"
            )
        }
        key = material
    }

    /// Reads and checks a key file (see the type's documentation).
    public init(contentsOfFile path: String) throws {
        try self.init(fileContents: SecretsFile.read(path, what: "the token key file"), origin: path)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
