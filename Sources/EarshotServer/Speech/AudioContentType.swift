public import EarshotCodecs
import EarshotCore
public import EarshotIO
import Foundation

/// The audio a request's `Content-Type` announces (section 3.2.1 and the Earshot additions):
/// the wire format and, for headerless formats, the rate and channel count; or a media container
/// (MP3, MP4/M4A, WebM, ADTS AAC: Earshot additions), which is decoded whole once the body has
/// arrived (``MediaSpoolDecoder``).
public struct AudioContentType: Sendable, Hashable {
    /// The wire format decoded as it arrives; nil for a `container`.
    public var format: CodecFormat?
    /// The container decoded once the body has arrived; nil for a wire `format`.
    public var container: MediaContainer?
    /// The rate the header states (`rate=`); nil where the stream states or fixes its own.
    public var sampleRate: Int?
    public var channelCount: Int

    public init(format: CodecFormat, sampleRate: Int? = nil, channelCount: Int = 1) {
        self.format = format
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    public init(container: MediaContainer) {
        self.container = container
        channelCount = 1
    }

    /// The forms accepted, for error messages.
    public static let accepted =
        "audio/x-speex-with-header-byte;rate=16000 (or 8000), audio/amr, audio/wav, audio/L16;rate=…, "
        + "audio/flac, audio/ogg;codecs=opus, audio/mpeg, audio/mp4, audio/webm, audio/aac"

    /// The format's or container's human name.
    public var displayName: String { format?.displayName ?? container?.displayName ?? "audio" }

    /// Parses a `Content-Type` value. Media types and parameter names are case-insensitive (RFC 9110).
    /// Throws a 400 naming what was expected when the type is unknown or a parameter is missing or
    /// out of range.
    public init(header: String) throws(ServiceError) {
        let parsed = MediaType(header: header)
        let mediaType = parsed.type
        let parameters = parsed.parameters
        func rate(required: Bool, default fallback: Int? = nil) throws(ServiceError) -> Int? {
            guard let text = parameters["rate"] else {
                if required {
                    throw .badRequest(
                        "Content-Type \(header) lacks the rate parameter; expected e.g. \(mediaType);rate=16000",
                        variables: "Content-Type")
                }
                return fallback
            }
            guard let value = Int(text), (8_000...192_000).contains(value) else {
                throw .badRequest(
                    "Content-Type \(header): rate=\(text) is not a sample rate from 8000 to 192000 Hz",
                    variables: "Content-Type")
            }
            return value
        }
        switch mediaType {
        case "audio/x-speex-with-header-byte":
            switch try rate(required: false, default: 16_000) {
            case 16_000: self.init(format: .speexWideband)
            case 8_000: self.init(format: .speexNarrowband)
            default:
                throw .badRequest(
                    "Content-Type \(header): Speex with header byte is sent at rate=16000 or rate=8000",
                    variables: "Content-Type")
            }
        case "audio/amr": self.init(format: .amr)
        case "audio/wav", "audio/wave", "audio/x-wav": self.init(format: .wav)
        case "audio/l16":
            let channels = Int(parameters["channels"] ?? "1") ?? 0
            guard (1...8).contains(channels) else {
                throw .badRequest(
                    "Content-Type \(header): channels must be 1 to 8", variables: "Content-Type")
            }
            self.init(format: .l16, sampleRate: try rate(required: true), channelCount: channels)
        case "audio/flac", "audio/x-flac": self.init(format: .flac)
        // Containers decoded once the whole body has arrived (their index may come last).
        case "audio/mpeg", "audio/mp3", "audio/mpga": self.init(container: .mp3)
        case "audio/mp4", "audio/m4a", "audio/x-m4a", "video/mp4": self.init(container: .mp4)
        case "audio/webm", "video/webm", "audio/x-matroska", "video/x-matroska": self.init(container: .matroska)
        case "audio/aac", "audio/x-aac", "audio/aacp": self.init(container: .adts)
        case "audio/ogg", "audio/opus":
            let codec = parameters["codecs"]?.lowercased() ?? (mediaType == "audio/opus" ? "opus" : "")
            switch codec {
            case "opus": self.init(format: .opus)
            case "speex": self.init(format: .oggSpeex)
            case "vorbis": self.init(container: .ogg)
            default:
                throw .badRequest(
                    "Content-Type \(header) does not name its codec; expected audio/ogg;codecs=opus",
                    variables: "Content-Type")
            }
        default:
            throw .badRequest(
                "Content-Type \(header.isEmpty ? "(none)" : header) is not an audio type this service decodes; "
                    + "expected one of \(Self.accepted)",
                variables: "Content-Type")
        }
    }

    /// A decoder for the body. Opus decodes straight to 16 kHz, the recognizer's rate. A container's
    /// decoder stops past `maxAudioDuration` seconds (the caller refuses the audio there).
    func makeDecoder(maxAudioDuration: Double) throws -> any AudioDecoder {
        guard let format else {
            let container = container ?? .mp4
            return try MediaSpoolDecoder(
                container: container, name: "request body (\(container.displayName))", maxDuration: maxAudioDuration)
        }
        let name = "request body (\(format.contentType(sampleRate: sampleRate, channelCount: channelCount)))"
        if format == .opus { return try format.makeDecoder(name: name, sampleRate: 16_000) }
        return try format.makeDecoder(name: name, sampleRate: sampleRate, channelCount: channelCount)
    }
}
