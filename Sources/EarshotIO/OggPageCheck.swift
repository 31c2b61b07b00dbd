import EarshotCore
import Foundation

/// Checks an Ogg file's pages (Vorbis, Opus, Speex, FLAC in Ogg) before a decoder sees it.
///
/// libsndfile reads a cut-short Ogg file up to its last whole page and reports no error, so a truncated
/// download or an interrupted recording would be processed as if complete. A complete Ogg stream ends
/// each of its logical streams with a page flagged end-of-stream (RFC 3533), so this walks the pages
/// and refuses a last page that runs past the end of the file, or a logical stream with no last page.
/// A file that does not start with a page is left to the decoders.
enum OggPageCheck {
    /// Throws if `bytes` (a whole file) are an Ogg stream whose last page is cut short or missing;
    /// other files pass untouched.
    static func validate(_ bytes: UnsafeRawBufferPointer, name: String) throws {
        guard isPage(bytes, at: 0) else { return }
        var offset = 0
        var open: [UInt32: Int] = [:]  // logical streams without their end-of-stream page, by serial: first page
        while isPage(bytes, at: offset) {
            guard offset + 27 <= bytes.count, offset + 27 + Int(bytes[offset + 26]) <= bytes.count else {
                throw truncated(name, "the page header at byte \(offset) is cut short")
            }
            let segments = Int(bytes[offset + 26])
            let bodySize = (0..<segments).reduce(0) { $0 + Int(bytes[offset + 27 + $1]) }
            let pageSize = 27 + segments + bodySize
            guard offset + pageSize <= bytes.count else {
                throw truncated(
                    name,
                    "the page at byte \(offset) needs \(pageSize) bytes but the file holds \(bytes.count - offset)")
            }
            let flags = bytes[offset + 5]
            let serial = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + 14 + $1]) << (8 * UInt32($1)) }
            if flags & 0x04 != 0 {
                open[serial] = nil
            } else if open[serial] == nil {
                open[serial] = offset
            }
            offset += pageSize
        }
        // Trailing bytes that are not a page are the decoders' business; a stream never ended is truncation.
        if let (serial, _) = open.min(by: { $0.value < $1.value }) {
            throw truncated(
                name,
                "its logical stream \(String(format: "%08x", serial)) has no end-of-stream page (the file ends at byte \(offset))"
            )
        }
    }

    static func isPage(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        offset + 4 <= bytes.count && bytes[offset] == 0x4F && bytes[offset + 1] == 0x67
            && bytes[offset + 2] == 0x67 && bytes[offset + 3] == 0x53  // "OggS"
    }

    static func truncated(_ name: String, _ detail: String) -> EarshotError {
        EarshotError(.invalidInput, "\(name): truncated Ogg: \(detail); expected a complete file")
    }
}
