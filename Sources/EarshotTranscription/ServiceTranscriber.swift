import Dispatch
import EarshotClient
import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotRecognizer
import EarshotVAD
import EarshotWire
import Foundation
import Synchronization

/// A recognition service behind ``SegmentTranscriber``: each segment is encoded in the
/// configuration's wire format (FLAC, lossless, unless told otherwise) and uploaded whole, with
/// `Content-Length`, through the speech client. It asks for the Earshot word-times extension
/// (`X-Arg: WordTimes=true`) so subtitles can be placed; a service without it gives words spread
/// evenly over the segment.
///
/// A segment refused as busy (503, also 502 and 504) or lost to a connection failure or a timeout is
/// sent again after 1, 2, 4 … × ``backoff`` seconds (× 0.25 s at most after a connection failure), up to ``retries`` times; any other failure, or the
/// last retry's, throws `.recognizerFailed` with the service's error (the scheduler adds the segment's
/// time range).
public final class ServiceTranscriber: SegmentTranscriber {
    /// Which protocol the service speaks, and how to reach it.
    public enum Backend: Sendable {
        /// The Speech API v3 (`…/speech/v3/speechToText[Custom]`), as `earshot serve` and the SDK.
        case speechAPI(SpeechRequestConfiguration)
        /// OpenAI's transcription API (`…/v1/audio/transcriptions`): each segment is posted in
        /// `audioFormat` with `verbose_json` and word timestamps asked for. `credentials`, when there is
        /// no API key, fetch a `SPEECH` token from the host's `/oauth/token` (for `earshot serve`).
        case openAI(
            OpenAITranscriptionClient.Configuration, audioFormat: CodecFormat,
            credentials: (appKey: String, secret: String)?)
    }

    /// Attempts after the first for a transient failure.
    public let retries: Int
    /// The first pause before a retry, in seconds; each later one doubles it.
    public let backoff: Double
    private let client: Client
    private let onRetry: @Sendable (String) -> Void

    private enum Client {
        case speechAPI(SpeechClient)
        case openAI(OpenAITranscriptionClient, CodecFormat)
    }

    /// Checks the backend's configuration (throws `.invalidParameter` naming the property); `onRetry`
    /// hears a line for each retry ("segment 25.10–50.22 s: HTTP 503 …; retrying in 2 s").
    public init(
        backend: Backend, retries: Int = 3, backoff: Double = 1,
        onRetry: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        guard retries >= 0 else { throw EarshotError(.invalidParameter, "retries: expected 0 or more, got \(retries)") }
        do {
            switch backend {
            case .speechAPI(var configuration):
                configuration.extraArguments.append((name: "WordTimes", value: "true"))
                client = .speechAPI(try SpeechClient(configuration: configuration))
            case .openAI(let configuration, let format, let credentials):
                client = .openAI(
                    try OpenAITranscriptionClient(configuration: configuration, credentials: credentials), format)
            }
        } catch {
            throw EarshotError(.invalidParameter, error.description)
        }
        self.retries = retries
        self.backoff = backoff
        self.onRetry = onRetry
    }

    /// The Speech API client for `configuration`.
    public convenience init(
        configuration: SpeechRequestConfiguration, retries: Int = 3, backoff: Double = 1,
        onRetry: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        try self.init(backend: .speechAPI(configuration), retries: retries, backoff: backoff, onRetry: onRetry)
    }

    public func beginRecording() throws {}

    public func transcribe(_ segment: UtteranceChunk, cancellation: TranscriptionCancellation) throws
        -> RecognitionResult
    {
        let audio = segment.audio
        let range = describe(segment.start..<segment.end)
        let format: CodecFormat
        switch client {
        case .speechAPI(let speech): format = speech.configuration.audioFormat
        case .openAI(_, let chosen): format = chosen
        }
        let (bytes, contentType) = try Self.encode(audio, as: format)
        var attempt = 0
        while true {
            try cancellation.check()
            switch try recognize(
                bytes, contentType: contentType, format: format, audio: audio, cancellation: cancellation)
            {
            case .success(let result):
                return result
            case .failure(let error) where Self.isTransient(error) && attempt < retries:
                // A connection failure has taken its own time already (refused at once, or the connect
                // timeout), so a service that is restarting is tried again soon (0.25, 0.5, 1 s …); a
                // busy or failing one is given longer.
                let base = Self.isConnectionFailure(error) ? min(backoff, 0.25) : backoff
                let pause = base * pow(2, Double(attempt))
                attempt += 1
                onRetry("segment \(range): \(error); retrying in \(pause.formatted()) s (\(attempt) of \(retries))")
                try Self.sleep(pause, cancellation: cancellation)
            case .failure(let error):
                let attempts = attempt == 0 ? "" : " (after \(attempt + 1) attempts)"
                throw EarshotError(.recognizerFailed, "\(error)\(attempts)")
            }
        }
    }

    /// One attempt with the backend.
    private func recognize(
        _ bytes: [UInt8], contentType: String, format: CodecFormat, audio: AudioBuffer,
        cancellation: TranscriptionCancellation
    ) throws -> Result<RecognitionResult, SpeechClientError> {
        switch client {
        case .speechAPI(let speech):
            let interaction: SpeechInteraction
            do {
                interaction = try speech.start(audioData: bytes, contentType: contentType)
            } catch {
                throw EarshotError(.recognizerFailed, "\(error)")
            }
            switch try Self.outcome(of: interaction, cancellation: cancellation) {
            case .success(let response): return .success(try Self.result(response, audio: audio))
            case .failure(let error): return .failure(error)
            }
        case .openAI(let openAI, _):
            let fileName = "segment." + format.fileExtension
            let reply = try Self.wait(cancellation: cancellation) {
                () async -> Result<OpenAITranscription.Verbose, SpeechClientError> in
                do throws(SpeechClientError) {
                    return .success(try await openAI.transcribe(bytes, fileName: fileName, contentType: contentType))
                } catch {
                    return .failure(error)
                }
            }
            return reply.map { Self.result($0, audio: audio) }
        }
    }

    static func isConnectionFailure(_ error: SpeechClientError) -> Bool {
        if case .connectionFailure = error { return true }
        return false
    }

    /// Busy or unreachable, worth another try; everything else would fail again the same way.
    static func isTransient(_ error: SpeechClientError) -> Bool {
        switch error {
        case .connectionFailure, .noResponseFromServer: true
        case .httpStatus(let status, _): [502, 503, 504].contains(status)
        default: false
        }
    }

    /// Blocks the worker thread until `interaction` ends, or until `cancellation` is set.
    private static func outcome(of interaction: SpeechInteraction, cancellation: TranscriptionCancellation) throws
        -> Result<SpeechResponse, SpeechClientError>
    {
        let box = OutcomeBox<SpeechResponse>()
        let done = DispatchSemaphore(value: 0)
        Task {
            for await event in interaction.events {
                if case .succeeded(let response) = event { box.set(.success(response)) }
                if case .failed(let error) = event { box.set(.failure(error)) }
            }
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if cancellation.isCancelled {
                interaction.cancel()
                throw TranscriptionCancellation.cancelledError
            }
        }
        return box.value ?? .failure(.noResponseFromServer("the interaction ended without an answer"))
    }

    /// Blocks the worker thread until `operation` ends, or until `cancellation` is set (which cancels it).
    private static func wait<Value: Sendable>(
        cancellation: TranscriptionCancellation,
        _ operation: @escaping @Sendable () async -> Result<Value, SpeechClientError>
    ) throws -> Result<Value, SpeechClientError> {
        let box = OutcomeBox<Value>()
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            box.set(await operation())
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if cancellation.isCancelled {
                task.cancel()
                throw TranscriptionCancellation.cancelledError
            }
        }
        return box.value ?? .failure(.noResponseFromServer("the request ended without an answer"))
    }

    private static func sleep(_ seconds: Double, cancellation: TranscriptionCancellation) throws {
        let end = Date(timeIntervalSinceNow: seconds)
        while Date() < end {
            try cancellation.check()
            Thread.sleep(forTimeInterval: min(0.1, max(0, end.timeIntervalSinceNow)))
        }
    }

    /// The segment as one upload body in `format`: at 16 kHz where the format allows, else resampled
    /// to its one rate (8 kHz for AMR and Speex narrowband). Times in it start at 0.
    static func encode(_ audio: AudioBuffer, as format: CodecFormat) throws -> (bytes: [UInt8], contentType: String) {
        let rate = format.acceptsOtherRates ? audio.format.sampleRate : format.defaultSampleRate
        let source = AudioBuffer(format: audio.format, samples: audio.samples, startFrame: 0)
        var pcm = StageOutput<AudioBuffer>()
        if rate == audio.format.sampleRate {
            pcm.emit(source)
        } else {
            let resampler = try Resampler(inputFormat: audio.format, configuration: .init(sampleRate: rate))
            try resampler.process(source, into: &pcm)
            try resampler.finish(into: &pcm)
        }
        var encoder = try format.makeEncoder(sampleRate: rate)
        var packets = StageOutput<EncodedPacket>()
        for buffer in pcm.items { try encoder.process(buffer, into: &packets) }
        try encoder.finish(into: &packets)
        var bytes = packets.items.flatMap(\.bytes)
        if let header = encoder.finalizedHeader(), header.count <= bytes.count {
            bytes.replaceSubrange(0..<header.count, with: header)
        }
        return (bytes, encoder.contentType)
    }

    /// The service's best hypothesis as a result in the recording's media time.
    static func result(_ response: SpeechResponse, audio: AudioBuffer) throws -> RecognitionResult {
        var result = RecognitionResult(hypotheses: [], start: audio.startTime, end: audio.endTime, isPartial: false)
        guard let recognition = response.dictionary?["Recognition"] as? [String: Any] else {
            throw EarshotError(
                .recognizerFailed, "the service's answer is not a Speech to Text JSON document")
        }
        guard let best = (recognition["NBest"] as? [[String: Any]])?.first,
            let text = best["Hypothesis"] as? String
        else { return result }  // "No Speech"
        let words = best["Words"] as? [String] ?? []
        let scores = best["WordScores"] as? [Double] ?? []
        let duration = audio.duration
        let times = wordTimes(best["WordTimes"], count: words.count) ?? evenlySpread(words.count, over: duration)
        let rate = audio.format.sampleRate
        func time(_ seconds: Double) -> MediaTime {
            let frame = Int64((min(max(seconds, 0), duration) * Double(rate)).rounded())
            return MediaTime(frame: audio.startFrame + frame, sampleRate: rate)
        }
        let recognized = words.indices.map { index in
            RecognizedWord(
                word: words[index], start: time(times[index][0]), end: time(times[index][1]),
                confidence: index < scores.count ? scores[index] : 0)
        }
        result.hypotheses = [Hypothesis(text: text, confidence: best["Confidence"] as? Double, words: recognized)]
        return result
    }
}

extension ServiceTranscriber {
    /// An OpenAI `verbose_json` answer as a result in the recording's media time: its words where the
    /// server gives word times, else each segment's words spread over the segment, else the text's
    /// words spread over the whole segment. Confidence is not part of the API: words get 0, the
    /// hypothesis nil.
    static func result(_ reply: OpenAITranscription.Verbose, audio: AudioBuffer) -> RecognitionResult {
        var result = RecognitionResult(hypotheses: [], start: audio.startTime, end: audio.endTime, isPartial: false)
        let text = reply.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !text.isEmpty else { return result }
        let duration = audio.duration
        let rate = audio.format.sampleRate
        func time(_ seconds: Double) -> MediaTime {
            let frame = Int64((min(max(seconds, 0), duration) * Double(rate)).rounded())
            return MediaTime(frame: audio.startFrame + frame, sampleRate: rate)
        }
        var timed: [(word: String, start: Double, end: Double)] = []
        if let words = reply.words, !words.isEmpty {
            timed = words.map { ($0.word.trimmingCharacters(in: .whitespaces), $0.start, $0.end) }
        } else if let segments = reply.segments, !segments.isEmpty {
            for segment in segments {
                let words = segment.text.split(whereSeparator: \.isWhitespace).map(String.init)
                let step = (segment.end - segment.start) / Double(max(words.count, 1))
                for (index, word) in words.enumerated() {
                    timed.append((word, segment.start + step * Double(index), segment.start + step * Double(index + 1)))
                }
            }
        } else {
            let words = text.split(separator: " ").map(String.init)
            timed = zip(words, evenlySpread(words.count, over: duration)).map { ($0, $1[0], $1[1]) }
        }
        let words = timed.filter { !$0.word.isEmpty }.map {
            RecognizedWord(word: $0.word, start: time($0.start), end: time($0.end), confidence: 0)
        }
        result.hypotheses = [Hypothesis(text: text, confidence: nil, words: words)]
        return result
    }
}

/// `WordTimes` of an NBest entry (`[[start, end], …]`, seconds), if it has one pair per word.
private func wordTimes(_ value: Any?, count: Int) -> [[Double]]? {
    guard let times = value as? [[Double]], times.count == count else { return nil }
    return times.allSatisfy { $0.count == 2 } ? times : nil
}

/// `count` words spread evenly over `duration` seconds: for a service that does not send word times.
private func evenlySpread(_ count: Int, over duration: Double) -> [[Double]] {
    let step = duration / Double(max(count, 1))
    return (0..<count).map { index in [step * Double(index), step * Double(index + 1)] }
}

/// A request's outcome, handed from its task to the waiting worker thread.
private final class OutcomeBox<Value: Sendable>: Sendable {
    private let stored = Mutex<Result<Value, SpeechClientError>?>(nil)
    func set(_ value: Result<Value, SpeechClientError>) { stored.withLock { $0 = value } }
    var value: Result<Value, SpeechClientError>? { stored.withLock { $0 } }
}
