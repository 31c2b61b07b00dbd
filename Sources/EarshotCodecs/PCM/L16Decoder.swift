public import EarshotCore

/// Unpacks raw big-endian signed 16-bit PCM (`audio/L16`) fed in pieces split anywhere.
///
/// Contract (see ``AudioDecoder``):
/// - Input: headerless bytes, so the format (from the content type's `rate` and `channels`) is given at
///   creation. Samples are interleaved; a sample frame split across calls is carried over.
/// - Output: buffers in that format, every complete sample frame of each call; no latency.
/// - `finish` throws if the stream ends inside a sample frame (an odd trailing byte, or for several
///   channels a frame missing some of its channels).
public struct L16Decoder: AudioDecoder, Sendable {
    public typealias Input = [UInt8]
    public typealias Output = AudioBuffer

    /// Names the stream in error messages: a file name or "request body".
    public let name: String
    public let format: AudioFormat
    public var outputFormat: AudioFormat? { format }

    private var unpacker: PCM16Unpacker
    private var output: AudioBuffer
    private var byteCount = 0
    private var framesDecoded: Int64 = 0

    public init(format: AudioFormat, name: String) {
        self.format = format
        self.name = name
        unpacker = PCM16Unpacker(channelCount: format.channelCount, bigEndian: true)
        output = AudioBuffer(format: format)
    }

    public mutating func process(_ input: [UInt8], into sink: inout StageOutput<AudioBuffer>) throws {
        output.samples.removeAll(keepingCapacity: true)
        input.withUnsafeBufferPointer { unpacker.unpack($0, into: &output.samples) }
        byteCount += input.count
        guard !output.isEmpty else { return }
        output.startFrame = framesDecoded
        framesDecoded += Int64(output.frameCount)
        sink.emit(output)
    }

    public mutating func finish(into sink: inout StageOutput<AudioBuffer>) throws {
        let pending = unpacker.pendingByteCount
        guard pending > 0 else { return }
        let at = byteCount - pending
        if pending % 2 == 1 && format.channelCount == 1 {
            throw EarshotError.malformedStream(
                name, at: at, "an odd trailing byte ends the L16 stream",
                expected: "whole 16-bit samples (2 bytes each)")
        }
        throw EarshotError.malformedStream(
            name, at: at,
            "the L16 stream ends inside a sample frame after \(pending) of its \(unpacker.frameByteCount) bytes",
            expected: "whole frames of \(format.channelCount) 16-bit samples")
    }
}
