import EarshotCore

/// A frame-based speech codec's encoder, one fixed-size frame at a time (libspeex, libopus).
protocol FrameEncoding: AnyObject {
    /// Samples per frame at the input rate.
    var frameSize: Int { get }
    /// Samples of delay the codec adds between its input and its decoder's output, at the input rate.
    var lookahead: Int { get }
    /// Encodes `frameSize` samples; the bytes are valid until the next call.
    func encode(_ frame: UnsafeBufferPointer<Float>) throws -> UnsafeRawBufferPointer
}

/// Cuts buffers of any length into the fixed frames a codec encodes, carrying the remainder between
/// calls in storage allocated once.
final class FrameAssembler {
    let frameSize: Int
    private let frame: UnsafeMutableBufferPointer<Float>
    /// Samples waiting in the current, incomplete frame.
    private(set) var fill = 0

    init(frameSize: Int) {
        self.frameSize = frameSize
        frame = .allocate(capacity: frameSize)
        frame.initialize(repeating: 0)
    }

    deinit { frame.deallocate() }

    /// Adds `samples`, calling `body` with each frame they complete, in order.
    func feed(_ samples: [Float], _ body: (UnsafeBufferPointer<Float>) throws -> Void) rethrows {
        try samples.withUnsafeBufferPointer { source in
            var index = 0
            while index < source.count {
                let take = min(frameSize - fill, source.count - index)
                (frame.baseAddress! + fill).update(from: source.baseAddress! + index, count: take)
                fill += take
                index += take
                if fill == frameSize {
                    fill = 0
                    try body(UnsafeBufferPointer(frame))
                }
            }
        }
    }

    /// Completes the pending frame with silence and hands it to `body`; a frame of pure silence when
    /// nothing is pending (codecs need those to flush their look-ahead).
    func flushPadded(_ body: (UnsafeBufferPointer<Float>) throws -> Void) rethrows {
        (frame.baseAddress! + fill).update(repeating: 0, count: frameSize - fill)
        fill = 0
        try body(UnsafeBufferPointer(frame))
    }
}
