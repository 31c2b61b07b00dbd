public import EarshotCore

/// Packs audio as raw big-endian signed 16-bit PCM (`audio/L16`, RFC 2586 / RFC 3551 §4.5.11), with no
/// header: the rate and channel count travel in the content type, e.g. `audio/L16;rate=16000`.
///
/// Contract (see ``AudioEncoder``):
/// - Input: any rate Earshot supports and any channel count, fixed at creation; samples are
///   interleaved as they come.
/// - Frames: one sample frame, so every input is packed whole in the call that brings it: no latency,
///   and `finish` has nothing to pad. An empty stream is zero bytes, a valid empty L16 body.
public struct L16Encoder: AudioEncoder, Sendable {
    public typealias Input = AudioBuffer
    public typealias Output = EncodedPacket

    public let inputFormat: AudioFormat
    /// `audio/L16;rate=<rate>`, with `;channels=<n>` when there is more than one channel.
    public let contentType: String

    private var packet: EncodedPacket
    private var origin: Int64?
    private var framesEncoded: Int64 = 0

    public init(inputFormat: AudioFormat) {
        self.inputFormat = inputFormat
        contentType = CodecFormat.l16.contentType(
            sampleRate: inputFormat.sampleRate, channelCount: inputFormat.channelCount)
        let zero = MediaTime.zero(sampleRate: inputFormat.sampleRate)
        packet = EncodedPacket(bytes: [], start: zero, end: zero)
    }

    public mutating func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
        try input.requireFormat(inputFormat, stage: "L16 encoder")
        let origin = self.origin ?? input.startFrame
        self.origin = origin
        guard !input.isEmpty else { return }
        packet.bytes.removeAll(keepingCapacity: true)
        input.samples.withUnsafeBufferPointer { PCM16Bytes.append($0, bigEndian: true, to: &packet.bytes) }
        packet.start = MediaTime(frame: origin + framesEncoded, sampleRate: inputFormat.sampleRate)
        framesEncoded += Int64(input.frameCount)
        packet.end = MediaTime(frame: origin + framesEncoded, sampleRate: inputFormat.sampleRate)
        output.emit(packet)
    }

    public mutating func finish(into output: inout StageOutput<EncodedPacket>) throws {}
}
