import CLibCrypto

/// HMAC-SHA256 (RFC 2104), by the system's libcrypto: what signs the service's tokens and derives its
/// client-secret key.
public enum HMACSHA256 {
    /// The code's length in bytes.
    public static let byteCount = 32

    /// The authentication code of `message` under `key`.
    public static func code(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        let message = Array(message)
        var code = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                HMAC(
                    EVP_sha256(), key.baseAddress, Int32(key.count),
                    message.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    message.count, &code, &length)
            }
        }
        // HMAC fails only when memory does.
        guard done != nil, length == byteCount else { fatalError("libcrypto: cannot compute an HMAC-SHA256") }
        return code
    }

    /// Whether `code` is the authentication code of `message` under `key`, compared in constant time.
    public static func isValid(_ code: some Sequence<UInt8>, for message: some Sequence<UInt8>, key: [UInt8]) -> Bool {
        let given = Array(code)
        guard given.count == byteCount else { return false }
        let expected = Self.code(for: message, key: key)
        return CRYPTO_memcmp(given, expected, byteCount) == 0
    }

    /// `count` bytes from libcrypto's cryptographically secure generator (a key).
    public static func randomKey(count: Int = byteCount) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { fatalError("libcrypto: no random bytes") }
        return bytes
    }
}
