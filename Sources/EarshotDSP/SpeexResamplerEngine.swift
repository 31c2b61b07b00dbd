import CSpeexDSP
import EarshotCore

/// speexdsp's windowed-sinc resampler as a ``ResamplerEngine``, at quality 0–10.
///
/// Its filter delay (`speex_resampler_get_input_latency`, e.g. 24 input frames at quality 4 for
/// 48 → 16 kHz) is removed with `speex_resampler_skip_zeros`; at the end of input, zeros are pushed
/// through to flush what the filter holds.
final class SpeexResamplerEngine: ResamplerEngine {
    private let state: OpaquePointer
    private var zeros: [Float]

    init(inputRate: Int, outputRate: Int, quality: Int) throws {
        var status: Int32 = 0
        guard
            let state = speex_resampler_init(
                1, spx_uint32_t(inputRate), spx_uint32_t(outputRate), Int32(quality), &status)
        else {
            throw EarshotError(
                .invalidParameter,
                "resampler: speexdsp refused \(inputRate) → \(outputRate) Hz (\(String(cString: speex_resampler_strerror(status))))"
            )
        }
        speex_resampler_skip_zeros(state)
        self.state = state
        zeros = [Float](repeating: 0, count: Int(speex_resampler_get_input_latency(state)) + 1)
    }

    deinit { speex_resampler_destroy(state) }

    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> (
        consumed: Int, produced: Int
    ) {
        var consumed = 0
        var produced = 0
        while consumed < input.count && produced < output.count {
            var inLength = spx_uint32_t(input.count - consumed)
            var outLength = spx_uint32_t(output.count - produced)
            speex_resampler_process_float(
                state, 0, input.baseAddress! + consumed, &inLength, output.baseAddress! + produced, &outLength)
            consumed += Int(inLength)
            produced += Int(outLength)
            if inLength == 0 && outLength == 0 { break }
        }
        return (consumed, produced)
    }

    /// Pushes one filter length of zeros through; ``Resampler`` stops once the output is long enough.
    func drain(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        zeros.withUnsafeBufferPointer { process($0, into: output).produced }
    }

    var inputLatency: Int { Int(speex_resampler_get_input_latency(state)) }
}
