public import EarshotCore

/// Decodes Speex with a length byte before each frame (`audio/x-speex-with-header-byte`), as
/// ``SpeexEncoder`` and the Speech SDK write it.
///
/// Contract (see ``AudioDecoder``):
/// - Input: the byte stream in pieces cut anywhere. The stream has no header, so the band (and so
///   the output format, 16 or 8 kHz mono) is given at creation.
/// - Output: 20 ms of audio per frame (320 or 160 samples), every frame completed by a call in one
///   buffer; media time counts from 0. The decoded audio lags the encoder's input by the codec's
///   delay (223 samples wideband, 80 narrowband); no frame is held back. The perceptual enhancer is
///   off unless asked for: it is tuned for listeners, not recognizers.
/// - Errors (`.invalidInput`, naming the stream and byte offset): a zero length byte, a frame
///   libspeex finds corrupt or that needs more bits than its length gives, and — at `finish` — a
///   length byte that promises more bytes than the stream has left.
public final class SpeexDecoder: AudioDecoder {
    public typealias Input = [UInt8]
    public typealias Output = AudioBuffer

    public let band: SpeexBand
    /// The stream's name in error messages: a file name, or "request body".
    public let name: String
    public var outputFormat: AudioFormat? { band.format }

    private let codec: SpeexFrameDecoder
    /// The frame being collected; its length byte said `frameLength` bytes.
    private var frame = [UInt8](repeating: 0, count: 255)
    private var frameLength = 0
    private var frameFill = 0
    /// Offset of the current frame's length byte, for messages.
    private var frameOffset = 0
    private var offset = 0
    private var output: AudioBuffer
    private var framesDecoded: Int64 = 0

    /// `name` is the stream's name in error messages; `perceptualEnhancement` turns on libspeex's
    /// post-filter (speexdec's default) for audio meant for people.
    public init(band: SpeexBand = .wideband, name: String = "request body", perceptualEnhancement: Bool = false)
        throws
    {
        self.band = band
        self.name = name
        codec = try SpeexFrameDecoder(band: band, perceptualEnhancement: perceptualEnhancement)
        output = AudioBuffer(format: band.format)
        output.samples.reserveCapacity(band.frameSize * 16)
    }

    public func process(_ input: [UInt8], into sink: inout StageOutput<AudioBuffer>) throws {
        output.samples.removeAll(keepingCapacity: true)
        output.startFrame = framesDecoded * Int64(band.frameSize)
        try input.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                if frameLength == 0 {
                    frameOffset = offset + index
                    frameLength = Int(bytes[index])
                    index += 1
                    guard frameLength > 0 else {
                        throw EarshotError.malformedStream(
                            name, at: frameOffset, "length byte is 0", expected: "a frame length of 1–255 bytes")
                    }
                    continue
                }
                let take = min(frameLength - frameFill, bytes.count - index)
                frame.withUnsafeMutableBufferPointer { frame in
                    (frame.baseAddress! + frameFill).update(from: bytes.baseAddress! + index, count: take)
                }
                frameFill += take
                index += take
                if frameFill == frameLength { try decodeFrame() }
            }
        }
        offset += input.count
        if !output.samples.isEmpty { sink.emit(output) }
    }

    public func finish(into sink: inout StageOutput<AudioBuffer>) throws {
        guard frameLength == 0 else {
            throw EarshotError.malformedStream(
                name, at: offset,
                "length byte at byte \(frameOffset) promises \(frameLength) bytes but the stream ends after \(frameFill)",
                expected: "\(frameLength - frameFill) more bytes")
        }
    }

    private func decodeFrame() throws {
        frame.withUnsafeBytes { codec.load(UnsafeRawBufferPointer(rebasing: $0[0..<frameLength])) }
        switch codec.decodeFrame(appendingTo: &output.samples) {
        case .frame:
            framesDecoded += 1
            frameLength = 0
            frameFill = 0
        case .endOfPacket:
            throw EarshotError.malformedStream(
                name, at: frameOffset, "frame of \(frameLength) bytes holds no speech (only a terminator)",
                expected: "a Speex \(band.rawValue) frame")
        case .corrupt:
            throw EarshotError.malformedStream(
                name, at: frameOffset, "libspeex rejects the frame of \(frameLength) bytes as corrupt",
                expected: "a Speex \(band.rawValue) frame")
        case .overflow:
            throw EarshotError.malformedStream(
                name, at: frameOffset, "frame of \(frameLength) bytes is shorter than its Speex mode needs",
                expected: "a complete Speex \(band.rawValue) frame")
        }
    }
}
