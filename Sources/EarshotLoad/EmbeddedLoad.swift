import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotLab
public import EarshotRecognizer
import Foundation

/// The embedded recognizer alone under the load test's pattern: N tasks, each with its own
/// PocketSphinx decoder, fed the corpus's utterances at real-time pace up to the labelled end of
/// speech; the latency is from that moment to the final result (`endUtterance`). It bounds what
/// any service built on this recognizer can do on this machine.
public struct EmbeddedLoad: Sendable {
    public var utterances: [LoadTest.Utterance]
    public var speed: Double
    /// What each stream's decoder loads: the model and the search settings (`--decoder`).
    public var recognizer: PocketSphinxConfiguration

    public init(
        utterances: [LoadTest.Utterance], speed: Double = 1, recognizer: PocketSphinxConfiguration = .default
    ) {
        self.utterances = utterances
        self.speed = speed
        self.recognizer = recognizer
    }

    public func run(streams: Int, duration: Double) async throws -> LoadReport.Level {
        let deadline = ContinuousClock.now + .seconds(duration)
        let utterances = self.utterances
        let speed = self.speed
        let configuration = recognizer
        // Each stream is a task on the executor for blocking work: decoding holds one of its threads,
        // waiting for the next block of paced audio holds none.
        let samples = try await withThrowingTaskGroup(of: [LoadTest.Sample].self) { group in
            for stream in 0..<streams {
                group.addTask(executorPreference: BlockingExecutor.current) {
                    let recognizer = try PocketSphinxRecognizer(configuration: configuration)
                    var samples: [LoadTest.Sample] = []
                    var index = stream
                    while ContinuousClock.now < deadline {
                        samples.append(
                            try await Self.decode(
                                utterances[index % utterances.count], recognizer: recognizer, speed: speed))
                        index += 1
                    }
                    return samples
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return LoadReport.Level(streams: streams, samples: samples)
    }

    static func decode(_ utterance: LoadTest.Utterance, recognizer: PocketSphinxRecognizer, speed: Double)
        async throws -> LoadTest.Sample
    {
        // 20 ms blocks at 16 kHz, so the end of speech is noted within 20 ms of being due.
        let file = try AudioFileSource(path: utterance.path, blockFrames: 320)
        var source = try PacedSource(file, speed: speed)
        let resampler = try Resampler(inputFormat: source.format, configuration: .init(sampleRate: 16_000))
        var resampled = StageOutput<AudioBuffer>()
        try recognizer.resetAdaptation()
        try recognizer.startUtterance()
        var reachedEnd: ContinuousClock.Instant?
        while reachedEnd == nil, let buffer = try await source.next() {
            resampled.removeAll()
            try resampler.process(buffer, into: &resampled)
            for output in resampled.items { try recognizer.accept(output) }
            if buffer.endTime.seconds >= utterance.speechEnd { reachedEnd = .now }
        }
        _ = try recognizer.endUtterance()
        let latency = LoadTest.seconds(ContinuousClock.now - (reachedEnd ?? .now))
        return LoadTest.Sample(latency: latency, failure: nil, partialLags: [])
    }
}
