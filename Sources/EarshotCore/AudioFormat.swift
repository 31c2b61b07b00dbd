/// The shape of PCM audio inside Earshot: sample rate and channel count.
///
/// Samples are always 32-bit float, interleaved, nominally in [-1, 1] (full scale); conversion to and
/// from integer PCM happens only at the edges (file readers and writers, the recognizer).
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Sample rates Earshot accepts anywhere in the pipeline, in Hz.
    public static let supportedSampleRates: ClosedRange<Int> = 1_000...384_000
    /// Channel counts Earshot accepts from a source.
    public static let supportedChannelCounts: ClosedRange<Int> = 1...64

    /// 16 kHz mono, the working format of wideband speech recognition.
    public static let wideband = AudioFormat(validSampleRate: 16_000, channelCount: 1)
    /// 8 kHz mono, the working format of narrowband (telephone) speech.
    public static let narrowband = AudioFormat(validSampleRate: 8_000, channelCount: 1)

    public let sampleRate: Int
    public let channelCount: Int

    /// Validates the rate and channel count; `origin` names the file or field in the error.
    public init(sampleRate: Int, channelCount: Int, origin: String = "audio format") throws {
        guard Self.supportedSampleRates.contains(sampleRate) else {
            throw EarshotError(
                .unsupportedFormat,
                "\(origin): unsupported sample rate \(sampleRate) Hz; expected \(Self.supportedSampleRates.lowerBound)–\(Self.supportedSampleRates.upperBound) Hz"
            )
        }
        guard Self.supportedChannelCounts.contains(channelCount) else {
            throw EarshotError(
                .unsupportedFormat,
                "\(origin): unsupported channel count \(channelCount); expected \(Self.supportedChannelCounts.lowerBound)–\(Self.supportedChannelCounts.upperBound)"
            )
        }
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    private init(validSampleRate: Int, channelCount: Int) {
        self.sampleRate = validSampleRate
        self.channelCount = channelCount
    }

    public var description: String {
        let channels = channelCount == 1 ? "mono" : channelCount == 2 ? "stereo" : "\(channelCount) channels"
        return "\(sampleRate) Hz \(channels)"
    }
}
