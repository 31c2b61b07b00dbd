import CFLAC
public import EarshotCore

/// Encodes audio as a native FLAC stream (`audio/flac`), 16 bits per sample, with libFLAC, written
/// front to back so it can be uploaded while it is produced.
///
/// Contract (see ``AudioEncoder``):
/// - Input: any rate Earshot supports up to 655 350 Hz, 1–8 channels, fixed at creation; samples are
///   quantised to 16 bits as ``PCM/int16(_:)`` does, so 16-bit input comes back bit-exact.
/// - Output: `fLaC` and the metadata blocks (STREAMINFO, and the VORBIS_COMMENT libFLAC adds) at the
///   front of the first packet, then whole frames. No seek or tell callback is given to libFLAC, so
///   it never goes back: the stream's STREAMINFO says a total length of 0 ("unknown") and no MD5,
///   which is valid. After `finish`, ``finalizedHeader()`` gives `fLaC` and STREAMINFO with the
///   true length, for a seekable output to write over its start (so `soxi -D` and players know it).
/// - Frames: `blockSize` samples (libFLAC's default, 4096 at levels 3–8, is 256 ms at 16 kHz and
///   512 ms at 8 kHz: that is the latency a live upload sees; set a smaller block for less). `finish`
///   encodes the last, shorter block as it is, so decoded length equals input length exactly.
public final class FLACEncoder: AudioEncoder {
    public typealias Input = AudioBuffer
    public typealias Output = EncodedPacket

    /// Encoder settings.
    public struct Configuration: Sendable, Hashable {
        /// libFLAC's compression level, 0 (fastest) to 8 (smallest); 5 is its default.
        public var compressionLevel: Int
        /// Samples per frame, 16–65 535 (4 608 at most at 48 kHz and below, for the streamable
        /// subset), or `nil` for the level's default.
        public var blockSize: Int?

        public init(compressionLevel: Int = 5, blockSize: Int? = nil) {
            self.compressionLevel = compressionLevel
            self.blockSize = blockSize
        }
    }

    public let inputFormat: AudioFormat
    public let configuration: Configuration
    public var contentType: String { CodecFormat.flac.contentType() }

    /// Where libFLAC's write callback puts bytes. A separate object, so that libFLAC finishing an
    /// abandoned encoder from `deinit` writes into something still alive.
    private final class Sink {
        var packet: EncodedPacket
        /// Samples per channel written out as frames.
        var samplesWritten: Int64 = 0
        init(packet: EncodedPacket) { self.packet = packet }
    }

    private let encoder: UnsafeMutablePointer<FLAC__StreamEncoder>
    private let sink: Sink
    /// Interleaved 16-bit values widened to the Int32 libFLAC takes, reused between calls.
    private var integers: [FLAC__int32] = []
    private var origin: Int64 = 0
    private var sawInput = false
    /// Whether the metadata libFLAC wrote during init has gone out (it starts the first packet).
    private var sentHeader = false
    /// `fLaC` and the STREAMINFO block as libFLAC wrote them at init (42 bytes).
    private var streamInfo: [UInt8] = []
    private var finished = false

    public init(inputFormat: AudioFormat, configuration: Configuration = Configuration()) throws {
        guard (0...8).contains(configuration.compressionLevel) else {
            throw EarshotError(
                .invalidParameter, "FLAC compression level: \(configuration.compressionLevel); expected 0–8")
        }
        if let blockSize = configuration.blockSize, !(16...65_535).contains(blockSize) {
            throw EarshotError(.invalidParameter, "FLAC block size: \(blockSize) samples; expected 16–65535")
        }
        guard inputFormat.channelCount <= 8, inputFormat.sampleRate <= 655_350 else {
            throw EarshotError(
                .unsupportedFormat, "FLAC encoder: \(inputFormat); expected 1–8 channels at up to 655350 Hz")
        }
        guard let encoder = FLAC__stream_encoder_new() else {
            throw EarshotError(.invalidParameter, "FLAC encoder: libFLAC could not create an encoder")
        }
        self.encoder = encoder
        self.inputFormat = inputFormat
        self.configuration = configuration
        let zero = MediaTime.zero(sampleRate: inputFormat.sampleRate)
        sink = Sink(packet: EncodedPacket(bytes: [], start: zero, end: zero))
        FLAC__stream_encoder_set_channels(encoder, UInt32(inputFormat.channelCount))
        FLAC__stream_encoder_set_bits_per_sample(encoder, 16)
        FLAC__stream_encoder_set_sample_rate(encoder, UInt32(inputFormat.sampleRate))
        FLAC__stream_encoder_set_compression_level(encoder, UInt32(configuration.compressionLevel))
        if let blockSize = configuration.blockSize { FLAC__stream_encoder_set_blocksize(encoder, UInt32(blockSize)) }
        // libFLAC writes the metadata during init, through the callback, into the sink's packet.
        let status = FLAC__stream_encoder_init_stream(
            encoder,
            { _, bytes, count, samples, _, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                sink.packet.bytes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
                sink.samplesWritten += Int64(samples)
                return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
            },
            nil, nil, nil, Unmanaged.passUnretained(sink).toOpaque())
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else {
            let reason = String(cString: FLAC__stream_encoder_get_resolved_state_string(encoder))
            FLAC__stream_encoder_delete(encoder)
            throw EarshotError(
                .unsupportedFormat, "FLAC encoder: libFLAC refused \(inputFormat) with \(configuration) (\(reason))")
        }
        streamInfo = Array(sink.packet.bytes.prefix(Self.streamInfoEnd))
    }

    /// Where STREAMINFO ends: `fLaC` (4), the block header (4), its 34 bytes.
    private static let streamInfoEnd = 42

    /// `fLaC` and STREAMINFO with the total number of samples written (a 36-bit field that follows the
    /// sample rate, channels and bits per sample; RFC 9639 section 8.2); nil before `finish`, or if
    /// the length does not fit.
    public func finalizedHeader() -> [UInt8]? {
        guard finished, streamInfo.count == Self.streamInfoEnd, streamInfo.starts(with: Array("fLaC".utf8)),
            sink.samplesWritten < 1 << 36
        else { return nil }
        var header = streamInfo
        let total = UInt64(sink.samplesWritten)
        header[21] = (header[21] & 0xF0) | UInt8((total >> 32) & 0x0F)
        for index in 0..<4 { header[22 + index] = UInt8(truncatingIfNeeded: total >> (8 * UInt64(3 - index))) }
        return header
    }

    deinit { FLAC__stream_encoder_delete(encoder) }

    public func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
        try input.requireFormat(inputFormat, stage: "FLAC encoder")
        if !sawInput {
            origin = input.startFrame
            sawInput = true
        }
        let before = beginPacket()
        if !input.isEmpty {
            let count = input.samples.count
            if integers.count < count { integers.append(contentsOf: repeatElement(0, count: count - integers.count)) }
            input.samples.withUnsafeBufferPointer { samples in
                integers.withUnsafeMutableBufferPointer { values in
                    for i in 0..<count { values[i] = FLAC__int32(PCM.int16(samples[i])) }
                }
            }
            let ok = integers.withUnsafeBufferPointer {
                FLAC__stream_encoder_process_interleaved(encoder, $0.baseAddress, UInt32(input.frameCount))
            }
            guard ok != 0 else { throw libFLACError() }
        }
        emitPacket(from: before, into: &output)
    }

    public func finish(into output: inout StageOutput<EncodedPacket>) throws {
        guard !finished else { return }
        finished = true
        let before = beginPacket()
        guard FLAC__stream_encoder_finish(encoder) != 0 else { throw libFLACError() }
        emitPacket(from: before, into: &output)
    }

    /// Empties the reused packet unless it still holds the unsent metadata; returns the samples
    /// written before this call.
    private func beginPacket() -> Int64 {
        if sentHeader { sink.packet.bytes.removeAll(keepingCapacity: true) }
        return sink.samplesWritten
    }

    private func emitPacket(from before: Int64, into output: inout StageOutput<EncodedPacket>) {
        guard !sink.packet.bytes.isEmpty else { return }
        // FLAC encodes the exact length, so every encoded frame is input.
        sink.packet.stamp(
            encoded: before..<sink.samplesWritten, inputFrames: sink.samplesWritten, origin: origin,
            sampleRate: inputFormat.sampleRate)
        output.emit(sink.packet)
        sentHeader = true
    }

    private func libFLACError() -> EarshotError {
        let reason = String(cString: FLAC__stream_encoder_get_resolved_state_string(encoder))
        return EarshotError(.writeFailed, "FLAC encoder: libFLAC failed (\(reason))")
    }
}
