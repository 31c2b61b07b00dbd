import EarshotCore

extension CodecFormat {
    /// Settings several codecs share, as the CLI and the client expose them; `nil` keeps the codec's default.
    public struct EncoderOptions: Sendable, Hashable {
        /// Speex quality 0–10, or FLAC compression level 0–8.
        public var quality: Int?
        /// Target bit rate in bit/s: the AMR-NB mode with the highest rate not above it, or Opus's bit rate.
        public var bitrate: Int?
        /// Speex variable bit rate (as the SDK sends); false for constant.
        public var variableBitRate: Bool

        public init(quality: Int? = nil, bitrate: Int? = nil, variableBitRate: Bool = true) {
            self.quality = quality
            self.bitrate = bitrate
            self.variableBitRate = variableBitRate
        }
    }

    /// An encoder for this format, taking mono audio at `sampleRate` (the format's default if nil).
    public func makeEncoder(sampleRate: Int? = nil, options: EncoderOptions = EncoderOptions()) throws
        -> any AudioEncoder
    {
        let rate = sampleRate ?? defaultSampleRate
        guard rate == defaultSampleRate || acceptsOtherRates else {
            throw EarshotError(
                .invalidParameter, "sample rate: \(rawValue) works at \(defaultSampleRate) Hz only, not \(rate) Hz")
        }
        let format = try AudioFormat(sampleRate: rate, channelCount: 1, origin: "\(rawValue) sample rate")
        switch self {
        case .speexWideband, .speexNarrowband, .oggSpeex:
            let band: SpeexBand = self == .speexNarrowband ? .narrowband : .wideband
            let configuration = SpeexEncoder.Configuration(
                band: band, quality: options.quality, vbr: options.variableBitRate)
            return self == .oggSpeex
                ? try OggSpeexEncoder(configuration: configuration) : try SpeexEncoder(configuration: configuration)
        case .amr:
            return try AMREncoder(inputFormat: format, configuration: .init(mode: try amrMode(for: options.bitrate)))
        case .wav:
            return try WAVEncoder(inputFormat: format)
        case .l16:
            return L16Encoder(inputFormat: format)
        case .flac:
            return try FLACEncoder(inputFormat: format, configuration: .init(compressionLevel: options.quality ?? 5))
        case .opus:
            var configuration = OggOpusEncoder.Configuration(sampleRate: rate)
            if let bitrate = options.bitrate { configuration.bitrate = bitrate }
            return try OggOpusEncoder(configuration: configuration)
        }
    }

    /// A decoder for this format. `name` appears in its error messages; `sampleRate` and `channelCount`
    /// describe headerless L16 (other formats state them in their own headers or fix them).
    public func makeDecoder(name: String, sampleRate: Int? = nil, channelCount: Int = 1) throws -> any AudioDecoder {
        switch self {
        case .speexWideband: return try SpeexDecoder(band: .wideband, name: name)
        case .speexNarrowband: return try SpeexDecoder(band: .narrowband, name: name)
        case .oggSpeex: return OggSpeexDecoder(name: name)
        case .amr: return try AMRDecoder(name: name)
        case .wav: return WAVDecoder(name: name)
        case .l16:
            let format = try AudioFormat(
                sampleRate: sampleRate ?? defaultSampleRate, channelCount: channelCount, origin: name)
            return L16Decoder(format: format, name: name)
        case .flac: return try FLACDecoder(name: name)
        case .opus: return try OggOpusDecoder(sampleRate: sampleRate ?? defaultSampleRate, name: name)
        }
    }

    /// The AMR-NB mode for a requested bit rate: the fastest mode not above it (MR122 by default).
    private func amrMode(for bitrate: Int?) throws -> AMRMode {
        guard let bitrate else { return .mr122 }
        guard let mode = AMRMode.allCases.last(where: { $0.bitRate <= bitrate }) else {
            throw EarshotError(
                .invalidParameter, "bitrate: \(bitrate) bit/s is below AMR-NB's lowest mode (4750 bit/s)")
        }
        return mode
    }
}
