import CSoxr
import EarshotCore

/// libsoxr as a ``ResamplerEngine``: one channel of `Float`, the `SOXR_HQ` recipe, one thread.
///
/// libsoxr removes its linear-phase filter's delay itself (its first output sample is the input at
/// time 0) and, told that the input has ended (a null input), flushes what its filter holds.
final class SoxrEngine: ResamplerEngine {
    private let state: soxr_t
    /// Input frames per output frame.
    private let ratio: Double

    init(inputRate: Int, outputRate: Int) throws {
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        var runtime = soxr_runtime_spec(1)
        var error: soxr_error_t?
        let state = soxr_create(Double(inputRate), Double(outputRate), 1, &error, &io, &quality, &runtime)
        guard let state, error == nil else {
            let reason = error.map { String(cString: $0) } ?? "no reason given"
            throw EarshotError(
                .invalidParameter, "resampler: libsoxr refused \(inputRate) → \(outputRate) Hz (\(reason))")
        }
        self.state = state
        ratio = Double(inputRate) / Double(outputRate)
    }

    deinit { soxr_delete(state) }

    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> (
        consumed: Int, produced: Int
    ) {
        var consumed = 0
        var produced = 0
        _ = soxr_process(state, input.baseAddress, input.count, &consumed, output.baseAddress, output.count, &produced)
        return (consumed, produced)
    }

    func drain(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        var produced = 0
        _ = soxr_process(state, nil, 0, nil, output.baseAddress, output.count, &produced)
        return produced
    }

    /// libsoxr reports its delay in output frames; in input frames it is that times the rate ratio.
    var inputLatency: Int { Int((soxr_delay(state) * ratio).rounded()) }
}
