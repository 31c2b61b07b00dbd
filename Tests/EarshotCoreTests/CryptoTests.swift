import EarshotCore
import EarshotCrypto
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// SHA-256 and HMAC-SHA256 over the system's libcrypto: the published test vectors, and a file hashed
/// in pieces against coreutils' `sha256sum`.
@Suite(.computing) struct CryptoTests {
    /// FIPS 180-4's examples (NIST's "SHA256.pdf"): "abc", the empty message, the two-block message.
    @Test func sha256GivesThePublishedDigests() {
        #expect(
            SHA256.hash("abc".utf8).hexadecimal == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hash([UInt8]()).hexadecimal == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8).hexadecimal
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// A hash fed in uneven pieces is the hash of the whole, as `sha256sum` computes it.
    @Test func piecesHashAsTheWholeFileDoes() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(5 << 20) + 17).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-sha-\(UUID())").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var hash = SHA256()
        var offset = 0
        for size in [0, 1, 63, 64, 65, 4 << 20] where offset < bytes.count {
            hash.update(bytes[offset..<min(bytes.count, offset + size)])
            offset = min(bytes.count, offset + size)
        }
        hash.update(bytes[offset...])
        let sum = try ExternalTool.run(["sha256sum", path])
        try #require(sum.status == 0, "sha256sum: \(sum.standardError)")
        #expect(hash.finalize().hexadecimal == String(sum.output.prefix(64)))
        #expect(SHA256.hash(bytes).hexadecimal == String(sum.output.prefix(64)))
    }

    /// RFC 4231's test cases 1, 2 and 6 (a key longer than the hash's block).
    @Test func hmacGivesRFC4231sCodes() {
        #expect(
            HMACSHA256.code(for: "Hi There".utf8, key: Array(repeating: 0x0b, count: 20)).hexadecimal
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            HMACSHA256.code(for: "what do ya want for nothing?".utf8, key: Array("Jefe".utf8)).hexadecimal
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            HMACSHA256.code(
                for: "Test Using Larger Than Block-Size Key - Hash Key First".utf8,
                key: Array(repeating: 0xaa, count: 131)
            ).hexadecimal == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func onlyTheExactCodeIsValid() {
        let key = HMACSHA256.randomKey()
        #expect(key.count == 32)
        #expect(HMACSHA256.randomKey() != key)
        let message = Array("et1.claims".utf8)
        let code = HMACSHA256.code(for: message, key: key)
        #expect(HMACSHA256.isValid(code, for: message, key: key))
        var flipped = code
        flipped[31] ^= 1
        #expect(!HMACSHA256.isValid(flipped, for: message, key: key))
        #expect(!HMACSHA256.isValid(code.dropLast(), for: message, key: key))
        #expect(!HMACSHA256.isValid(code + [0], for: message, key: key))
        #expect(!HMACSHA256.isValid(code, for: message + [0], key: key))
        #expect(!HMACSHA256.isValid(code, for: message, key: HMACSHA256.randomKey()))
    }
}
