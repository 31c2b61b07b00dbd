import EarshotCore

/// The `fmt ` chunk of a WAV stream, validated before anything is sized from it.
///
/// Accepted: 16-bit integer PCM, as format tag 1 or as `WAVE_FORMAT_EXTENSIBLE` (0xFFFE) with the PCM
/// subformat GUID; 1–8 channels; a rate in ``AudioFormat/supportedSampleRates``; a block alignment of
/// two bytes per channel. Field offsets are those of the WAVE format (RFC 2361 appendix A, and
/// Microsoft's `WAVEFORMATEXTENSIBLE`).
struct WAVFormatChunk: Sendable {
    /// Bytes of the chunk body that are read; the rest (if any) is skipped unread.
    static let readSize = 40
    static let minimumSize = 16
    static let extensibleTag: UInt16 = 0xFFFE
    /// Bytes 2–15 of every `KSDATAFORMAT_SUBTYPE_*` GUID derived from a format tag
    /// (`xxxxxxxx-0000-0010-8000-00AA00389B71`, the tag in the first two bytes).
    static let subformatSuffix: [UInt8] = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]

    let format: AudioFormat

    /// Parses the first `min(size, readSize)` bytes of a chunk of `size` bytes whose body starts at
    /// stream offset `bodyOffset`.
    init(body: ArraySlice<UInt8>, size: UInt32, bodyOffset: Int, name: String) throws {
        let body = Array(body)
        func u16(_ at: Int) -> UInt16 { UInt16(body[at]) | UInt16(body[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        var tag = u16(0)
        let channels = Int(u16(2))
        let rate = Int(u32(4))
        let blockAlign = Int(u16(12))
        let bits = Int(u16(14))
        if tag == Self.extensibleTag {
            guard size >= 40 else {
                throw EarshotError.malformedStream(
                    name, at: bodyOffset - 4, "a WAVE_FORMAT_EXTENSIBLE fmt chunk of only \(size) bytes",
                    expected: "at least 40 bytes (with the subformat GUID)")
            }
            guard Array(body[26..<40]) == Self.subformatSuffix else {
                throw EarshotError(
                    .unsupportedFormat,
                    "\(name): unsupported WAV encoding: a WAVE_FORMAT_EXTENSIBLE subformat GUID that is not derived from a format tag, at byte \(bodyOffset + 24); expected 16-bit PCM"
                )
            }
            tag = u16(24)
            let validBits = Int(u16(18))
            guard validBits == 0 || validBits == 16 else {
                throw EarshotError(
                    .unsupportedFormat,
                    "\(name): unsupported WAV encoding: \(validBits) valid bits in 16-bit containers at byte \(bodyOffset + 18); expected 16"
                )
            }
        }
        guard tag == 1 else {
            throw EarshotError(
                .unsupportedFormat,
                "\(name): unsupported WAV encoding: format tag \(Self.describe(tag)) at byte \(bodyOffset); expected 16-bit PCM (format tag 1)"
            )
        }
        guard bits == 16 else {
            throw EarshotError(
                .unsupportedFormat,
                "\(name): unsupported WAV encoding: \(bits)-bit PCM at byte \(bodyOffset + 14); expected 16-bit PCM")
        }
        guard channels > 0 else {
            throw EarshotError.malformedStream(
                name, at: bodyOffset + 2, "a fmt chunk with 0 channels", expected: "1–8 channels")
        }
        guard channels <= 8 else {
            throw EarshotError(
                .unsupportedFormat, "\(name): \(channels) channels at byte \(bodyOffset + 2); expected 1–8 channels")
        }
        guard AudioFormat.supportedSampleRates.contains(rate) else {
            throw EarshotError(
                .unsupportedFormat,
                "\(name): sample rate \(rate) Hz at byte \(bodyOffset + 4); expected \(AudioFormat.supportedSampleRates.lowerBound)–\(AudioFormat.supportedSampleRates.upperBound) Hz"
            )
        }
        guard blockAlign == 2 * channels else {
            throw EarshotError.malformedStream(
                name, at: bodyOffset + 12,
                "a block alignment of \(blockAlign) bytes for \(channels) channels of 16-bit PCM",
                expected: "\(2 * channels) bytes per sample frame")
        }
        format = try AudioFormat(sampleRate: rate, channelCount: channels, origin: name)
    }

    /// A format tag with its registered name (RFC 2361), for error messages.
    static func describe(_ tag: UInt16) -> String {
        let names: [UInt16: String] = [
            0: "unknown", 2: "Microsoft ADPCM", 3: "IEEE float", 6: "A-law", 7: "µ-law", 0x11: "IMA ADPCM",
            0x31: "GSM 6.10", 0x50: "MPEG", 0x55: "MPEG layer 3", 0xFFFE: "extensible",
        ]
        return names[tag].map { "\(tag) (\($0))" } ?? "\(tag) (0x\(String(tag, radix: 16, uppercase: true)))"
    }
}
