import EarshotCore
import EarshotTesting
import Foundation

@testable import EarshotServer

/// What the `secrets` and `token` fuzz targets run on each input, shared with
/// `ServerFuzzRegressionTests`: the readers of the service's secrets files (`--credentials`,
/// `--api-keys`, `--token-key`) and the signed-token decoder every request's `Authorization` reaches.
enum SecretsFuzzEntry {
    static let origin = "fuzz.txt"

    /// The three secrets-file readers on the same bytes. Each accepts entries of printable ASCII with
    /// nothing around them, or refuses with an `.invalidInput` error that names the file and quotes no
    /// secret; and LF or CR LF line ends give the same verdict and the same entries.
    static func secretsFile(_ input: [UInt8]) throws {
        let credentials = try reading(input, Credentials.init(fileContents:origin:))
        if case .accepted(let read) = credentials {
            for (key, secret) in read.secrets {
                guard printableWithoutSpace(key), printableWithoutSpace(secret), !key.contains(":") else {
                    throw FuzzFinding(
                        "credentials accepted a key or secret with a space, a colon in the key, or a non-printable byte"
                    )
                }
            }
        }
        let keys = try reading(input, APIKeys.init(fileContents:origin:))
        if case .accepted(let read) = keys {
            for key in read.scopes.keys where !(printableWithoutSpace(key) && (16...256).contains(key.utf8.count)) {
                throw FuzzFinding("an API key outside 16–256 printable characters was accepted")
            }
        }
        _ = try reading(input) { bytes, origin in
            _ = try TokenKey(fileContents: bytes, origin: origin)
            return true
        }
        // The same file with CR LF line ends reads the same.
        guard !input.contains(0x0D) else { return }
        let crlf = input.flatMap { $0 == 0x0A ? [0x0D, 0x0A] : [$0] }
        guard try reading(crlf, Credentials.init(fileContents:origin:)) == credentials,
            try reading(crlf, APIKeys.init(fileContents:origin:)) == keys
        else { throw FuzzFinding("CR LF line ends read differently from LF") }
    }

    /// A token's text: decoded with a fixed key, it is either refused or re-encodes to exactly the
    /// same text (one spelling per token); a token carrying the input as its app key round-trips.
    static func signedToken(_ input: [UInt8]) throws {
        let text = String(decoding: input, as: UTF8.self)
        if let token = SignedToken(decoding: text, with: key), token.encoded(with: key) != text {
            throw FuzzFinding("a token verified in a spelling other than its own")
        }
        if let data = SignedToken.data(base64URL: Substring(text)), SignedToken.base64URL(data) != text {
            throw FuzzFinding("base64url text decoded that is not how its bytes are written")
        }
        let made = SignedToken(kind: .access, clientID: text, scope: .speech, expiry: 1_800_000_000, id: "00ff")
        guard SignedToken(decoding: made.encoded(with: key), with: key) == made else {
            throw FuzzFinding("a token for app key \(text.debugDescription) did not decode to itself")
        }
    }

    /// The fixed key the token target signs and checks with.
    static let key = try! TokenKey(fileContents: Array((0..<32).map { UInt8($0 * 7 + 3) }), origin: "fuzz")

    enum Verdict<Value: Equatable>: Equatable {
        case accepted(Value)
        case refused
    }

    private static func reading<Value: Equatable>(
        _ bytes: [UInt8], _ read: ([UInt8], String) throws -> Value
    ) throws -> Verdict<Value> {
        do {
            return .accepted(try read(bytes, origin))
        } catch let error as EarshotError {
            guard error.code == .invalidInput, error.message.hasPrefix(origin) else {
                throw FuzzFinding("a refusal that is not .invalidInput naming the file: \(error)")
            }
            // No secret in the message: no long run of a line's text after its first colon or space.
            for line in bytes.split(separator: 0x0A) {
                guard let cut = line.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == 0x20 }) else { continue }
                let rest = String(decoding: line[(cut + 1)...].filter { (0x21...0x7E).contains($0) }, as: UTF8.self)
                if rest.utf8.count >= 16, error.message.contains(rest) {
                    throw FuzzFinding("a refusal quotes what may be a secret: \(error.message)")
                }
            }
            return .refused
        }
    }

    private static func printableWithoutSpace(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
