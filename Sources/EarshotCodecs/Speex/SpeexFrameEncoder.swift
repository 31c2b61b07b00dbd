import CSpeex
import EarshotCore

/// libspeex's encoder, one 20 ms frame per call, each frame's bits written out on their own (one
/// frame per `speex_bits_reset`), which both the header-byte and the Ogg framing need.
final class SpeexFrameEncoder: FrameEncoding {
    /// Most bytes one frame can take: wideband quality 10 is 106; the speex bit buffer holds 2000.
    static let maxFrameBytes = 255

    let band: SpeexBand
    let frameSize: Int
    /// The encoder's own look-ahead (143 samples wideband, 40 narrowband): what speexenc subtracts
    /// from granule positions.
    let encoderLookahead: Int
    /// Delay from encoder input to decoder output: the encoder's look-ahead plus the decoder's
    /// (80 wideband, from its QMF synthesis; 40 narrowband), 223 and 80 samples in all.
    let lookahead: Int
    private let state: UnsafeMutableRawPointer
    private let bits: UnsafeMutablePointer<SpeexBits>
    private let pcm: UnsafeMutableBufferPointer<Int16>
    private let encoded: UnsafeMutableBufferPointer<UInt8>

    init(configuration: SpeexEncoder.Configuration) throws {
        try configuration.validate()
        band = configuration.band
        frameSize = band.frameSize
        guard let state = speex_encoder_init(band.mode) else {
            throw EarshotError(.invalidParameter, "Speex encoder: libspeex could not create a \(band.rawValue) encoder")
        }
        self.state = state
        var quality = Int32(configuration.quality)
        var complexity = Int32(configuration.complexity)
        speex_encoder_ctl(state, SPEEX_SET_QUALITY, &quality)
        speex_encoder_ctl(state, SPEEX_SET_COMPLEXITY, &complexity)
        if configuration.vbr {
            // VBR takes its own (float) quality; SET_QUALITY above still picks the starting sub-mode.
            var on: Int32 = 1
            var vbrQuality = Float(configuration.quality)
            speex_encoder_ctl(state, SPEEX_SET_VBR, &on)
            speex_encoder_ctl(state, SPEEX_SET_VBR_QUALITY, &vbrQuality)
        }
        var lookahead: Int32 = 0
        speex_encoder_ctl(state, SPEEX_GET_LOOKAHEAD, &lookahead)
        encoderLookahead = Int(lookahead)
        self.lookahead = Int(lookahead) + SpeexFrameDecoder.lookahead(of: band)
        bits = .allocate(capacity: 1)
        bits.initialize(to: SpeexBits())
        speex_bits_init(bits)
        pcm = .allocate(capacity: frameSize)
        pcm.initialize(repeating: 0)
        encoded = .allocate(capacity: Self.maxFrameBytes)
        encoded.initialize(repeating: 0)
    }

    deinit {
        speex_encoder_destroy(state)
        speex_bits_destroy(bits)
        bits.deallocate()
        pcm.deallocate()
        encoded.deallocate()
    }

    func encode(_ frame: UnsafeBufferPointer<Float>) throws -> UnsafeRawBufferPointer {
        precondition(frame.count == frameSize)
        // The integer entry point rounds and saturates exactly as speexenc feeds 16-bit WAV input.
        for index in 0..<frameSize { pcm[index] = PCM.int16(frame[index]) }
        speex_bits_reset(bits)
        speex_encode_int(state, pcm.baseAddress, bits)
        let needed = Int(speex_bits_nbytes(bits))
        guard needed <= Self.maxFrameBytes else {
            throw EarshotError(
                .invalidParameter,
                "Speex encoder: a frame needs \(needed) bytes; the header-byte framing holds at most \(Self.maxFrameBytes)"
            )
        }
        // speex_bits_write pads the last byte with a terminator, so each frame decodes on its own.
        let count = encoded.withMemoryRebound(to: CChar.self) {
            Int(speex_bits_write(bits, $0.baseAddress, Int32(Self.maxFrameBytes)))
        }
        return UnsafeRawBufferPointer(start: encoded.baseAddress, count: count)
    }
}
