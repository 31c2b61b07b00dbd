import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotServer

/// Token text: one spelling per token. Base64url's last character may carry bits that encode nothing;
/// a token with any of them set is refused, though its bytes (and so its signature) are the same.
@Suite(.waiting)
struct SignedTokenTests {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// `text` with its last character's `spare` low bits replaced by `bits`.
    static func respelled(_ text: Substring, spare: Int, bits: Int) -> String {
        let value = alphabet.firstIndex(of: text.last!)!
        return String(text.dropLast()) + String(alphabet[(value & ~((1 << spare) - 1)) | bits])
    }

    @Test func onlyCanonicalBase64URLDecodes() {
        #expect(SignedToken.data(base64URL: "QQ") == Data([0x41]))
        #expect(SignedToken.data(base64URL: "QUI") == Data([0x41, 0x42]))
        #expect(SignedToken.data(base64URL: "QUJD") == Data([0x41, 0x42, 0x43]))
        // "QQ" has 4 spare bits, "QUI" 2: every other setting of them is another spelling of the same bytes.
        for bits in 1..<16 {
            #expect(SignedToken.data(base64URL: Self.respelled("QQ", spare: 4, bits: bits)[...]) == nil)
        }
        for bits in 1..<4 {
            #expect(SignedToken.data(base64URL: Self.respelled("QUI", spare: 2, bits: bits)[...]) == nil)
        }
        #expect(SignedToken.data(base64URL: "Q") == nil)
        #expect(SignedToken.data(base64URL: "QQ==") == nil)
        #expect(SignedToken.data(base64URL: "+/8") == nil)
        #expect(SignedToken.data(base64URL: "-_8") == Data([0xFB, 0xFF]))
    }

    @Test func aTokenWithTheSignaturesSpareBitsChangedIsRefused() throws {
        let key = TokenKey.random()
        let token = SignedToken(kind: .access, clientID: "app", scope: .speech, expiry: 1_900_000_000, id: "0a1b")
            .encoded(with: key)
        #expect(SignedToken(decoding: token, with: key) != nil)
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        // An HMAC-SHA256 is 32 bytes: 43 characters, the last carrying 2 spare bits.
        #expect(parts[2].count == 43)
        for bits in 1..<4 {
            let tampered = "\(parts[0]).\(parts[1])." + Self.respelled(parts[2], spare: 2, bits: bits)
            #expect(tampered != token)
            #expect(SignedToken(decoding: tampered, with: key) == nil, "\(tampered)")
        }
        // The claims' spare bits too, when their length leaves any.
        let spare = [2: 4, 3: 2][parts[1].count % 4] ?? 0
        for bits in (1..<(1 << spare)) where spare > 0 {
            let tampered = "\(parts[0])." + Self.respelled(parts[1], spare: spare, bits: bits) + ".\(parts[2])"
            #expect(SignedToken(decoding: tampered, with: key) == nil, "\(tampered)")
        }
    }
}
