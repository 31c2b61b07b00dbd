import COpenCoreAMR
public import EarshotCore

/// Encodes 8 kHz mono speech as AMR-NB in the RFC 4867 §5 file format (`audio/amr`), with
/// opencore-amrnb: the Speech SDK's `ATTSKAudioFormatAMR_NB`, 12.2 kbit/s by default.
///
/// Contract (see ``AudioEncoder``):
/// - Input: 8 kHz mono only (``AudioFormat/narrowband``); anything else throws `.unsupportedFormat`.
/// - Frames: 160 samples (20 ms). The first packet starts with the `#!AMR\n` magic; after it come
///   frames of a TOC byte and the speech bits, 32 bytes each at MR122 (12.8 kbit/s on the wire).
/// - Latency: up to one frame (20 ms) is held until it is complete; `finish` pads it with silence.
///   Decoded audio lags the input by 40 samples (the encoder's 5 ms look-ahead): sample k of the
///   decoder's output matches input sample k − 40. Packets are stamped with the input's media time.
/// - Discontinuous transmission is off by default, so every frame is a speech frame; with it on,
///   silence becomes 6-byte SID and 1-byte NO_DATA frames, still one per 20 ms.
public final class AMREncoder: AudioEncoder {
    public typealias Input = AudioBuffer
    public typealias Output = EncodedPacket

    /// Encoder settings.
    public struct Configuration: Sendable, Hashable {
        /// The codec mode of every frame.
        public var mode: AMRMode
        /// Discontinuous transmission: send comfort-noise frames instead of speech frames in silence.
        public var discontinuousTransmission: Bool

        public init(mode: AMRMode = .mr122, discontinuousTransmission: Bool = false) {
            self.mode = mode
            self.discontinuousTransmission = discontinuousTransmission
        }
    }

    /// Samples per frame: 20 ms at 8 kHz.
    public static let frameSize = AMRFrameType.samplesPerFrame

    public let inputFormat: AudioFormat
    public let configuration: Configuration
    public var contentType: String { CodecFormat.amr.contentType() }

    private let state: UnsafeMutableRawPointer
    /// The frame being filled, carried between calls.
    private var frame = [Int16](repeating: 0, count: AMRFrameType.samplesPerFrame)
    private var frameFill = 0
    private var encodedFrame = [UInt8](repeating: 0, count: AMRFrameType.maxByteCount)
    private var packet: EncodedPacket
    private var wroteMagic = false
    private var origin: Int64?
    private var samplesEncoded: Int64 = 0
    /// Input frames received; packets never end past them.
    private var samplesIn: Int64 = 0

    public init(inputFormat: AudioFormat = .narrowband, configuration: Configuration = Configuration()) throws {
        guard inputFormat == .narrowband else {
            throw EarshotError(
                .unsupportedFormat, "AMR-NB encoder: input is \(inputFormat); expected 8000 Hz mono (resample first)")
        }
        guard let state = Encoder_Interface_init(configuration.discontinuousTransmission ? 1 : 0) else {
            throw EarshotError(.invalidParameter, "AMR-NB encoder: opencore-amrnb could not create an encoder")
        }
        self.state = state
        self.inputFormat = inputFormat
        self.configuration = configuration
        let zero = MediaTime.zero(sampleRate: inputFormat.sampleRate)
        packet = EncodedPacket(bytes: [], start: zero, end: zero)
        packet.bytes.reserveCapacity(4_096)
    }

    deinit { Encoder_Interface_exit(state) }

    public func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
        try input.requireFormat(inputFormat, stage: "AMR-NB encoder")
        if origin == nil { origin = input.startFrame }
        samplesIn += Int64(input.frameCount)
        beginPacket()
        let framesBefore = samplesEncoded
        input.samples.withUnsafeBufferPointer { samples in
            var index = 0
            while index < samples.count {
                let take = min(Self.frameSize - frameFill, samples.count - index)
                frame.withUnsafeMutableBufferPointer { frame in
                    for k in 0..<take { frame[frameFill + k] = PCM.int16(samples[index + k]) }
                }
                frameFill += take
                index += take
                if frameFill == Self.frameSize { encodeFrame() }
            }
        }
        emitPacket(from: framesBefore, into: &output)
    }

    public func finish(into output: inout StageOutput<EncodedPacket>) throws {
        if origin == nil { origin = 0 }
        beginPacket()
        let framesBefore = samplesEncoded
        if frameFill > 0 {
            // Pad with silence so the decoded stream is at most one frame longer than the input.
            for k in frameFill..<Self.frameSize { frame[k] = 0 }
            frameFill = Self.frameSize
            encodeFrame()
        }
        emitPacket(from: framesBefore, into: &output)
    }

    /// Empties the reused packet, starting it with the magic if this is the stream's first packet.
    private func beginPacket() {
        packet.bytes.removeAll(keepingCapacity: true)
        if !wroteMagic {
            packet.bytes.append(contentsOf: AMRFrameType.magic)
            wroteMagic = true
        }
    }

    /// Encodes the full `frame` and appends the TOC byte and speech bits to the packet.
    private func encodeFrame() {
        let mode = Mode(rawValue: Mode.RawValue(configuration.mode.rawValue))
        let written = frame.withUnsafeBufferPointer { speech in
            encodedFrame.withUnsafeMutableBufferPointer { out in
                Int(Encoder_Interface_Encode(state, mode, speech.baseAddress, out.baseAddress, 0))
            }
        }
        // opencore writes the TOC byte itself (FT << 3 | Q), which is the storage format's frame header.
        packet.bytes.append(contentsOf: encodedFrame[0..<max(0, min(written, AMRFrameType.maxByteCount))])
        frameFill = 0
        samplesEncoded += Int64(Self.frameSize)
    }

    private func emitPacket(from framesBefore: Int64, into output: inout StageOutput<EncodedPacket>) {
        guard !packet.bytes.isEmpty, let origin else { return }
        packet.stamp(
            encoded: framesBefore..<samplesEncoded, inputFrames: samplesIn, origin: origin,
            sampleRate: inputFormat.sampleRate)
        output.emit(packet)
    }
}
