import CSpeex
import EarshotCore

/// libspeex's decoder for frames of one band.
///
/// The perceptual enhancer (libspeex's and speexdec's default) is a post-filter tuned for listeners.
/// Earshot decodes for a recognizer and leaves it off by default: on the LibriVox clips the decoded
/// spectrum is slightly closer to the original without it at every quality tried (log-spectral
/// distance 9.42 against 9.49 dB at quality 4), and word error rates show no difference beyond the
/// corpus's one-word noise.
final class SpeexFrameDecoder {
    /// What one `speex_decode` call said.
    enum Outcome {
        /// A frame was decoded and appended.
        case frame
        /// No frame: the bits left hold only a terminator or padding.
        case endOfPacket
        /// libspeex found an impossible mode in the bits.
        case corrupt
        /// The frame needed more bits than its packet holds.
        case overflow
    }

    let band: SpeexBand
    private let state: UnsafeMutableRawPointer
    private let bits: UnsafeMutablePointer<SpeexBits>
    /// libspeex's float output (on the 16-bit scale), zeroed before every frame: see `decodeFrame`.
    private let pcm: UnsafeMutableBufferPointer<Float>

    /// Samples of delay the decoder adds (`SPEEX_GET_LOOKAHEAD` on a decoder).
    let lookahead: Int

    /// The decoder delay of `band`, asked of a throwaway decoder.
    static func lookahead(of band: SpeexBand) -> Int {
        guard let state = speex_decoder_init(band.mode) else { return 0 }
        defer { speex_decoder_destroy(state) }
        var lookahead: Int32 = 0
        speex_decoder_ctl(state, SPEEX_GET_LOOKAHEAD, &lookahead)
        return Int(lookahead)
    }

    init(band: SpeexBand, perceptualEnhancement: Bool = false) throws {
        self.band = band
        guard let state = speex_decoder_init(band.mode) else {
            throw EarshotError(.invalidParameter, "Speex decoder: libspeex could not create a \(band.rawValue) decoder")
        }
        self.state = state
        var enhancement: Int32 = perceptualEnhancement ? 1 : 0
        speex_decoder_ctl(state, SPEEX_SET_ENH, &enhancement)
        var lookahead: Int32 = 0
        speex_decoder_ctl(state, SPEEX_GET_LOOKAHEAD, &lookahead)
        self.lookahead = Int(lookahead)
        bits = .allocate(capacity: 1)
        bits.initialize(to: SpeexBits())
        speex_bits_init(bits)
        pcm = .allocate(capacity: band.frameSize)
        pcm.initialize(repeating: 0)
    }

    deinit {
        speex_decoder_destroy(state)
        speex_bits_destroy(bits)
        bits.deallocate()
        pcm.deallocate()
    }

    /// Loads the bytes of one packet (one or more frames) for ``decodeFrame(appendingTo:)``.
    func load(_ packet: UnsafeRawBufferPointer) {
        guard let base = packet.baseAddress else {
            speex_bits_reset(bits)
            return
        }
        speex_bits_read_from(bits, base.assumingMemoryBound(to: CChar.self), Int32(packet.count))
    }

    /// Decodes the next frame of the loaded packet, appending its samples to `samples` on success.
    ///
    /// libspeex's `speex_decode_int` decodes into a float buffer on its own stack and converts it; on
    /// some corrupt wideband frames the decoder leaves part of that buffer unwritten, so the samples
    /// came from whatever the stack held and differed from run to run (fuzz finding 6: valgrind reports
    /// the uninitialised stack allocation in `speex_decode_int`). Decoding with `speex_decode` into our
    /// own buffer, zeroed first, makes such frames silent where libspeex wrote nothing; for every frame
    /// libspeex writes whole, the samples are those `speex_decode_int` gives (rounded to 16 bits,
    /// saturated).
    func decodeFrame(appendingTo samples: inout [Float]) -> Outcome {
        pcm.update(repeating: 0)
        let status = speex_decode(state, bits, pcm.baseAddress)
        if status == -1 { return .endOfPacket }
        if status != 0 { return .corrupt }
        if speex_bits_remaining(bits) < 0 { return .overflow }
        for index in 0..<band.frameSize {
            let value = pcm[index]
            let sample: Int16 =
                value.isNaN ? 0 : value > 32767 ? .max : value < -32768 ? .min : Int16((0.5 + value).rounded(.down))
            samples.append(PCM.float(sample))
        }
        return .frame
    }
}
