import CSpeex
public import EarshotCore

/// Encodes speech as Ogg Speex (`.spx`, `audio/ogg;codecs=speex`), the file form speexenc writes and
/// speexdec reads.
///
/// Contract (see ``AudioEncoder``):
/// - Input: exactly the band's format, 16 kHz mono (wideband) or 8 kHz mono (narrowband).
/// - Stream: a Speex header page (`speex_init_header`: mode, rate, frame size, VBR flag, one frame
///   per packet), a comment page (vendor string, no comments), then one 20 ms frame per packet with
///   granule positions in samples, speexenc's convention (the codec's look-ahead subtracted). The
///   last page has end-of-stream set and a granule position equal to the input's length.
/// - Latency: the first frame leaves on its own page, then a page is closed every 100 ms of audio
///   (5 frames), so bytes leave at most ~100 ms after the audio they hold. The pages cost ~30 bytes
///   each, about 2.5 kbit/s on top of the codec's rate. `finish` encodes silence past the end until
///   the codec's delay (223 samples wideband, 80 narrowband) is flushed, so the decoded file is
///   exactly as long as the input. An empty input gives the two header pages, the second flagged
///   end-of-stream (speexdec plays a trimmed silent packet otherwise).
public final class OggSpeexEncoder: AudioEncoder {
    public typealias Input = AudioBuffer
    public typealias Output = EncodedPacket

    public let configuration: SpeexEncoder.Configuration
    public var inputFormat: AudioFormat { engine.inputFormat }
    public var contentType: String { CodecFormat.oggSpeex.contentType() }

    private let engine: OggEncoderEngine

    /// `serialNumber` identifies the logical stream; random unless given (give one for identical output).
    public init(
        configuration: SpeexEncoder.Configuration = SpeexEncoder.Configuration(),
        serialNumber: Int32 = .random(in: .min ... .max)
    ) throws {
        let codec = try SpeexFrameEncoder(configuration: configuration)
        self.configuration = configuration
        engine = OggEncoderEngine(
            codecName: "Ogg Speex", codec: codec, inputFormat: configuration.band.format,
            headers: [try Self.identificationHeader(configuration), Self.commentHeader()],
            clock: .speex(encoderLookahead: codec.encoderLookahead), emptyStream: .headersOnly,
            serialNumber: serialNumber)
    }

    public func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
        try engine.process(input, into: &output)
    }

    public func finish(into output: inout StageOutput<EncodedPacket>) throws {
        try engine.finish(into: &output)
    }

    /// The 80-byte Speex header, built and serialised by libspeex itself.
    static func identificationHeader(_ configuration: SpeexEncoder.Configuration) throws -> [UInt8] {
        let band = configuration.band
        var header = SpeexHeader()
        speex_init_header(&header, Int32(band.format.sampleRate), 1, band.mode)
        header.vbr = configuration.vbr ? 1 : 0
        header.frames_per_packet = 1
        var size: Int32 = 0
        guard let packet = speex_header_to_packet(&header, &size), size > 0 else {
            throw EarshotError(.invalidParameter, "Ogg Speex encoder: libspeex could not build the stream header")
        }
        defer { speex_header_free(packet) }
        return Array(UnsafeRawBufferPointer(start: packet, count: Int(size)))
    }

    /// The comment header: little-endian vendor length, vendor string, comment count 0 (the Speex
    /// manual's layout, Vorbis comments without the framing bit).
    static func commentHeader() -> [UInt8] {
        var version: UnsafePointer<CChar>? = nil
        speex_lib_ctl(SPEEX_LIB_GET_VERSION_STRING, &version)
        let vendor = Array("Earshot (Speex \(version.map { String(cString: $0) } ?? "unknown"))".utf8)
        var bytes: [UInt8] = []
        OggHeaderBytes.append(UInt32(vendor.count), to: &bytes)
        bytes += vendor
        OggHeaderBytes.append(UInt32(0), to: &bytes)
        return bytes
    }
}
