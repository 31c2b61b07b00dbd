import COpenCoreAMR
public import EarshotCore

/// Decodes an AMR-NB file (RFC 4867 §5, `audio/amr`) fed in pieces split anywhere, to 8 kHz mono.
///
/// Contract (see ``AudioDecoder``):
/// - Input: the `#!AMR\n` magic, then frames whose size the TOC byte gives: frame types 0–7 (the eight
///   modes, 13–32 bytes), 8 (SID, 6 bytes) and 15 (NO_DATA, 1 byte). Types 9–14 (other codecs' SID
///   frames, reserved) throw at their byte offset, as does a wrong magic (at byte 0). The TOC's
///   padding and quality bits are passed to opencore as they are (a Q bit of 0 marks a damaged frame,
///   which the codec conceals).
/// - Output: ``AudioFormat/narrowband``, 160 samples per frame, every complete frame of each call in
///   one buffer, media time counting decoded samples from 0. Latency: a frame is decoded as soon as
///   its last byte arrives; the speech in it lags the encoder's input by 40 samples (5 ms look-ahead).
/// - `finish` throws if the stream ends inside the magic or inside a frame.
public final class AMRDecoder: AudioDecoder {
    public typealias Input = [UInt8]
    public typealias Output = AudioBuffer

    /// Names the stream in error messages: a file name or "request body".
    public let name: String
    public var outputFormat: AudioFormat? { .narrowband }

    private let state: UnsafeMutableRawPointer
    /// Bytes of the stream consumed so far.
    private var offset = 0
    private var magicMatched = 0
    /// The frame being gathered, TOC byte first; `frameSize` is 0 between frames.
    private var frame = [UInt8](repeating: 0, count: AMRFrameType.maxByteCount)
    private var frameFill = 0
    private var frameSize = 0
    private var frameStart = 0
    private var pcm = [Int16](repeating: 0, count: AMRFrameType.samplesPerFrame)
    private var output = AudioBuffer(format: .narrowband)
    private var framesDecoded: Int64 = 0

    public init(name: String) throws {
        guard let state = Decoder_Interface_init() else {
            throw EarshotError(.invalidParameter, "\(name): opencore-amrnb could not create an AMR-NB decoder")
        }
        self.state = state
        self.name = name
        output.samples.reserveCapacity(8_000)
    }

    deinit { Decoder_Interface_exit(state) }

    public func process(_ input: [UInt8], into sink: inout StageOutput<AudioBuffer>) throws {
        output.samples.removeAll(keepingCapacity: true)
        try input.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                if magicMatched < AMRFrameType.magic.count {
                    try matchMagic(bytes[index])
                    index += 1
                    offset += 1
                    continue
                }
                if frameSize == 0 { try beginFrame(toc: bytes[index]) }
                let take = min(frameSize - frameFill, bytes.count - index)
                for k in 0..<take { frame[frameFill + k] = bytes[index + k] }
                frameFill += take
                index += take
                offset += take
                if frameFill == frameSize { decodeFrame() }
            }
        }
        guard !output.isEmpty else { return }
        output.startFrame = framesDecoded
        framesDecoded += Int64(output.frameCount)
        sink.emit(output)
    }

    public func finish(into sink: inout StageOutput<AudioBuffer>) throws {
        if magicMatched < AMRFrameType.magic.count {
            throw EarshotError.malformedStream(
                name, at: offset, "the stream ends inside the AMR header", expected: "the 6-byte magic \"#!AMR\\n\"")
        }
        if frameSize > 0 {
            let type = AMRFrameType.type(ofTOC: frame[0])
            throw EarshotError.malformedStream(
                name, at: frameStart,
                "the stream ends inside a frame of type \(type) after \(frameFill) of its \(frameSize) bytes",
                expected: "\(frameSize - frameFill) more bytes (a truncated AMR file)")
        }
    }

    /// Checks the next byte of the magic; a wrong one fails at byte 0, where the file's type is decided.
    private func matchMagic(_ byte: UInt8) throws {
        guard byte == AMRFrameType.magic[magicMatched] else {
            let problem: String
            if magicMatched == 5 && byte == UInt8(ascii: "-") {
                problem = "this is an AMR-WB file (\"#!AMR-WB\\n\"), not AMR-NB"
            } else if magicMatched == 5 && byte == UInt8(ascii: "_") {
                problem = "this is a multichannel AMR-NB file (\"#!AMR_MC1.0\\n\"), which is not supported"
            } else {
                problem = "not an AMR-NB file: byte \(offset) is 0x\(String(byte, radix: 16, uppercase: true))"
            }
            throw EarshotError.malformedStream(name, at: 0, problem, expected: "the magic \"#!AMR\\n\"")
        }
        magicMatched += 1
    }

    /// Reads a frame's size from its TOC byte, rejecting frame types an AMR-NB file cannot hold.
    private func beginFrame(toc: UInt8) throws {
        let type = AMRFrameType.type(ofTOC: toc)
        guard let size = AMRFrameType.byteCount(ofType: type) else {
            throw EarshotError.malformedStream(
                name, at: offset,
                "invalid AMR-NB frame type \(AMRFrameType.describe(type)) in TOC byte 0x\(String(toc, radix: 16, uppercase: true))",
                expected: "a frame type of 0–7 (speech), 8 (SID) or 15 (no data)")
        }
        frameSize = size
        frameFill = 0
        frameStart = offset
    }

    /// Decodes the gathered frame (TOC byte first, as opencore expects) and appends its 160 samples.
    private func decodeFrame() {
        frame.withUnsafeBufferPointer { encoded in
            pcm.withUnsafeMutableBufferPointer { decoded in
                Decoder_Interface_Decode(state, encoded.baseAddress, decoded.baseAddress, 0)
            }
        }
        let base = output.samples.count
        output.samples.append(contentsOf: repeatElement(0, count: AMRFrameType.samplesPerFrame))
        output.samples.withUnsafeMutableBufferPointer { samples in
            pcm.withUnsafeBufferPointer { decoded in
                for k in 0..<decoded.count { samples[base + k] = PCM.float(decoded[k]) }
            }
        }
        frameSize = 0
        frameFill = 0
    }
}
