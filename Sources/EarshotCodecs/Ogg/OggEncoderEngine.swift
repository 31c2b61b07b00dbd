import EarshotCore

/// How a codec's Ogg mapping counts granule positions.
enum OggGranuleClock {
    /// Ogg Speex, as speexenc writes it: samples at the stream rate minus the encoder's look-ahead,
    /// and the input's length on the last page. A decoder drops the first page's excess over its
    /// granule position plus its own delay, and so plays from the first input sample.
    case speex(encoderLookahead: Int)
    /// Ogg Opus (RFC 7845 §4): samples of decoder output at 48 kHz, pre-skip included; `scale` is
    /// 48 000 / the encoder's rate and `preSkip` the codec delay at that rate.
    case opus(scale: Int, preSkip: Int)

    /// The position once `decodedSamples` samples (codec delay included) can be decoded.
    func granulePosition(decodedSamples: Int64) -> Int64 {
        switch self {
        case .speex(let lookahead): decodedSamples - Int64(lookahead)
        case .opus(let scale, _): decodedSamples * Int64(scale)
        }
    }

    /// The position of the last page, trimming the stream to `inputSamples`.
    func finalGranulePosition(inputSamples: Int64) -> Int64 {
        switch self {
        case .speex: inputSamples
        case .opus(let scale, let preSkip): (inputSamples + Int64(preSkip)) * Int64(scale)
        }
    }
}

/// The Ogg half of an Ogg encoder: frames in, pages out, shared by Ogg Speex and Ogg Opus.
///
/// Writes the header packets each on its own page, then one codec frame per packet. The first audio
/// packet gets a page of its own (so the first bytes leave after one frame, and a decoder can tell
/// the codec delay from that page's granule position); after it a page is closed every
/// `maxPageDuration` of audio so a streaming upload never waits longer than that for bytes.
/// `finish` pads the last frame with silence and goes on encoding silence until the codec's delay
/// is flushed out, all onto one last end-of-stream page whose granule position trims the stream to
/// the input's true length (end trimming, RFC 7845 §4.5). An empty stream still ends on an
/// end-of-stream page, in the style its codec's tools accept (see ``EmptyStream``).
final class OggEncoderEngine {
    /// How a stream with no audio ends.
    enum EmptyStream {
        /// The header pages alone, the last flagged end-of-stream. speexdec needs this: it trims only
        /// to positive granule positions, so it would play a silent packet marked as empty.
        case headersOnly
        /// One silent packet on an end-of-stream page whose granule position trims it to nothing.
        /// ffmpeg needs this for Opus: it refuses a stream with no audio packet at all.
        case trimmedSilentPacket
    }

    let inputFormat: AudioFormat
    private let emptyStream: EmptyStream
    private let codecName: String
    private let codec: any FrameEncoding
    private let clock: OggGranuleClock
    private let headers: [[UInt8]]
    private let writer: OggPageWriter
    private let assembler: FrameAssembler
    private let framesPerPage: Int
    private var packet: EncodedPacket
    private var wroteHeaders = false
    private var origin: Int64?
    private var samplesIn: Int64 = 0
    private var framesEncoded: Int64 = 0
    /// Input samples whose frames are on pages already handed out.
    private var samplesOnPages: Int64 = 0

    init(
        codecName: String, codec: any FrameEncoding, inputFormat: AudioFormat, headers: [[UInt8]],
        clock: OggGranuleClock, emptyStream: EmptyStream, serialNumber: Int32, maxPageDuration: Double = 0.1
    ) {
        // A codec without look-ahead would leave `finish` nothing to mark end-of-stream on.
        precondition(codec.lookahead > 0, "Ogg framing here relies on the codec having look-ahead")
        self.codecName = codecName
        self.codec = codec
        self.inputFormat = inputFormat
        self.headers = headers
        self.clock = clock
        self.emptyStream = emptyStream
        writer = OggPageWriter(serialNumber: serialNumber)
        assembler = FrameAssembler(frameSize: codec.frameSize)
        let frameDuration = Double(codec.frameSize) / Double(inputFormat.sampleRate)
        framesPerPage = max(1, Int((maxPageDuration / frameDuration).rounded(.down)))
        let zero = MediaTime.zero(sampleRate: inputFormat.sampleRate)
        packet = EncodedPacket(bytes: [], start: zero, end: zero)
        packet.bytes.reserveCapacity(4_096)
    }

    func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
        try input.requireFormat(inputFormat, stage: "\(codecName) encoder")
        if origin == nil { origin = input.startFrame }
        // Headers wait for the first audio, so that a stream with none can end on its last header.
        guard !input.isEmpty else { return }
        let before = beginPacket()
        samplesIn += Int64(input.frameCount)
        try assembler.feed(input.samples) { try appendFrame($0, isLast: false) }
        emit(from: before, into: &output)
    }

    func finish(into output: inout StageOutput<EncodedPacket>) throws {
        if origin == nil { origin = 0 }
        if samplesIn == 0 && emptyStream == .headersOnly {
            packet.bytes.removeAll(keepingCapacity: true)
            for (index, header) in headers.enumerated() {
                writer.append(header, granulePosition: 0, endOfStream: index == headers.count - 1)
                writer.flush(into: &packet.bytes)
            }
            emit(from: 0, into: &output)
            return
        }
        let before = beginPacket()
        let frameSize = Int64(codec.frameSize)
        let needed = samplesIn + Int64(codec.lookahead)
        // Every frame from here on goes on the last page: one of them carries audio past the input's
        // end, and only an end-of-stream page may say so (by a granule position below its content).
        repeat {
            let isLast = (framesEncoded + 1) * frameSize >= needed
            try assembler.flushPadded { try appendFrame($0, isLast: isLast, isFinishing: true) }
        } while framesEncoded * frameSize < needed
        emit(from: before, into: &output)
    }

    /// Empties the reused packet (writing the header pages first, once) and returns where its audio starts.
    private func beginPacket() -> Int64 {
        packet.bytes.removeAll(keepingCapacity: true)
        if !wroteHeaders {
            for header in headers {
                writer.append(header, granulePosition: 0)
                writer.flush(into: &packet.bytes)
            }
            wroteHeaders = true
        }
        return samplesOnPages
    }

    private func appendFrame(_ frame: UnsafeBufferPointer<Float>, isLast: Bool, isFinishing: Bool = false) throws {
        let bytes = try codec.encode(frame)
        framesEncoded += 1
        let end = clock.finalGranulePosition(inputSamples: samplesIn)
        let position = clock.granulePosition(decodedSamples: framesEncoded * Int64(codec.frameSize))
        // Past the input's end (only while finishing) positions stop at the end, keeping them monotonic.
        writer.append(bytes, granulePosition: isLast ? end : min(position, end), endOfStream: isLast)
        if isLast || (!isFinishing && (framesEncoded == 1 || writer.packetsSinceFlush >= framesPerPage)) {
            writer.flush(into: &packet.bytes)
            samplesOnPages = framesEncoded * Int64(codec.frameSize)
        }
    }

    /// Stamps the packet with the input time its pages' frames cover (padding excluded) and emits it.
    private func emit(from before: Int64, into output: inout StageOutput<EncodedPacket>) {
        guard !packet.bytes.isEmpty, let origin else { return }
        packet.stamp(
            encoded: before..<samplesOnPages, inputFrames: samplesIn, origin: origin, sampleRate: inputFormat.sampleRate
        )
        output.emit(packet)
    }
}
