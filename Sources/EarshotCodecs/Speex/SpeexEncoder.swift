public import EarshotCore

/// Encodes speech as Speex with a length byte before each frame
/// (`audio/x-speex-with-header-byte;rate=16000`, or `rate=8000`): the Speech SDK's upload format.
///
/// Contract (see ``AudioEncoder``):
/// - Input: exactly the band's format, 16 kHz mono (wideband) or 8 kHz mono (narrowband); anything
///   else throws `.unsupportedFormat`.
/// - Frames: 20 ms (320 samples wideband, 160 narrowband). Each becomes one byte holding its length
///   and then that many bytes of Speex bits, written on their own so every frame decodes alone.
///   There is no stream header: the receiver must be told the band (the content type's `rate`).
/// - Bit rate: wideband VBR at the default quality 4 averages 13.6 kbit/s on read speech, length
///   bytes included: the seed's "averaging 14 kbit/sec" (see ``Configuration/quality``).
/// - Latency: up to one frame is held until complete. The codec delays the decoded audio by 223
///   samples (14 ms) wideband, 80 (10 ms) narrowband — encoder plus decoder look-ahead — which a
///   headerless stream cannot signal. `finish` pads the last frame with silence, so the decoded
///   stream is at most one frame longer than the input; an empty input gives an empty stream.
public final class SpeexEncoder: AudioEncoder {
    public typealias Input = AudioBuffer
    public typealias Output = EncodedPacket

    /// Speex encoder settings, shared with ``OggSpeexEncoder``.
    public struct Configuration: Sendable, Hashable {
        /// Wideband (16 kHz) or narrowband (8 kHz).
        public var band: SpeexBand
        /// libspeex quality, 0–10. With VBR it is the VBR quality: on the LibriVox clips wideband
        /// averages 10.2 kbit/s at 2, 13.6 at 4, 19.6 at 6, 24.4 at 8 and 36.8 at 10, length bytes
        /// included (see the Speex tests). The default spends the seed's ~14 kbit/s in either band:
        /// 4 wideband (13.6 kbit/s), 6 narrowband (13.6 kbit/s; 10.6 at 4, 16.8 at 8).
        public var quality: Int
        /// libspeex encoder complexity, 1–10: CPU spent searching the codebooks. Default 3, speexenc's.
        /// 2 (libspeex's own default) encodes wideband q4 VBR 18 % faster (24.4 against 29.9 ms per 10 s)
        /// at the same bit rate, but recognition after it was not shown to be as good: the embedded
        /// recognizer's WER on the LibriVox clips went from 0.366 to 0.465 (71 words), while on the
        /// 10-minute long-corpus recording long-001 it was 0.382 against 0.384 (1 138 words).
        public var complexity: Int
        /// Variable bit rate: fewer bits for silence and steady sounds, as the Speech SDK sends.
        public var vbr: Bool

        /// `quality` defaults to the band's ~14 kbit/s setting (4 wideband, 6 narrowband).
        public init(band: SpeexBand = .wideband, quality: Int? = nil, complexity: Int = 3, vbr: Bool = true) {
            self.band = band
            self.quality = quality ?? (band == .wideband ? 4 : 6)
            self.complexity = complexity
            self.vbr = vbr
        }

        func validate() throws {
            guard (0...10).contains(quality) else {
                throw EarshotError(.invalidParameter, "Speex quality: \(quality) is out of range; expected 0–10")
            }
            guard (1...10).contains(complexity) else {
                throw EarshotError(.invalidParameter, "Speex complexity: \(complexity) is out of range; expected 1–10")
            }
        }
    }

    public let configuration: Configuration
    public var inputFormat: AudioFormat { configuration.band.format }
    public var contentType: String {
        (configuration.band == .wideband ? CodecFormat.speexWideband : .speexNarrowband).contentType()
    }

    private let codec: SpeexFrameEncoder
    private let assembler: FrameAssembler
    private var packet: EncodedPacket
    private var origin: Int64?
    private var samplesIn: Int64 = 0
    private var samplesEncoded: Int64 = 0

    public init(configuration: Configuration = Configuration()) throws {
        codec = try SpeexFrameEncoder(configuration: configuration)
        self.configuration = configuration
        assembler = FrameAssembler(frameSize: codec.frameSize)
        let zero = MediaTime.zero(sampleRate: configuration.band.format.sampleRate)
        packet = EncodedPacket(bytes: [], start: zero, end: zero)
        packet.bytes.reserveCapacity(4_096)
    }

    public func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
        try input.requireFormat(inputFormat, stage: "Speex \(configuration.band.rawValue) encoder")
        if origin == nil { origin = input.startFrame }
        packet.bytes.removeAll(keepingCapacity: true)
        let before = samplesEncoded
        try assembler.feed(input.samples) { try append($0) }
        samplesIn += Int64(input.frameCount)
        emit(from: before, into: &output)
    }

    public func finish(into output: inout StageOutput<EncodedPacket>) throws {
        packet.bytes.removeAll(keepingCapacity: true)
        let before = samplesEncoded
        if assembler.fill > 0 { try assembler.flushPadded { try append($0) } }
        emit(from: before, into: &output)
    }

    private func append(_ frame: UnsafeBufferPointer<Float>) throws {
        let bytes = try codec.encode(frame)
        packet.bytes.append(UInt8(bytes.count))
        packet.bytes.append(contentsOf: bytes)
        samplesEncoded += Int64(codec.frameSize)
    }

    /// Stamps the packet with the input time its frames cover (padding excluded) and emits it.
    private func emit(from before: Int64, into output: inout StageOutput<EncodedPacket>) {
        guard !packet.bytes.isEmpty, let origin else { return }
        packet.stamp(
            encoded: before..<samplesEncoded, inputFrames: samplesIn, origin: origin, sampleRate: inputFormat.sampleRate
        )
        output.emit(packet)
    }
}
