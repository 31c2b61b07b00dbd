public import EarshotCore

/// Runs a ``VoiceActivityDetector`` over a stream: frames mono audio at the detector's rate and emits
/// one ``VADFrame`` per hop.
///
/// Contract:
/// - Input: mono buffers at the detector's `sampleRate`, in stream order and contiguous; anything else
///   throws `.unsupportedFormat` naming the stage.
/// - Output: frame *i* decides samples `[origin + i·hop, origin + (i+1)·hop)`, where `origin` is the
///   `startFrame` of the first buffer, and is stamped with that exact media time. Frames follow the
///   framing convention of ``VoiceActivityDetector`` (zeros before the start of the stream).
/// - Latency: a frame is emitted once the audio up to `lookAhead` samples past its slice has arrived,
///   so the output trails the input by up to `hopLength + lookAhead − 1` samples.
/// - `finish` zero-pads the stream and decides what is left, so the frames tile the whole stream: the
///   last frame's `frameCount` is the length of the final (possibly partial) hop.
/// - Buffer boundaries do not change the result: the same audio in any blocking gives the same frames.
/// - Nothing is allocated per buffer once the caller's output has grown to its steady size.
///
/// The stage is a final class and not `Sendable`: detectors may own C state (FFTW, speexdsp).
public final class VADStage: AudioStage {
    public typealias Input = AudioBuffer
    public typealias Output = VADFrame

    /// The detector the stage drives.
    public private(set) var detector: any VoiceActivityDetector
    /// The format the stage accepts: mono at the detector's rate.
    public let format: AudioFormat

    private let frameLength: Int
    private let hopLength: Int
    private let lookAhead: Int
    /// The analysis window: the newest `frameLength` samples, oldest first.
    private let window: UnsafeMutablePointer<Float>
    /// Where the next sample goes in `window`; negative while samples before frame 0's window arrive.
    private var writeIndex: Int
    private var origin: Int64?
    /// Samples received so far.
    private var receivedCount: Int64 = 0
    /// Frames emitted so far.
    private var emittedCount: Int64 = 0

    /// Creates a stage around `detector`; throws `.unsupportedFormat` if its rate is not one Earshot
    /// supports, or `.invalidParameter` if its frame geometry is inconsistent.
    public init(detector: any VoiceActivityDetector) throws {
        format = try AudioFormat(sampleRate: detector.sampleRate, channelCount: 1, origin: "VAD \(detector.name)")
        guard detector.hopLength > 0, detector.frameLength >= detector.hopLength, detector.lookAhead >= 0 else {
            throw EarshotError(
                .invalidParameter,
                "VAD \(detector.name): frameLength \(detector.frameLength), hopLength \(detector.hopLength), "
                    + "lookAhead \(detector.lookAhead); expected hopLength > 0, frameLength ≥ hopLength, lookAhead ≥ 0"
            )
        }
        self.detector = detector
        frameLength = detector.frameLength
        hopLength = detector.hopLength
        lookAhead = detector.lookAhead
        window = .allocate(capacity: frameLength)
        window.initialize(repeating: 0, count: frameLength)
        writeIndex = frameLength - hopLength - lookAhead
    }

    deinit {
        window.deallocate()
    }

    public func process(_ input: AudioBuffer, into output: inout StageOutput<VADFrame>) throws {
        try input.requireFormat(format, stage: "VAD \(detector.name)")
        if origin == nil { origin = input.startFrame }
        input.samples.withUnsafeBufferPointer { samples in
            append(samples, into: &output)
        }
    }

    /// Zero-pads the stream until every received sample has been decided, then emits those frames.
    public func finish(into output: inout StageOutput<VADFrame>) throws {
        let hop = Int64(hopLength)
        let needed = (receivedCount + hop - 1) / hop
        let zeros = UnsafeMutablePointer<Float>.allocate(capacity: hopLength)
        defer { zeros.deallocate() }
        zeros.initialize(repeating: 0, count: hopLength)
        while emittedCount < needed {
            append(UnsafeBufferPointer(start: zeros, count: hopLength), into: &output, counting: false)
        }
    }

    /// Forgets the stream and the detector's adaptation, ready for a new stream.
    public func reset() {
        detector.reset()
        window.update(repeating: 0, count: frameLength)
        writeIndex = frameLength - hopLength - lookAhead
        origin = nil
        receivedCount = 0
        emittedCount = 0
    }

    /// Copies `samples` into the window, deciding a frame each time it fills. Padding (`counting: false`)
    /// stops as soon as the last frame covering received audio is out.
    private func append(
        _ samples: UnsafeBufferPointer<Float>, into output: inout StageOutput<VADFrame>, counting: Bool = true
    ) {
        guard let base = samples.baseAddress else { return }
        if counting { receivedCount += Int64(samples.count) }
        let hop = Int64(hopLength)
        let needed = (receivedCount + hop - 1) / hop
        var consumed = 0
        while consumed < samples.count {
            if !counting && emittedCount >= needed { return }
            let remaining = samples.count - consumed
            if writeIndex < 0 {
                // Samples older than frame 0's window (frameLength < hop + lookAhead) are never seen.
                let skipped = min(-writeIndex, remaining)
                writeIndex += skipped
                consumed += skipped
                continue
            }
            let copied = min(frameLength - writeIndex, remaining)
            (window + writeIndex).update(from: base + consumed, count: copied)
            writeIndex += copied
            consumed += copied
            if writeIndex == frameLength { decide(into: &output) }
        }
    }

    /// Runs the detector on the full window, emits the frame, and slides the window by one hop.
    private func decide(into output: inout StageOutput<VADFrame>) {
        let probability = detector.probability(of: UnsafeBufferPointer(start: window, count: frameLength))
        let first = emittedCount * Int64(hopLength)
        // Only the final frame, decided at `finish`, can cover fewer received samples than a hop.
        let decided = Int(min(Int64(hopLength), receivedCount - first))
        output.emit(
            VADFrame(
                start: MediaTime(frame: (origin ?? 0) + first, sampleRate: format.sampleRate),
                frameCount: decided, probability: probability))
        emittedCount += 1
        UnsafeMutableRawPointer(window).copyMemory(
            from: window + hopLength, byteCount: (frameLength - hopLength) * MemoryLayout<Float>.stride)
        writeIndex = frameLength - hopLength
    }
}
