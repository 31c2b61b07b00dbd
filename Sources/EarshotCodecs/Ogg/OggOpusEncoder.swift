import COpus
public import EarshotCore

/// Encodes speech as Ogg Opus (`.opus`, `audio/ogg;codecs=opus`, RFC 7845) with libopus.
///
/// Contract (see ``AudioEncoder``):
/// - Input: mono at the configured rate, 8, 12, 16 (default), 24 or 48 kHz, the rates Opus codes
///   natively; anything else throws `.unsupportedFormat` (resample first).
/// - Stream: an OpusHead page (version 1, one channel, pre-skip = libopus's look-ahead at 48 kHz,
///   the input rate, gain 0, channel mapping family 0), an OpusTags page (vendor string, no tags),
///   then one 20 ms frame per packet, `OPUS_APPLICATION_VOIP`, variable bit rate around
///   ``Configuration/bitrate`` (24 kbit/s by default; 26.6 kbit/s on the wire with the Ogg pages).
///   Granule positions count 48 kHz samples with the pre-skip included; the last page has
///   end-of-stream set and a granule position that trims the padding, so the decoded stream is
///   exactly as long as the input (RFC 7845 §4.5).
/// - Latency: the first frame leaves on its own page, then a page is closed every 100 ms of audio
///   (5 frames); libopus adds 6.5 ms of look-ahead (104 samples at 16 kHz), removed again by the
///   decoder's pre-skip. An empty input gives one silent packet whose granule position (the
///   pre-skip) trims it to nothing, which ffmpeg decodes as empty (it refuses a headers-only file).
public final class OggOpusEncoder: AudioEncoder {
    public typealias Input = AudioBuffer
    public typealias Output = EncodedPacket

    /// Opus encoder settings.
    public struct Configuration: Sendable, Hashable {
        /// Rates libopus encodes natively, in Hz.
        public static let sampleRates = [8_000, 12_000, 16_000, 24_000, 48_000]

        /// Input rate in Hz, one of ``sampleRates``.
        public var sampleRate: Int
        /// Target bit rate of the codec in bit/s, 6 000–128 000; the Ogg pages add ~2.6 kbit/s. On the
        /// LibriVox clips at 16 kHz the recognizer's word error rate was 47.9 % at 12 000, 40.8 % at
        /// 16 000, 42.3 % at 20 000 and 35.2 % at 24 000, against 36.6 % uncompressed (71 words, so
        /// ±1.4 points is one word); the default 24 000 is the top of the usual speech range.
        public var bitrate: Int
        /// libopus complexity, 0–10: CPU spent per frame. 9 is libopus's default.
        public var complexity: Int

        public init(sampleRate: Int = 16_000, bitrate: Int = 24_000, complexity: Int = 9) {
            self.sampleRate = sampleRate
            self.bitrate = bitrate
            self.complexity = complexity
        }

        func validate() throws {
            guard Self.sampleRates.contains(sampleRate) else {
                throw EarshotError(
                    .unsupportedFormat,
                    "Opus sample rate: \(sampleRate) Hz; expected one of \(Self.sampleRates.map(String.init).joined(separator: ", ")) Hz"
                )
            }
            guard (6_000...128_000).contains(bitrate) else {
                throw EarshotError(
                    .invalidParameter, "Opus bitrate: \(bitrate) bit/s is out of range; expected 6000–128000")
            }
            guard (0...10).contains(complexity) else {
                throw EarshotError(.invalidParameter, "Opus complexity: \(complexity) is out of range; expected 0–10")
            }
        }
    }

    public let configuration: Configuration
    public var inputFormat: AudioFormat { engine.inputFormat }
    public var contentType: String { CodecFormat.opus.contentType() }
    /// Samples at 48 kHz a decoder drops from the start (the OpusHead pre-skip field).
    public let preSkip: Int

    private let engine: OggEncoderEngine

    /// `serialNumber` identifies the logical stream; random unless given (give one for identical output).
    public init(configuration: Configuration = Configuration(), serialNumber: Int32 = .random(in: .min ... .max)) throws
    {
        let codec = try OpusFrameEncoder(configuration: configuration)
        let format = try AudioFormat(sampleRate: configuration.sampleRate, channelCount: 1, origin: "Opus sample rate")
        let scale = 48_000 / configuration.sampleRate
        preSkip = codec.lookahead * scale
        self.configuration = configuration
        engine = OggEncoderEngine(
            codecName: "Ogg Opus", codec: codec, inputFormat: format,
            headers: [Self.opusHead(preSkip: preSkip, inputRate: configuration.sampleRate), Self.opusTags()],
            clock: .opus(scale: scale, preSkip: codec.lookahead), emptyStream: .trimmedSilentPacket,
            serialNumber: serialNumber)
    }

    public func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
        try engine.process(input, into: &output)
    }

    public func finish(into output: inout StageOutput<EncodedPacket>) throws {
        try engine.finish(into: &output)
    }

    /// The identification header, RFC 7845 §5.1: 19 bytes for mapping family 0.
    static func opusHead(preSkip: Int, inputRate: Int) -> [UInt8] {
        var bytes = Array("OpusHead".utf8)
        bytes.append(1)  // version
        bytes.append(1)  // channel count
        OggHeaderBytes.append(UInt16(preSkip), to: &bytes)
        OggHeaderBytes.append(UInt32(inputRate), to: &bytes)
        OggHeaderBytes.append(Int16(0), to: &bytes)  // output gain, Q7.8 dB
        bytes.append(0)  // channel mapping family: mono or stereo, no table
        return bytes
    }

    /// The comment header, RFC 7845 §5.2: vendor string and no user comments.
    static func opusTags() -> [UInt8] {
        let vendor = Array("Earshot (\(String(cString: opus_get_version_string())))".utf8)
        var bytes = Array("OpusTags".utf8)
        OggHeaderBytes.append(UInt32(vendor.count), to: &bytes)
        bytes += vendor
        OggHeaderBytes.append(UInt32(0), to: &bytes)
        return bytes
    }
}
