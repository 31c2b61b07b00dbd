public import EarshotCodecs
public import EarshotCore
import EarshotDSP
import EarshotVAD

/// The client's audio path for one interaction, fed block by block on the capture thread:
/// resampler (to the wire format's rate, mono) → level meter → voice activity detector → smoother →
/// endpointer, and beside it encoder → transport chunker (512-byte chunks, as section 3.3 advises).
///
/// Audio is encoded and chunked as it arrives, so the upload runs while the user talks; the
/// endpointer decides when capture ends. Not thread-safe: one per interaction, on one thread.
/// Public so benchmarks and tools can run the client's exact chain without a network.
public final class CapturePipeline {
    /// The working format: mono at the wire format's rate.
    public let format: AudioFormat
    private let resampler: Resampler
    private var meter: LevelMeter
    private let vad: VADStage
    private var smoother: DecisionSmoother
    private var endpointer: EndpointerStage
    private var encoder: any AudioEncoder
    private var chunker: TransportChunker
    private let vetoes = Locked<[(MediaTime, Bool)]>([])

    private var resampled = StageOutput<AudioBuffer>()
    private var metered = StageOutput<AudioBuffer>()
    private var frames = StageOutput<VADFrame>()
    private var decisions = StageOutput<VADDecision>()
    private var passed = StageOutput<VADDecision>()
    private var packets = StageOutput<EncodedPacket>()
    private var chunks = StageOutput<EncodedPacket>()
    /// Media time (at ``format``'s rate) just after the last sample processed.
    private(set) var now: MediaTime

    /// What one step produced: events in order, and chunks ready to send.
    public struct Step: Sendable {
        public var events: [SpeechEvent] = []
        public var chunks: [EncodedPacket] = []
    }

    /// A pipeline for audio in `sourceFormat`, with the configuration's format, detector and endpointing.
    public init(sourceFormat: AudioFormat, configuration: SpeechRequestConfiguration) throws {
        let rate = configuration.audioFormat.defaultSampleRate
        resampler = try Resampler(inputFormat: sourceFormat, configuration: .init(sampleRate: rate))
        format = resampler.outputFormat
        meter = try LevelMeter()
        vad = try VADStage(
            detector: try configuration.detector.makeDetector(
                sampleRate: rate, models: configuration.detectorModels))
        smoother = try DecisionSmoother(
            configuration: SmoothingConfiguration(), sampleRate: rate, hopLength: vad.detector.hopLength)
        now = .zero(sampleRate: rate)
        var endpointer = EndpointerStage(configuration: configuration.endpointing, start: now)
        if let ask = configuration.shouldEndRecording {
            let vetoes = self.vetoes
            endpointer.endpointer.shouldEndRecording = { time in
                let end = ask(time)
                vetoes.withLock { $0.append((time, !end)) }
                return end
            }
        }
        self.endpointer = endpointer
        encoder = try configuration.audioFormat.makeEncoder(sampleRate: rate)
        chunker = try TransportChunker()
    }

    /// The content type the encoder produces.
    var contentType: String { encoder.contentType }

    /// Whether the endpointer has decided the interaction's outcome.
    public var outcome: InteractionOutcome? { endpointer.endpointer.outcome }

    /// Processes one captured block.
    public func process(_ buffer: AudioBuffer) throws -> Step {
        resampled.removeAll()
        try resampler.process(buffer, into: &resampled)
        return try consume(resampled.items)
    }

    /// The source ended: flushes every stage, ends the endpointer, and the encoder's last bytes.
    public func finish() throws -> Step {
        resampled.removeAll()
        try resampler.finish(into: &resampled)
        var step = try consume(resampled.items)
        frames.removeAll()
        try vad.finish(into: &frames)
        decisions.removeAll()
        for frame in frames.items { try smoother.process(frame, into: &decisions) }
        try smoother.finish(into: &decisions)
        passed.removeAll()
        for decision in decisions.items { endpointer.process(decision, into: &passed) }
        endpointer.finish(into: &passed)
        step.events += translate(passed.events)
        step.chunks += try flushEncoder()
        return step
    }

    private var flushed = false

    /// The encoder's and chunker's remaining bytes, once capture has ended (empty the second time).
    func flushEncoder() throws -> [EncodedPacket] {
        if flushed { return [] }
        flushed = true
        packets.removeAll()
        try encoder.finish(into: &packets)
        chunks.removeAll()
        for packet in packets.items { try chunker.process(packet, into: &chunks) }
        try chunker.finish(into: &chunks)
        return chunks.items
    }

    func stop() -> [SpeechEvent] {
        passed.removeAll()
        endpointer.stop(at: now, into: &passed)
        return translate(passed.events)
    }

    func cancel() -> [SpeechEvent] {
        passed.removeAll()
        endpointer.cancel(at: now, into: &passed)
        return translate(passed.events)
    }

    func extendTimeout(by seconds: Double) throws -> [SpeechEvent] {
        passed.removeAll()
        try endpointer.extendTimeout(by: seconds, at: now, into: &passed)
        return translate(passed.events)
    }

    private func consume(_ buffers: [AudioBuffer]) throws -> Step {
        var step = Step()
        for buffer in buffers where !buffer.isEmpty {
            metered.removeAll()
            try meter.process(buffer, into: &metered)
            step.events += translate(metered.events)
            now = buffer.endTime
            if endpointer.endpointer.isListening {
                packets.removeAll()
                try encoder.process(buffer, into: &packets)
                chunks.removeAll()
                for packet in packets.items { try chunker.process(packet, into: &chunks) }
                step.chunks += chunks.items
            }
            frames.removeAll()
            try vad.process(buffer, into: &frames)
            decisions.removeAll()
            for frame in frames.items { try smoother.process(frame, into: &decisions) }
            passed.removeAll()
            for decision in decisions.items { endpointer.process(decision, into: &passed) }
            step.events += translate(passed.events)
        }
        return step
    }

    private func translate(_ events: [StageEvent]) -> [SpeechEvent] {
        var translated: [SpeechEvent] = vetoes.withLock { pending in
            defer { pending.removeAll() }
            return pending.map { .shouldEndRecording(at: $0.0, vetoed: $0.1) }
        }
        for event in events {
            switch event.kind {
            case .level(let level): translated.append(.audioLevel(level, at: event.time))
            case .speechStart: translated.append(.speechStarted(at: event.time))
            case .speechEnd: translated.append(.speechEnded(at: event.time))
            case .endpoint(let reason): translated.append(.stoppedListening(at: event.time, reason: reason))
            default: break
            }
        }
        return translated
    }
}
