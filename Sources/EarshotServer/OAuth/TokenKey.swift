import Crypto
import EarshotCore
import Foundation

/// The secret that signs and checks tokens (``SignedToken``). Every instance started with the same
/// key accepts the others' tokens; without one (`earshot serve` with no `--token-key`) each process
/// makes a random key, so its tokens die with it.
///
/// Key file (`earshot serve --token-key FILE`): at least 32 bytes (256 bits) of key, either as hex
/// digits (64 or more, a trailing newline allowed: `openssl rand -hex 32`) or as raw bytes
/// (`head -c 32 /dev/urandom`). Refused, with an error naming the file: a file others may read or
/// write (the key signs every client's tokens: `chmod 600` it, or 640 for a service group), fewer than
/// 32 bytes, more than 1 024, or a key with fewer than 16 distinct byte values — a repeated character
/// or a short phrase, not proof of randomness but a guard against the obvious mistakes.
public struct TokenKey: Sendable {
    let key: SymmetricKey

    init(key: SymmetricKey) { self.key = key }

    /// A fresh 256-bit key from the system's random source.
    public static func random() -> TokenKey { TokenKey(key: SymmetricKey(size: .bits256)) }

    /// A key from a file's bytes; `origin` names the file in errors, which never quote the key.
    public init(fileContents bytes: [UInt8], origin: String) throws {
        var material = bytes
        let text = bytes.reversed().drop(while: { [0x0A, 0x0D, 0x20, 0x09].contains($0) }).reversed()
        if !text.isEmpty, text.allSatisfy({ Self.hexValue($0) != nil }) {
            guard text.count % 2 == 0 else {
                throw EarshotError(.invalidInput, "\(origin): the token key has an odd number of hex digits")
            }
            let digits = Array(text)
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
        key = SymmetricKey(data: material)
    }

    /// Reads and checks a key file (see the type's documentation).
    public init(contentsOfFile path: String) throws {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw EarshotError(.invalidInput, "\(path): cannot read the token key file")
        }
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o007 != 0 {
            throw EarshotError(
                .invalidInput,
                "\(path): the token key file may be read or written by other users (mode \(String(mode & 0o777, radix: 8))); chmod 600 it"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read the token key file")
        }
        try self.init(fileContents: [UInt8](data), origin: path)
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
