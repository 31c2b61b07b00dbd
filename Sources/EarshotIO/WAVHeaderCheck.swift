import EarshotCore
import Foundation

/// Checks a RIFF/WAVE file's chunk layout before libsndfile parses it.
///
/// libsndfile quietly reads what is there when a WAV's `data` chunk promises more bytes than the file
/// holds, so a truncated download or an interrupted recording would be transcribed as if complete.
/// This walks the chunk list and rejects that, naming the byte counts. A streaming WAV, whose header
/// was written before its length was known (size 0 or 0xFFFFFFFF, as the seed SDK sends while
/// recording), is accepted: its length is whatever follows.
enum WAVHeaderCheck {
    static let streamingSizes: Set<UInt32> = [0, 0xFFFF_FFFF]

    /// Throws if `bytes` (a whole file) are a RIFF/WAVE file whose chunks run past its end; other files
    /// pass untouched. Returns true for a streaming WAV, whose data chunk states no length.
    @discardableResult
    static func validate(_ bytes: UnsafeRawBufferPointer, name: String) throws -> Bool {
        let fileSize = UInt64(bytes.count)
        guard bytes.count >= 12, bytes.prefix(4).elementsEqual("RIFF".utf8),
            bytes[8..<12].elementsEqual("WAVE".utf8)
        else { return false }

        var offset: UInt64 = 12
        while offset + 8 <= fileSize {
            let at = Int(offset)
            let id = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            let size = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))
            let available = fileSize - offset - 8
            if id == "data" {
                if streamingSizes.contains(size) { return true }
                if UInt64(size) <= available { return false }
                throw EarshotError(
                    .invalidInput,
                    "\(name): truncated WAV: the data chunk at byte \(offset) promises \(size) bytes but the file holds \(available); expected a complete file (or a streaming WAV with an unknown length)"
                )
            }
            guard UInt64(size) <= available else {
                throw EarshotError(
                    .invalidInput,
                    "\(name): malformed WAV: the '\(id.filter { $0.isASCII && !$0.isNewline })' chunk at byte \(offset) claims \(size) bytes but only \(available) follow"
                )
            }
            offset += 8 + UInt64(size) + UInt64(size & 1)  // chunks are padded to even sizes
        }
        if offset < fileSize {
            throw EarshotError(
                .invalidInput,
                "\(name): truncated WAV: \(fileSize - offset) bytes at byte \(offset) cannot hold a chunk header (8 bytes); expected a complete file"
            )
        }
        return false
    }
}
