import EarshotCore
import EarshotCrypto
import Foundation

/// SHA-256 of a file, read in 4 MiB pieces: how installed models are checked against their pins.
public enum FileDigest {
    public static func sha256(of path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read the file")
        }
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty { hash.update(chunk) }
        return hash.finalize().hexadecimal
    }
}
