public import EarshotCapture
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotLab
public import EarshotRecognizer
import Foundation

/// The embedded recognizer alone under the load test's pattern: N tasks, each with its own
/// recognizer (Whisper or PocketSphinx, made by `makeRecognizer`), fed the corpus's utterances at
/// real-time pace through the client's own capture chain — its detector and the SDK's endpointer
/// (``EarshotCapture/CapturePipeline``) — until the endpointer ends the utterance. As a live client
/// with the embedded recognizer does, each pause the detector hears begins the final decode
/// (``EarshotRecognizer/Recognizer/speechPaused(at:)``), dropped if speech resumes. The latency is from
/// the labelled end of speech, and from the endpoint, to the final result (`endUtterance`). It bounds
/// what any service built on this recognizer can do on this machine.
public struct EmbeddedLoad: Sendable {
    public var utterances: [LoadTest.Utterance]
    public var speed: Double
    /// Makes each stream's recognizer (the models' weights are shared; each has its own state).
    public var makeRecognizer: @Sendable () throws -> any Recognizer
    /// The client's detector and endpointing.
    public var capture: CaptureConfiguration

    public init(
        utterances: [LoadTest.Utterance], speed: Double = 1,
        makeRecognizer: @escaping @Sendable () throws -> any Recognizer = {
            try PocketSphinxRecognizer(configuration: .default)
        },
        capture: CaptureConfiguration = CaptureConfiguration()
    ) {
        self.utterances = utterances
        self.speed = speed
        self.makeRecognizer = makeRecognizer
        self.capture = capture
    }

    /// Each stream replays for `duration` seconds from when its recognizer is ready (a model that takes
    /// long to load on a busy machine does not eat the level's time), and at least one utterance.
    public func run(streams: Int, duration: Double) async throws -> LoadReport.Level {
        let utterances = self.utterances
        let speed = self.speed
        let makeRecognizer = self.makeRecognizer
        let capture = self.capture
        // Each stream is a task on the executor for blocking work: decoding holds one of its threads,
        // waiting for the next block of paced audio holds none.
        let samples = try await withThrowingTaskGroup(of: [LoadTest.Sample].self) { group in
            for stream in 0..<streams {
                group.addTask(executorPreference: BlockingExecutor.current) {
                    let recognizer = try makeRecognizer()
                    return try await Self.stream(
                        from: stream, of: utterances, recognizer: recognizer, speed: speed, capture: capture,
                        until: ContinuousClock.now + .seconds(duration))
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return LoadReport.Level(streams: streams, samples: samples)
    }

    /// One stream: utterances from `first` on, in turn, until `deadline` and at least one (opened for the
    /// recognizer's own type, SE-0352).
    static func stream<R: Recognizer>(
        from first: Int, of utterances: [LoadTest.Utterance], recognizer: R, speed: Double,
        capture: CaptureConfiguration, until deadline: ContinuousClock.Instant
    ) async throws -> [LoadTest.Sample] {
        var recognizer = recognizer
        var samples: [LoadTest.Sample] = []
        var index = first
        repeat {
            samples.append(
                try await decode(
                    utterances[index % utterances.count], recognizer: &recognizer, speed: speed, capture: capture))
            index += 1
        } while ContinuousClock.now < deadline
        return samples
    }

    static func decode<R: Recognizer>(
        _ utterance: LoadTest.Utterance, recognizer: inout R, speed: Double, capture: CaptureConfiguration
    ) async throws -> LoadTest.Sample {
        // 20 ms blocks at 16 kHz, so the end of speech is noted within 20 ms of being due.
        let file = try AudioFileSource(path: utterance.path, blockFrames: 320)
        var source = try PacedSource(file, speed: speed)
        let resampler = try Resampler(inputFormat: source.format, configuration: .init(sampleRate: 16_000))
        let pipeline = try CapturePipeline(sourceFormat: source.format, configuration: capture)
        var resampled = StageOutput<AudioBuffer>()
        try recognizer.resetAdaptation()
        try recognizer.startUtterance()
        var reachedEnd: ContinuousClock.Instant?
        var endpoint: ContinuousClock.Instant?
        var endpointAt: Double?
        while endpoint == nil, let buffer = try await source.next() {
            resampled.removeAll()
            try resampler.process(buffer, into: &resampled)
            for output in resampled.items { try recognizer.accept(output) }
            if reachedEnd == nil, buffer.endTime.seconds >= utterance.speechEnd { reachedEnd = .now }
            for event in try pipeline.process(buffer).events {
                switch event {
                case .speechEnded(let speechEnd): recognizer.speechPaused(at: speechEnd)
                case .speechStarted: recognizer.speechResumed()
                case .stoppedListening(let at, _):
                    endpoint = .now
                    endpointAt = at.seconds
                default: break
                }
            }
        }
        let result = try recognizer.endUtterance()
        let now = ContinuousClock.now
        return LoadTest.Sample(
            latency: LoadTest.seconds(now - (reachedEnd ?? now)),
            afterEndpoint: endpoint.map { LoadTest.seconds(now - $0) }, endpointAt: endpointAt, failure: nil,
            partialLags: [],
            transcript: result.text
        ).labelled(utterance)
    }
}
