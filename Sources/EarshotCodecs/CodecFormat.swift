import EarshotCore

/// Every wire format the Speech API accepts, with what a client, the service and the CLI need to know
/// about it: its name on the command line, `Content-Type`, working rate, file extension, and how to
/// recognise it from its first bytes.
public enum CodecFormat: String, CaseIterable, Sendable {
    /// Speex wideband, each frame preceded by a length byte (the SDK's default upload format).
    case speexWideband = "speex-wb"
    /// Speex narrowband, each frame preceded by a length byte.
    case speexNarrowband = "speex-nb"
    /// Speex wideband in Ogg (`.spx`), for files.
    case oggSpeex = "spx"
    /// AMR narrowband in the RFC 4867 file format.
    case amr
    /// 16-bit PCM WAV (streaming, with no length in its header, when sent while recording).
    case wav
    /// Raw big-endian 16-bit PCM.
    case l16
    /// FLAC, streamed.
    case flac
    /// Opus in Ogg.
    case opus

    /// The rate a format works at unless told otherwise (Speex and AMR fix it; PCM and FLAC follow the input).
    public var defaultSampleRate: Int {
        switch self {
        case .speexNarrowband, .amr: 8_000
        default: 16_000
        }
    }

    /// Whether the format can carry rates other than `defaultSampleRate` (chosen with `--rate`).
    public var acceptsOtherRates: Bool {
        switch self {
        case .wav, .l16, .flac: true
        case .opus: true  // 8, 12, 16, 24 or 48 kHz
        default: false
        }
    }

    /// The `Content-Type` of a stream at `sampleRate` with `channelCount` channels.
    public func contentType(sampleRate: Int? = nil, channelCount: Int = 1) -> String {
        let rate = sampleRate ?? defaultSampleRate
        switch self {
        case .speexWideband, .speexNarrowband: return "audio/x-speex-with-header-byte;rate=\(rate)"
        case .oggSpeex: return "audio/ogg;codecs=speex"
        case .amr: return "audio/amr"
        case .wav: return "audio/wav"
        case .l16: return "audio/L16;rate=\(rate)" + (channelCount > 1 ? ";channels=\(channelCount)" : "")
        case .flac: return "audio/flac"
        case .opus: return "audio/ogg;codecs=opus"
        }
    }

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .speexWideband, .speexNarrowband: "speex"
        case .oggSpeex: "spx"
        case .amr: "amr"
        case .wav: "wav"
        case .l16: "l16"
        case .flac: "flac"
        case .opus: "opus"
        }
    }

    /// A human name for `info`.
    public var displayName: String {
        switch self {
        case .speexWideband: "Speex wideband with header byte"
        case .speexNarrowband: "Speex narrowband with header byte"
        case .oggSpeex: "Ogg Speex"
        case .amr: "AMR-NB (RFC 4867 file)"
        case .wav: "WAV"
        case .l16: "L16 (big-endian PCM)"
        case .flac: "FLAC"
        case .opus: "Ogg Opus"
        }
    }

    /// The format a file extension names, if any (`.ogg` is taken as Opus).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "spx": self = .oggSpeex
        case "amr": self = .amr
        case "wav", "wave": self = .wav
        case "l16": self = .l16
        case "flac": self = .flac
        case "opus", "ogg", "oga": self = .opus
        default: return nil
        }
    }

    /// The self-describing format `prefix` (the first bytes of a stream) starts, if any.
    ///
    /// Header-byte Speex and L16 carry no header, so they are never sniffed: they must be named.
    /// Ogg streams are told apart by the identification packet on their first page, which begins
    /// after the 27-byte page header and the segment table.
    public static func sniff(_ prefix: some Collection<UInt8>) -> CodecFormat? {
        let bytes = Array(prefix.prefix(512))
        func starts(with magic: String, at offset: Int = 0) -> Bool {
            let magicBytes = Array(magic.utf8)
            return bytes.count >= offset + magicBytes.count
                && Array(bytes[offset..<offset + magicBytes.count]) == magicBytes
        }
        if starts(with: "#!AMR\n") { return .amr }
        if starts(with: "fLaC") { return .flac }
        if (starts(with: "RIFF") || starts(with: "RF64")) && starts(with: "WAVE", at: 8) { return .wav }
        if starts(with: "OggS"), bytes.count > 27 {
            let packetStart = 27 + Int(bytes[26])
            if starts(with: "OpusHead", at: packetStart) { return .opus }
            if starts(with: "Speex   ", at: packetStart) { return .oggSpeex }
        }
        return nil
    }
}
