public import EarshotCodecs
public import EarshotCore
public import EarshotDSP
public import EarshotVAD

/// The client's audio path for one interaction, fed block by block on the capture thread, as one
/// chain of stages: resampler (to the wire format's rate, mono) → level meter → a fork of encoder →
/// transport chunker (512-byte chunks, as section 3.3 advises, holding at most ``maxChunkHold`` of
/// audio) beside voice activity detector →
/// smoother → endpointer. The encoder is fed while the endpointer listens; the application's calls
/// (stop, cancel, extend) are made to the chain, which passes them to the endpointer.
///
/// Audio is encoded and chunked as it arrives, so the upload runs while the user talks; the
/// endpointer decides when capture ends. Not thread-safe: one per interaction, on one thread.
/// Its own module, below the HTTP client: benchmarks, tools and any uploader run the client's exact
/// chain without a network.
public final class CapturePipeline {
    /// The encoder chosen at run time, as a stage.
    struct Encoding: AudioStage {
        var encoder: any AudioEncoder
        mutating func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
            try encoder.process(input, into: &output)
        }
        mutating func finish(into output: inout StageOutput<EncodedPacket>) throws {
            try encoder.finish(into: &output)
        }
    }
    typealias Transport = StageChain<Encoding, TransportChunker>
    typealias Analysis = StageChain<SpeechDetectorStage, EndpointerStage>
    typealias Chain = StageChain<Resampler, StageChain<LevelMeter, StageFork<Transport, Analysis>>>

    /// The most audio, in seconds, a transport chunk holds back: 512 bytes are 0.3–0.4 s of Speex
    /// wideband or AMR, and a service that watches the stream for the speaker's pause (to begin its
    /// final decode during the endpointer's wait) would see it up to that late. A chunk goes out once
    /// it is full or covers this much audio, whichever comes first.
    public static let maxChunkHold = 0.1

    /// The working format: mono at the wire format's rate.
    public let format: AudioFormat
    /// The encoder's `Content-Type`.
    public let contentType: String
    private var chain: Chain
    private var output = StageOutput<Forked<EncodedPacket, VADDecision>>()
    private var transportOutput = StageOutput<EncodedPacket>()
    private let vetoes = Locked<[(MediaTime, Bool)]>([])
    /// Whether the encoder has been finished (at the endpoint, or with the whole chain).
    private var flushed = false

    /// What one step produced: events in order, and chunks ready to send.
    public struct Step: Sendable {
        public var events: [CaptureEvent] = []
        public var chunks: [EncodedPacket] = []

        public init(events: [CaptureEvent] = [], chunks: [EncodedPacket] = []) {
            self.events = events
            self.chunks = chunks
        }
    }

    /// A pipeline for audio in `sourceFormat`, with the configuration's format, detector and endpointing.
    public init(sourceFormat: AudioFormat, configuration: CaptureConfiguration) throws {
        let rate = configuration.audioFormat.defaultSampleRate
        let resampler = try Resampler(inputFormat: sourceFormat, configuration: .init(sampleRate: rate))
        format = resampler.outputFormat
        let detection = try SpeechDetectorStage(
            detector: configuration.detector, models: configuration.detectorModels,
            smoothing: SmoothingConfiguration(), sampleRate: rate)
        var endpointer = EndpointerStage(configuration: configuration.endpointing, start: .zero(sampleRate: rate))
        if let ask = configuration.shouldEndRecording {
            let vetoes = self.vetoes
            endpointer.endpointer.shouldEndRecording = { time in
                let end = ask(time)
                vetoes.withLock { $0.append((time, !end)) }
                return end
            }
        }
        let encoder = try configuration.audioFormat.makeEncoder(sampleRate: rate)
        contentType = encoder.contentType
        let transport = Encoding(encoder: encoder).then(
            try TransportChunker(configuration: .init(maxHoldDuration: Self.maxChunkHold)))
        let analysis = detection.then(endpointer)
        chain = resampler.then(
            try LevelMeter().then(transport.fork(analysis) { $0.second.endpointer.isListening }))
    }

    /// Whether the endpointer, at the end of the chain's analysis branch, has decided the
    /// interaction's outcome.
    public var outcome: InteractionOutcome? { chain.analysis.second.endpointer.outcome }

    /// Media time (at ``format``'s rate) just after the last sample processed.
    public var now: MediaTime { chain.resampler.outputEnd ?? .zero(sampleRate: format.sampleRate) }

    /// Processes one captured block.
    public func process(_ buffer: AudioBuffer) throws -> Step {
        output.removeAll()
        try chain.process(buffer, into: &output)
        return step(output)
    }

    /// The source ended: flushes every stage, ends the endpointer, and the encoder's last bytes.
    public func finish() throws -> Step {
        guard !flushed else {
            throw EarshotError(.invalidInput, "the capture pipeline was finished after its encoder was flushed")
        }
        flushed = true
        output.removeAll()
        try chain.finish(into: &output)
        return step(output)
    }

    /// The encoder's and chunker's remaining bytes, once capture has ended (empty the second time).
    public func flushEncoder() throws -> [EncodedPacket] {
        if flushed { return [] }
        flushed = true
        transportOutput.removeAll()
        try chain.transport.finish(into: &transportOutput)
        return transportOutput.items
    }

    /// The encoder's header rewritten with what only the end knows (a WAV file's sizes, FLAC's
    /// STREAMINFO), once ``flushEncoder()`` has run, for a caller that kept every byte; nil when the
    /// format has none (see `AudioEncoder.finalizedHeader()`).
    public func finalizedHeader() -> [UInt8]? { flushed ? chain.transport.first.encoder.finalizedHeader() : nil }

    /// The application's calls, made now: they go to the chain, which passes them to its endpointer.
    public func stop() throws -> [CaptureEvent] { try apply(.stop(at: now)) }

    public func cancel() throws -> [CaptureEvent] { try apply(.cancel(at: now)) }

    public func extendTimeout(by seconds: Double) throws -> [CaptureEvent] {
        try apply(.extendTimeout(by: seconds, at: now))
    }

    private func apply(_ control: EndpointerControl) throws -> [CaptureEvent] {
        output.removeAll()
        try chain.control(control, into: &output)
        return translate(output.events)
    }

    private func step(_ output: StageOutput<Forked<EncodedPacket, VADDecision>>) -> Step {
        Step(events: translate(output.events), chunks: output.items.compactMap(\.first))
    }

    private func translate(_ events: [StageEvent]) -> [CaptureEvent] {
        var translated: [CaptureEvent] = vetoes.withLock { pending in
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

/// The capture chain's stages by name: resampler → level meter → fork of (transport, analysis).
extension CapturePipeline.Chain {
    var resampler: Resampler { first }
    var transport: CapturePipeline.Transport {
        get { second.second.first }
        set { second.second.first = newValue }
    }
    var analysis: CapturePipeline.Analysis { second.second.second }
}
