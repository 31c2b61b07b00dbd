/// The library behind ``Resampler``: a streaming rate converter for one channel of `Float` samples.
///
/// An engine owns C state, so it is a class used by one task at a time (the stage that owns it).
/// Both engines take any rate pair and compensate their own filter delay, so output frame *k* is the
/// input at time *k* / rate; ``Resampler`` cuts the flushed tail to the length the input implies.
protocol ResamplerEngine: AnyObject {
    /// Converts as much of `input` as fits in `output`; returns the frames consumed and produced.
    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> (
        consumed: Int, produced: Int
    )

    /// The input has ended: writes the samples still held in the filter into `output` and returns
    /// how many (0 once nothing is left).
    func drain(into output: UnsafeMutableBufferPointer<Float>) -> Int

    /// Frames of input held back in the filter at this moment.
    var inputLatency: Int { get }
}

extension Resampler {
    /// Which library converts the rate.
    public enum Engine: String, Sendable, Hashable, CaseIterable {
        /// libsoxr at its high-quality recipe (`SOXR_HQ`: 20-bit precision, linear phase, passband to
        /// 91.3 % of the lower Nyquist frequency, ≤ 0.01 dB roll-off): sox's `rate` effect, faster and
        /// cleaner than speexdsp. The default.
        case soxr
        /// speexdsp's windowed-sinc resampler at ``Configuration/quality`` (0–10).
        case speexdsp
    }
}
