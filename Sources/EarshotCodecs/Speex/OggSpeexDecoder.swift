import CSpeex
public import EarshotCore

/// Decodes Ogg Speex (`.spx`, `audio/ogg;codecs=speex`), from ``OggSpeexEncoder`` or speexenc.
///
/// Contract (see ``AudioDecoder``):
/// - Input: the file's bytes in pieces cut anywhere. The first page must be an Ogg page
///   beginning a stream whose first packet is a Speex header; its fields are checked before
///   libspeex sees them: narrowband or wideband mode (ultra-wideband and stereo throw
///   `.unsupportedFormat`), a rate of 6–48 kHz, the mode's frame size, 1–10 frames per packet.
/// - Output: mono at the header's rate (``outputFormat`` is `nil` until the header is read), media
///   time from 0. Audio leaves as soon as its Ogg page is complete. As speexdec does, when the first
///   audio page decodes to more than its granule position, that excess (the encoder's look-ahead)
///   and the decoder's own delay are dropped, and the last page is trimmed to its granule position:
///   a file from ``OggSpeexEncoder`` decodes to exactly the input's length, aligned with it. The
///   perceptual enhancer is off unless asked for (see ``SpeexDecoder``).
/// - Errors: see ``OggPacketReader`` for the Ogg layer (bad capture pattern, checksum, missing page,
///   truncation, no end-of-stream page); a frame libspeex rejects throws naming its packet's offset.
public final class OggSpeexDecoder: AudioDecoder {
    public typealias Input = [UInt8]
    public typealias Output = AudioBuffer

    private let engine: OggDecoderEngine<SpeexOggPackets>

    /// `name` is the stream's name in error messages: a file name, or "request body".
    /// `perceptualEnhancement` turns on libspeex's post-filter (speexdec's default) for listeners.
    public init(name: String = "request body", perceptualEnhancement: Bool = false) {
        engine = OggDecoderEngine(
            codec: SpeexOggPackets(name: name, perceptualEnhancement: perceptualEnhancement), name: name)
    }

    public var name: String { engine.name }
    public var outputFormat: AudioFormat? { engine.codec.outputFormat }
    /// The stream's band, once its header is read.
    public var band: SpeexBand? { engine.codec.decoder?.band }

    public func process(_ input: [UInt8], into output: inout StageOutput<AudioBuffer>) throws {
        try engine.process(input, into: &output)
    }

    public func finish(into output: inout StageOutput<AudioBuffer>) throws {
        try engine.finish()
    }
}

/// The Speex side of Ogg Speex decoding: the 80-byte header, comments, extra headers, then packets
/// of `framesPerPacket` frames.
final class SpeexOggPackets: OggPacketDecoding {
    /// Packets larger than libspeex's own bit buffer (2000 bytes) are no Speex encoder's output.
    static let maxPacketBytes = 2_000

    let name: String
    private(set) var decoder: SpeexFrameDecoder?
    private(set) var outputFormat: AudioFormat?
    private var framesPerPacket = 1
    private var extraHeaders = 0

    private let perceptualEnhancement: Bool

    init(name: String, perceptualEnhancement: Bool) {
        self.name = name
        self.perceptualEnhancement = perceptualEnhancement
    }

    /// speexdec's rule: when the first page decodes to more than its granule position, the excess
    /// is the encoder's look-ahead, and the decoder's own delay is dropped with it.
    func samplesToSkip(firstAudioPageExcess excess: Int?) -> Int {
        guard let excess, excess > 0, let decoder else { return 0 }
        return excess + decoder.lookahead
    }

    func outputSamples(atGranulePosition granulePosition: Int64) -> Int64 { granulePosition }

    func readHeader(_ packet: OggPacketReader.Packet, index: Int) throws -> Bool {
        switch index {
        case 0:
            try readIdentification(packet)
            return true
        case 1:
            // Vorbis-style comments: only the layout is checked, the text is not needed.
            let bytes = packet.bytes
            let vendorLength = bytes.count >= 4 ? Int(OggHeaderBytes.read(UInt32.self, in: bytes, at: 0)) : Int.max
            guard vendorLength <= bytes.count - 4 else {
                throw EarshotError.malformedStream(
                    name, at: packet.offset, "Speex comment header's vendor string runs past its \(bytes.count) bytes",
                    expected: "a Speex comment header")
            }
            return extraHeaders > 0
        default:
            return index - 1 < extraHeaders
        }
    }

    func decode(_ packet: OggPacketReader.Packet, appendingTo samples: inout [Float]) throws {
        guard let decoder else { return }
        guard packet.bytes.count <= Self.maxPacketBytes else {
            throw EarshotError.malformedStream(
                name, at: packet.offset, "Speex packet of \(packet.bytes.count) bytes",
                expected: "at most \(Self.maxPacketBytes) bytes (\(framesPerPacket) frames)")
        }
        decoder.load(packet.bytes)
        for _ in 0..<framesPerPacket {
            switch decoder.decodeFrame(appendingTo: &samples) {
            case .frame: continue
            case .endOfPacket: return  // speexenc fills a short last packet with terminators
            case .corrupt:
                throw EarshotError.malformedStream(
                    name, at: packet.offset, "libspeex rejects a frame of this packet as corrupt",
                    expected: "Speex \(decoder.band.rawValue) frames")
            case .overflow:
                throw EarshotError.malformedStream(
                    name, at: packet.offset, "a frame runs past the end of its \(packet.bytes.count)-byte packet",
                    expected: "\(framesPerPacket) complete Speex frames")
            }
        }
    }

    /// Checks the header's fields at their fixed offsets, then has libspeex parse it too.
    private func readIdentification(_ packet: OggPacketReader.Packet) throws {
        let bytes = packet.bytes
        func field(_ offset: Int) -> Int { Int(OggHeaderBytes.read(Int32.self, in: bytes, at: offset)) }
        func malformed(_ problem: String, _ expected: String) -> EarshotError {
            EarshotError.malformedStream(name, at: packet.offset, problem, expected: expected)
        }
        guard OggHeaderBytes.starts(bytes, with: "Speex   ") else {
            throw malformed(
                "first packet starts \(OggHeaderBytes.quoted(bytes, count: 8))", "a Speex header (\"Speex   \")")
        }
        guard bytes.count >= 80 else { throw malformed("Speex header is \(bytes.count) bytes", "80 bytes") }
        let (rate, modeID, channels) = (field(36), field(40), field(48))
        let (frameSize, frames, extra) = (field(56), field(64), field(68))
        guard let band = SpeexBand(modeID: Int32(truncatingIfNeeded: modeID)) else {
            if modeID == Int(SPEEX_MODEID_UWB) {
                throw EarshotError(.unsupportedFormat, "\(name): Speex ultra-wideband (32 kHz) is not supported")
            }
            throw malformed("Speex header names mode \(modeID)", "0 (narrowband) or 1 (wideband)")
        }
        guard field(44) == Int(band.mode.pointee.bitstream_version) else {
            throw EarshotError(
                .unsupportedFormat,
                "\(name): Speex bitstream version \(field(44)); libspeex decodes \(band.mode.pointee.bitstream_version)"
            )
        }
        guard (6_000...48_000).contains(rate) else {
            throw malformed("Speex header rate \(rate) Hz", "6000–48000 Hz")
        }
        guard channels == 1 else {
            if channels == 2 { throw EarshotError(.unsupportedFormat, "\(name): stereo Speex is not supported") }
            throw malformed("Speex header has \(channels) channels", "1")
        }
        guard frameSize == band.frameSize else {
            throw malformed("Speex header frame size \(frameSize)", "\(band.frameSize) for \(band.rawValue)")
        }
        guard (0...10).contains(frames) else { throw malformed("\(frames) frames per packet", "1–10") }
        guard (0...16).contains(extra) else { throw malformed("\(extra) extra headers", "0–16") }
        // libspeex's own parser, now that nothing in the header can mislead it.
        let parsed = speex_packet_to_header(
            UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: CChar.self)), Int32(bytes.count))
        guard let parsed else { throw malformed("libspeex rejects the Speex header", "a Speex header") }
        defer { speex_header_free(parsed) }
        guard parsed.pointee.mode == modeID, parsed.pointee.rate == rate else {
            throw malformed("libspeex reads the Speex header differently", "a Speex header")
        }
        decoder = try SpeexFrameDecoder(band: band, perceptualEnhancement: perceptualEnhancement)
        outputFormat = try AudioFormat(sampleRate: rate, channelCount: 1, origin: name)
        framesPerPacket = max(1, frames)
        extraHeaders = extra
    }
}
