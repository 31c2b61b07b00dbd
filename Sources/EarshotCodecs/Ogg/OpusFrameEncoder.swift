import COpus
import EarshotCore

/// libopus's encoder in its speech setting (`OPUS_APPLICATION_VOIP`, voice signal), mono, one 20 ms
/// frame per packet.
final class OpusFrameEncoder: FrameEncoding {
    /// Largest Opus packet for one frame (RFC 6716 §3.2.1: 1275 bytes of frame data plus the TOC).
    static let maxPacketBytes = 1_276

    let frameSize: Int
    let lookahead: Int
    private let state: OpaquePointer
    private let packet: UnsafeMutableBufferPointer<UInt8>

    init(configuration: OggOpusEncoder.Configuration) throws {
        try configuration.validate()

        var error: Int32 = 0
        guard
            let state = opus_encoder_create(Int32(configuration.sampleRate), 1, OPUS_APPLICATION_VOIP, &error),
            error == OPUS_OK
        else {
            throw EarshotError(
                .invalidParameter,
                "Opus encoder: libopus refused \(configuration.sampleRate) Hz mono (\(String(cString: opus_strerror(error))))"
            )
        }
        self.state = state
        frameSize = configuration.sampleRate / 50
        packet = .allocate(capacity: Self.maxPacketBytes)
        packet.initialize(repeating: 0)
        let settings: [(String, Int32, Int32)] = [
            ("bitrate", OPUS_SET_BITRATE_REQUEST, Int32(configuration.bitrate)),
            ("complexity", OPUS_SET_COMPLEXITY_REQUEST, Int32(configuration.complexity)),
            ("signal", OPUS_SET_SIGNAL_REQUEST, OPUS_SIGNAL_VOICE),
        ]
        for (field, request, value) in settings where OpusControl.set(state, request, value) != OPUS_OK {
            opus_encoder_destroy(state)
            packet.deallocate()
            throw EarshotError(.invalidParameter, "Opus \(field): libopus refused \(value)")
        }
        guard let lookahead = OpusControl.get(state, OPUS_GET_LOOKAHEAD_REQUEST), lookahead > 0 else {
            opus_encoder_destroy(state)
            packet.deallocate()
            throw EarshotError(.invalidParameter, "Opus encoder: libopus did not report its look-ahead")
        }
        self.lookahead = Int(lookahead)
    }

    deinit {
        opus_encoder_destroy(state)
        packet.deallocate()
    }

    func encode(_ frame: UnsafeBufferPointer<Float>) throws -> UnsafeRawBufferPointer {
        precondition(frame.count == frameSize)
        let count = opus_encode_float(
            state, frame.baseAddress!, Int32(frameSize), packet.baseAddress!, Int32(Self.maxPacketBytes))
        guard count > 0 else {
            throw EarshotError(.invalidInput, "Opus encoder: libopus failed (\(String(cString: opus_strerror(count))))")
        }
        return UnsafeRawBufferPointer(start: packet.baseAddress, count: Int(count))
    }
}
