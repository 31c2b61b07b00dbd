import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotLab
import EarshotRecognizer
import Foundation
import NIOConcurrencyHelpers

/// The embedded recognizer alone under the load test's pattern: N threads, each with its own
/// PocketSphinx decoder, fed the corpus's utterances at real-time pace up to the labelled end of
/// speech; the latency is from that moment to the final result (`endUtterance`). It bounds what
/// any service built on this recognizer can do on this machine.
public struct EmbeddedLoad: Sendable {
    public var utterances: [LoadTest.Utterance]
    public var speed: Double

    public init(utterances: [LoadTest.Utterance], speed: Double = 1) {
        self.utterances = utterances
        self.speed = speed
    }

    public func run(streams: Int, duration: Double) async throws -> LoadReport.Level {
        let deadline = ContinuousClock.now + .seconds(duration)
        let samples = NIOLockedValueBox<[LoadTest.Sample]>([])
        let utterances = self.utterances
        let speed = self.speed
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stream in 0..<streams {
                group.addTask {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        Thread.detachNewThread {
                            do {
                                let recognizer = try PocketSphinxRecognizer()
                                var index = stream
                                while ContinuousClock.now < deadline {
                                    let sample = try Self.decode(
                                        utterances[index % utterances.count], recognizer: recognizer, speed: speed)
                                    samples.withLockedValue { $0.append(sample) }
                                    index += 1
                                }
                                continuation.resume()
                            } catch {
                                continuation.resume(throwing: error)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return LoadReport.Level(streams: streams, samples: samples.withLockedValue { $0 })
    }

    static func decode(_ utterance: LoadTest.Utterance, recognizer: PocketSphinxRecognizer, speed: Double) throws
        -> LoadTest.Sample
    {
        // 20 ms blocks at 16 kHz, so the end of speech is noted within 20 ms of being due.
        let file = try AudioFileSource(path: utterance.path, blockFrames: 320)
        var source = try PacedSource(file, speed: speed)
        let resampler = try Resampler(inputFormat: source.format, configuration: .init(sampleRate: 16_000))
        var resampled = StageOutput<AudioBuffer>()
        try recognizer.resetAdaptation()
        try recognizer.startUtterance()
        var reachedEnd: ContinuousClock.Instant?
        while reachedEnd == nil, let buffer = try source.read() {
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
