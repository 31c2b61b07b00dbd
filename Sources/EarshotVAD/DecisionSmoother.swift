public import EarshotCore

/// Turns a detector's per-frame speech probabilities into smoothed speech/silence decisions.
///
/// Contract: input is one ``VADFrame`` per call, each `hopLength` samples at `sampleRate`, each starting
/// where the previous ended (the first may start anywhere); anything else throws
/// ``EarshotError/Code/invalidInput``. Output is one ``VADDecision`` per input frame, in order, each
/// frame exactly once; ``finish(into:)`` releases the frames still held. Posts no events (the
/// ``Endpointer`` does). Allocates nothing per frame.
///
/// The steps are those of ``SmoothingConfiguration``: hysteresis and hangover (causal), gap filling,
/// dropping short runs, padding. Each of the last three needs to see past a frame before it can label
/// it, so a frame is held until its label is certain and released then, no later. The wait depends on
/// where the frame lies: none inside confirmed speech, `speechPadBefore` in silence, up to
/// `minSpeechDuration` at a speech onset and up to `minSilenceDuration` after a run. The steps run in
/// sequence, so the longest wait is the sum, ``maxDelayFrames`` hops; the ring buffer holding frames is
/// sized for it at init.
///
/// Each decision's `decidedAt` is the end of the newest frame the smoother had been given when it
/// released the decision (at `finish`, the end of the last frame), so the delay shows downstream.
/// Whenever it releases decisions, the steps before the padding hold nothing, so every frame up to
/// `decidedAt` is released then or before, except at most `speechPadBefore` of silence the padding
/// holds: a silence decision means no speech up to its `decidedAt`.
public struct DecisionSmoother: AudioStage, Sendable {
    public typealias Input = VADFrame
    public typealias Output = VADDecision

    public let configuration: SmoothingConfiguration
    /// The rate of the frames' media times and sample counts.
    public let sampleRate: Int
    /// Samples each frame decides (the detector's hop).
    public let hopLength: Int
    /// The most frames a decision can be held: (minSilence − 1) + (minSpeech − 1) + padBefore, each in
    /// whole hops.
    public let maxDelayFrames: Int

    private var hysteresis: Hysteresis
    private var gapFiller: GapFiller
    private var shortRuns: ShortRunFilter
    private var padder: Padder

    /// Probabilities of the frames not yet released, oldest at `head`.
    private var pending: [Float]
    private var head = 0
    private var pendingCount = 0
    /// Start of the oldest frame not yet released (nil before the first frame).
    private var nextOutputStart: MediaTime?
    /// End of the newest frame received.
    private var newestEnd: MediaTime?
    /// A frame shorter than a hop ends the stream: nothing may follow it.
    private var sawShortFrame = false

    /// A smoother for frames of `hopLength` samples at `sampleRate`. Throws
    /// ``EarshotError/Code/invalidParameter`` naming `sampleRate` or `hopLength` when either is not positive.
    public init(configuration: SmoothingConfiguration, sampleRate: Int, hopLength: Int) throws {
        if sampleRate <= 0 {
            throw ParameterCheck.invalid("sampleRate", expected: "a positive rate in Hz", got: Double(sampleRate))
        }
        if hopLength <= 0 {
            throw ParameterCheck.invalid(
                "hopLength", expected: "a positive number of samples", got: Double(hopLength))
        }
        self.configuration = configuration
        self.sampleRate = sampleRate
        self.hopLength = hopLength
        // A duration becomes whole hops, rounded up, after rounding to the nearest sample.
        func hops(_ seconds: Double) -> Int {
            let samples = Int((seconds * Double(sampleRate)).rounded())
            return (samples + hopLength - 1) / hopLength
        }
        hysteresis = Hysteresis(
            onset: configuration.onsetThreshold, offset: configuration.offsetThreshold,
            hangoverFrames: hops(configuration.hangover))
        gapFiller = GapFiller(minFrames: hops(configuration.minSilenceDuration))
        shortRuns = ShortRunFilter(minFrames: hops(configuration.minSpeechDuration))
        padder = Padder(
            beforeFrames: hops(configuration.speechPadBefore), afterFrames: hops(configuration.speechPadAfter))
        maxDelayFrames = (gapFiller.minFrames - 1) + (shortRuns.minFrames - 1) + padder.beforeFrames
        pending = Array(repeating: 0, count: maxDelayFrames + 1)
    }

    /// The longest a decision can be held, in seconds.
    public var maxDelay: Double { Double(maxDelayFrames * hopLength) / Double(sampleRate) }

    /// Frames received and not yet released.
    public var heldFrames: Int { pendingCount }

    public mutating func process(_ frame: VADFrame, into output: inout StageOutput<VADDecision>) throws {
        try check(frame)
        sawShortFrame = frame.frameCount < hopLength
        if nextOutputStart == nil { nextOutputStart = frame.start }
        newestEnd = frame.end
        pending[(head + pendingCount) % pending.count] = frame.probability
        pendingCount += 1

        let labelled = LabelRun(isSpeech: hysteresis.label(frame.probability), count: 1)
        let filled = gapFiller.push(labelled)
        if filled.count > 0 { passFromShortRuns(shortRuns.push(filled), into: &output) }
    }

    public mutating func finish(into output: inout StageOutput<VADDecision>) throws {
        let filled = gapFiller.finish()
        if filled.count > 0 { passFromShortRuns(shortRuns.push(filled), into: &output) }
        passFromShortRuns(shortRuns.finish(), into: &output)
        release(padder.finish(), into: &output)
        assert(pendingCount == 0, "every frame is released at finish")
    }

    private mutating func passFromShortRuns(_ run: LabelRun, into output: inout StageOutput<VADDecision>) {
        guard run.count > 0 else { return }
        let (padding, rest) = padder.push(run)
        release(padding, into: &output)
        release(rest, into: &output)
    }

    /// Emits the oldest `run.count` held frames with the run's label.
    private mutating func release(_ run: LabelRun, into output: inout StageOutput<VADDecision>) {
        guard run.count > 0, var start = nextOutputStart, let decidedAt = newestEnd else { return }
        for _ in 0..<run.count {
            let probability = pending[head]
            head = (head + 1) % pending.count
            pendingCount -= 1
            // Only the last frame can be short, and it ends at the newest end seen.
            let count = min(hopLength, Int(decidedAt.frame - start.frame))
            output.emit(
                VADDecision(
                    start: start, frameCount: count, isSpeech: run.isSpeech, probability: probability,
                    decidedAt: decidedAt))
            start = start.advanced(by: Int64(count))
        }
        nextOutputStart = start
    }

    private func check(_ frame: VADFrame) throws {
        // Every frame is a whole hop except the stream's last, which covers what is left (see VADStage).
        if frame.start.sampleRate != sampleRate || !(1...hopLength).contains(frame.frameCount) || sawShortFrame {
            throw EarshotError(
                .invalidInput,
                "VADFrame: expected \(hopLength) samples at \(sampleRate) Hz (fewer only in the last frame), got "
                    + "\(frame.frameCount) at \(frame.start.sampleRate) Hz"
                    + (sawShortFrame ? " after a short final frame" : ""))
        }
        if let expected = newestEnd, frame.start != expected {
            throw EarshotError(
                .invalidInput,
                "VADFrame: expected a frame starting at sample \(expected.frame), where the previous one ended, "
                    + "got one at \(frame.start.frame)")
        }
    }
}

extension Sequence where Element == VADDecision {
    /// The speech in these decisions as `[start, end)` ranges, in order, with adjacent speech decisions
    /// merged into one range. For the CLI's and the lab's segment lists.
    public func speechSegments() -> [Range<MediaTime>] {
        var segments: [Range<MediaTime>] = []
        for decision in self where decision.isSpeech {
            if let last = segments.last, last.upperBound == decision.start {
                segments[segments.count - 1] = last.lowerBound..<decision.end
            } else {
                segments.append(decision.start..<decision.end)
            }
        }
        return segments
    }
}
