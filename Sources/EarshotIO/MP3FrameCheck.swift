import EarshotCore
import Foundation

/// Checks an MPEG audio (MP3) file's frames before libsndfile hands it to mpg123.
///
/// mpg123 decodes what is there when a file is cut short — a download or a recording interrupted — and
/// only prints a warning on the process's stderr, so a truncated file would be transcribed as if
/// complete. This walks the frame headers from the first frame (after an ID3v2 tag) and refuses a last
/// frame that runs past the end of the file, or fewer frames than a Xing/Info header states. The walk
/// stops, accepting the file, at anything that is not a frame header (an ID3v1 or APE tag, or data
/// mpg123 will resynchronize over): it refuses only what is certainly truncated.
enum MP3FrameCheck {
    /// Throws if `bytes` (a whole file) are an MP3 file whose frames run past its end; other files
    /// pass untouched.
    static func validate(_ bytes: UnsafeRawBufferPointer, name: String) throws {
        var offset = 0
        if bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 {  // "ID3"
            // The size is 4 bytes of 7 bits; a footer (flag 0x10) adds 10 more.
            let size = (0..<4).reduce(0) { $0 << 7 | Int(bytes[6 + $1] & 0x7F) }
            offset = 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)
            guard offset <= bytes.count else {
                throw EarshotError(
                    .invalidInput,
                    "\(name): truncated MP3: its ID3v2 tag promises \(offset) bytes but the file holds \(bytes.count); expected a complete file"
                )
            }
        }
        guard let first = Header(bytes, at: offset) else { return }  // not MPEG audio, or not ours to judge
        let statedFrames = first.xingFrameCount(bytes, at: offset)
        var frames = 0
        while let header = Header(bytes, at: offset) {
            guard offset + header.length <= bytes.count else {
                throw EarshotError(
                    .invalidInput,
                    "\(name): truncated MP3: frame \(frames + 1) at byte \(offset) needs \(header.length) bytes but the file holds \(bytes.count - offset); expected a complete file"
                )
            }
            frames += 1
            offset += header.length
        }
        // Judged only when the walk reached the end or a trailing tag, not data mpg123 resynchronizes over.
        if let statedFrames, frames < statedFrames, offset == bytes.count || Self.isTag(bytes, at: offset) {
            throw EarshotError(
                .invalidInput,
                "\(name): truncated MP3: its Xing header states \(statedFrames) frames but the file holds \(frames); expected a complete file"
            )
        }
    }

    /// Whether an ID3v1 (`TAG`), APE (`APETAGEX`) or Lyrics3 (`LYRICS`) tag starts at `offset`.
    static func isTag(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        ["TAG", "APETAGEX", "LYRICS"].contains { tag in
            offset + tag.utf8.count <= bytes.count && zip(tag.utf8, bytes[offset...]).allSatisfy { $0 == $1 }
        }
    }

    /// An MPEG-1/2/2.5 Layer I–III frame header; nil for anything else (free-format bitrates included,
    /// whose frame length the header does not give).
    struct Header {
        var length: Int
        var isMPEG1: Bool
        var isMono: Bool

        init?(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xE0 == 0xE0 else {
                return nil
            }
            let version = Int(bytes[offset + 1] >> 3) & 3  // 0 MPEG-2.5, 2 MPEG-2, 3 MPEG-1
            let layer = Int(bytes[offset + 1] >> 1) & 3  // 1 III, 2 II, 3 I
            let bitrateIndex = Int(bytes[offset + 2] >> 4)
            let rateIndex = Int(bytes[offset + 2] >> 2) & 3
            guard version != 1, layer != 0, (1...14).contains(bitrateIndex), rateIndex != 3 else { return nil }
            let padding = Int(bytes[offset + 2] >> 1) & 1
            isMPEG1 = version == 3
            isMono = bytes[offset + 3] >> 6 == 3
            let rate = [44_100, 48_000, 32_000][rateIndex] >> (isMPEG1 ? 0 : version == 2 ? 1 : 2)
            let kbps = Self.bitrates[isMPEG1 ? 3 - layer : (layer == 3 ? 3 : 4)][bitrateIndex - 1]
            switch layer {
            case 3: length = (12 * kbps * 1000 / rate + padding) * 4
            case 2: length = 144 * kbps * 1000 / rate + padding
            default: length = (isMPEG1 ? 144 : 72) * kbps * 1000 / rate + padding
            }
        }

        /// kbit/s for bitrate indices 1–14: MPEG-1 Layer I, II, III; MPEG-2/2.5 Layer I; Layer II and III.
        static let bitrates: [[Int]] = [
            [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
            [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
            [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
            [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
            [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
        ]

        /// The frame count a Xing or Info header in this (first) frame states, after the side information.
        func xingFrameCount(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
            let start = offset + 4 + (isMPEG1 ? (isMono ? 17 : 32) : (isMono ? 9 : 17))
            guard start + 12 <= min(bytes.count, offset + length) else { return nil }
            let tag = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<start + 4]), as: UTF8.self)
            guard tag == "Xing" || tag == "Info" else { return nil }
            let word = { (at: Int) in (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
            return word(start + 4) & 1 != 0 ? word(start + 8) : nil
        }
    }
}
