import CLibCrypto

/// SHA-256 (FIPS 180-4), by the system's libcrypto (OpenSSL 3): how model files, corpus manifests and
/// custom language models are pinned and compared.
public struct SHA256: ~Copyable {
    /// The digest's length in bytes.
    public static let byteCount = 32

    private let context: OpaquePointer

    /// A hash of no bytes yet.
    public init() {
        // Allocation and initialisation fail only when memory does.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto: cannot begin a SHA-256")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the hash.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done = bytes.withContiguousStorageIfAvailable { buffer in
            EVP_DigestUpdate(context, buffer.baseAddress, buffer.count)
        }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        }
    }

    /// The digest of every byte added.
    public consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == Self.byteCount else {
            fatalError("libcrypto: cannot finish a SHA-256")
        }
        return digest
    }

    /// The digest of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalize()
    }
}
