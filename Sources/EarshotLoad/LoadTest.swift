public import EarshotClient
import EarshotCore
import EarshotIO
public import EarshotLab
import Foundation

/// A load test of a recognition service as its users feel it: N streams, each replaying a corpus's
/// utterances one after another at real-time pace through a live recognizer (capture, endpointing,
/// encoding, and the Speech API's chunked upload or an OpenAI-compatible service's whole-file one),
/// and for each request the time from the labelled end of speech to the final result.
///
/// Meant for your own services on loopback or a private network: it sends as much audio as it is
/// told to, to the one URL it is given.
public struct LoadTest: Sendable {
    /// Makes each stream's recognizer.
    public var recognizers: LiveRecognizerFactory
    public var utterances: [Utterance]
    /// Media seconds per second; 1 is real time.
    public var speed: Double

    /// One recording, where its speech ends, and what is said in it (when the corpus knows).
    public struct Utterance: Sendable {
        public var path: String
        public var speechEnd: Double
        public var reference: String?

        public init(path: String, speechEnd: Double, reference: String? = nil) {
            self.path = path
            self.speechEnd = speechEnd
            self.reference = reference
        }
    }

    public init(recognizers: LiveRecognizerFactory, utterances: [Utterance], speed: Double = 1) {
        self.recognizers = recognizers
        self.utterances = utterances
        self.speed = speed
    }

    /// The utterances of a labelled corpus (those with speech).
    public static func utterances(of corpus: Corpus) -> [Utterance] {
        corpus.entries.compactMap { entry in
            entry.speechEnd.map {
                Utterance(path: corpus.audioPath(of: entry), speechEnd: $0, reference: entry.transcript)
            }
        }
    }

    /// What one request gave.
    public struct Sample: Sendable {
        /// nil when the request failed; else seconds from the labelled end of speech to the result.
        public var latency: Double?
        /// Seconds from the endpoint (capture ended, upload finishing) to the result: the service's
        /// share of ``latency``, without the endpointer's trailing-silence wait.
        public var afterEndpoint: Double? = nil
        /// Where in the recording the client's endpointer ended the utterance, in seconds of audio: with
        /// the labelled ``Utterance/speechEnd`` it gives the endpointer's wait in media time, which a busy
        /// machine does not stretch.
        public var endpointAt: Double? = nil
        public var failure: String?
        /// For each partial result, seconds between the moment its audio was captured and its arrival.
        public var partialLags: [Double]
        /// The text of the last partial result before the final one (nil when none came).
        public var lastPartial: String? = nil
        /// The recording, its reference transcript, and the final transcript (nil when the request failed).
        public var path: String = ""
        public var reference: String? = nil
        public var transcript: String? = nil
        /// The labelled end of speech in the recording, in seconds.
        public var speechEnd: Double? = nil

        /// How much of ``lastPartial`` the final transcript kept; nil without both.
        public var partialRevision: PartialRevision? {
            guard let lastPartial, let transcript else { return nil }
            return PartialRevision(partial: lastPartial, final: transcript)
        }

        /// The sample's words scored against the reference; nil without a reference or a transcript.
        public var wordErrors: WordErrorRate? {
            guard let reference, let transcript else { return nil }
            return WordErrorRate(reference: reference, hypothesis: transcript)
        }

        /// The same sample, labelled with the utterance it was for.
        func labelled(_ utterance: Utterance) -> Sample {
            var sample = self
            sample.path = utterance.path
            sample.reference = utterance.reference
            sample.speechEnd = utterance.speechEnd
            return sample
        }
    }

    /// Runs `streams` concurrent streams for `duration` seconds of wall-clock time (each stream
    /// finishes the utterance it is in) and summarises every request.
    public func run(streams: Int, duration: Double) async throws -> LoadReport.Level {
        let deadline = ContinuousClock.now + .seconds(duration)
        let samples = Locked<[Sample]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stream in 0..<streams {
                group.addTask {
                    let client = try recognizers.makeRecognizer()
                    // Streams start spread over one utterance, so their ends do not coincide.
                    try await Task.sleep(
                        for: .seconds((utterances.first?.speechEnd ?? 1) * Double(stream) / Double(streams) / speed))
                    var index = stream
                    while ContinuousClock.now < deadline {
                        let utterance = utterances[index % utterances.count]
                        let sample = await request(client: client, utterance: utterance).labelled(utterance)
                        samples.withLock { $0.append(sample) }
                        index += 1
                        // A refused request is retried after a pause, as a client honouring Retry-After would.
                        if sample.latency == nil { try await Task.sleep(for: .seconds(1)) }
                    }
                    try await client.shutdown()
                }
            }
            try await group.waitForAll()
        }
        return LoadReport.Level(streams: streams, samples: samples.withLock { $0 })
    }

    /// One interaction, timed against the moment the end of speech was captured.
    func request(client: any LiveRecognizer, utterance: Utterance) async -> Sample {
        let clock = CaptureClock()
        let speed = self.speed
        let speechEndFrame = utterance.speechEnd
        let interaction: SpeechInteraction
        do {
            interaction = try client.startListening {
                let source = try AudioInput.open(path: utterance.path, blockFrames: 320)
                return try LoadTest.clocked(source, speed: speed, speechEnd: speechEndFrame, clock: clock)
            }
        } catch {
            return Sample(latency: nil, failure: "\(error)", partialLags: [])
        }
        var partialLags: [Double] = []
        var lastPartial: String?
        var endpoint: ContinuousClock.Instant?
        var endpointAt: Double?
        for await event in interaction.events {
            switch event {
            case .stoppedListening(let at, _):
                endpoint = .now
                endpointAt = at.seconds
            case .partialResult(let text, let audioTime):
                lastPartial = text
                if let captured = clock.instant(ofMedia: audioTime) {
                    partialLags.append(Self.seconds(ContinuousClock.now - captured))
                }
            case .succeeded, .recognized:
                guard let speechEnd = clock.speechEndInstant else {
                    return Sample(
                        latency: nil, failure: "the end of speech was never captured", partialLags: partialLags)
                }
                let now = ContinuousClock.now
                return Sample(
                    latency: Self.seconds(now - speechEnd), afterEndpoint: endpoint.map { Self.seconds(now - $0) },
                    endpointAt: endpointAt, failure: nil, partialLags: partialLags, lastPartial: lastPartial,
                    transcript: event.finalText)
            case .failed(let error):
                return Sample(latency: nil, failure: error.label, partialLags: partialLags)
            default:
                break
            }
        }
        return Sample(latency: nil, failure: "no result", partialLags: partialLags)
    }

    static func clocked<Source: AudioSource>(_ source: Source, speed: Double, speechEnd: Double, clock: CaptureClock)
        throws -> any AudioSource
    {
        ClockedSource(try PacedSource(source, speed: speed), speechEnd: speechEnd, clock: clock)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// When a paced replay released its audio: the first buffer's instant (media time 0) and the
/// buffer holding the labelled end of speech.
final class CaptureClock: Sendable {
    private let state = Locked<
        (origin: ContinuousClock.Instant?, speechEnd: ContinuousClock.Instant?, speed: Double)
    >((nil, nil, 1))

    var speechEndInstant: ContinuousClock.Instant? { state.withLock { $0.speechEnd } }

    func started(speed: Double) {
        state.withLock { if $0.origin == nil { $0 = (.now, nil, speed) } }
    }

    func reachedSpeechEnd() { state.withLock { if $0.speechEnd == nil { $0.speechEnd = .now } } }

    /// The wall-clock instant at which media time `seconds` was captured.
    func instant(ofMedia seconds: Double) -> ContinuousClock.Instant? {
        state.withLock { state in state.origin.map { $0 + .seconds(seconds / state.speed) } }
    }
}

/// A source that notes on a ``CaptureClock`` when it releases the end of speech.
struct ClockedSource<Source: AudioSource>: AudioSource {
    var source: PacedSource<Source>
    let speechEnd: Double
    let clock: CaptureClock

    init(_ source: PacedSource<Source>, speechEnd: Double, clock: CaptureClock) {
        self.source = source
        self.speechEnd = speechEnd
        self.clock = clock
    }

    var format: AudioFormat { source.format }

    mutating func read() throws -> AudioBuffer? { note(try source.read()) }

    mutating func next() async throws -> AudioBuffer? { note(try await source.next()) }

    /// Notes the release of `buffer` (nil: the end) on the clock.
    private func note(_ buffer: AudioBuffer?) -> AudioBuffer? {
        guard let buffer else {
            clock.reachedSpeechEnd()
            return nil
        }
        if buffer.startFrame == 0 { clock.started(speed: source.speed) }
        if buffer.endTime.seconds >= speechEnd { clock.reachedSpeechEnd() }
        return buffer
    }
}
