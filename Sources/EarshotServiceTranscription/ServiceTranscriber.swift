public import EarshotClient
import EarshotCodecs
import EarshotCore
import EarshotDSP
public import EarshotRecognizer
public import EarshotTranscription
public import EarshotVAD
import Foundation

/// A recognition service behind ``SegmentTranscriber``: each segment is encoded in the backend's
/// wire format and uploaded whole through a ``RecognitionBackend`` — the Speech API
/// (``SpeechAPIBackend``, which asks for the Earshot word-times extension) or an OpenAI-compatible
/// server (``OpenAITranscriptionClient``, `verbose_json` with word timestamps). Words come back in
/// the recording's media time: with the service's word times, else spread over the segments it
/// timed, else spread evenly over the segment.
///
/// Failures are retried by the client's ``RetryPolicy`` (503 and the like after its back-off or the
/// service's `Retry-After`, refused connections sooner); one it gives up on throws
/// `.recognizerFailed` with the service's error (the scheduler adds the segment's time range).
public final class ServiceTranscriber: SegmentTranscriber {
    /// When a failed upload is sent again.
    public let retry: RetryPolicy
    private let backend: any RecognitionBackend
    private let onRetry: @Sendable (String) -> Void

    /// `onRetry` hears a line for each retry ("segment 25.10–50.22 s: HTTP 503 …; retrying in 2 s").
    public init(
        backend: any RecognitionBackend, retry: RetryPolicy, onRetry: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.backend = backend
        self.retry = retry
        self.onRetry = onRetry
    }

    public func beginRecording() throws {}

    public func transcribe(_ segment: UtteranceChunk) async throws -> RecognitionResult {
        let audio = segment.audio
        let range = (segment.start..<segment.end).readable
        let (bytes, contentType) = try Self.encode(audio, as: backend.audioFormat)
        let (backend, retries, onRetry) = (self.backend, retry.retries, self.onRetry)
        do {
            let reply = try await retry.run { () throws(SpeechClientError) in
                try await backend.recognize(bytes, contentType: contentType)
            } willRetry: { error, pause, attempt in
                onRetry("segment \(range): \(error); retrying in \(pause.formatted()) s (\(attempt) of \(retries))")
            }
            return Self.result(reply, audio: audio)
        } catch let failure as RetryPolicy.GaveUp {
            throw EarshotError(.recognizerFailed, failure.description)
        }
    }

    /// The segment as one upload body in `format`: at 16 kHz where the format allows, else resampled
    /// to its one rate (8 kHz for AMR and Speex narrowband). Times in it start at 0.
    static func encode(_ audio: AudioBuffer, as format: CodecFormat) throws -> (bytes: [UInt8], contentType: String) {
        let rate = format.acceptsOtherRates ? audio.format.sampleRate : format.defaultSampleRate
        // A resampler between equal rates passes its input through.
        let resampler = try Resampler(inputFormat: audio.format, configuration: .init(sampleRate: rate))
        return try encode(
            AudioBuffer(format: audio.format, samples: audio.samples, startFrame: 0), resampler: resampler,
            encoder: try format.makeEncoder(sampleRate: rate))
    }

    /// Generic over the encoder, so the one `makeEncoder` returned runs in a chain of concrete stages.
    private static func encode<Encoder: AudioEncoder>(_ audio: AudioBuffer, resampler: Resampler, encoder: Encoder)
        throws -> (bytes: [UInt8], contentType: String)
    {
        var chain = resampler.then(encoder)
        var packets = StageOutput<EncodedPacket>()
        try chain.process(audio, into: &packets)
        try chain.finish(into: &packets)
        var bytes = packets.items.flatMap(\.bytes)
        if let header = chain.second.finalizedHeader(), header.count <= bytes.count {
            bytes.replaceSubrange(0..<header.count, with: header)
        }
        return (bytes, chain.second.contentType)
    }

    /// The reply as a result in the recording's media time (times clamped to the segment).
    static func result(_ reply: RecognitionReply, audio: AudioBuffer) -> RecognitionResult {
        var result = RecognitionResult(hypotheses: [], start: audio.startTime, end: audio.endTime, isPartial: false)
        let text = reply.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !text.isEmpty else { return result }  // "No Speech"
        let duration = audio.duration
        let rate = audio.format.sampleRate
        func time(_ seconds: Double) -> Double {
            let frame = Int64((min(max(seconds, 0), duration) * Double(rate)).rounded())
            return MediaTime(frame: audio.startFrame + frame, sampleRate: rate).seconds
        }
        var timed = reply.words
        if timed.isEmpty, !reply.segments.isEmpty {
            for segment in reply.segments {
                let words = segment.text.split(whereSeparator: \.isWhitespace).map(String.init)
                let step = (segment.end - segment.start) / Double(max(words.count, 1))
                for (index, word) in words.enumerated() {
                    timed.append(
                        .init(
                            word: word, start: segment.start + step * Double(index),
                            end: segment.start + step * Double(index + 1)))
                }
            }
        } else if timed.isEmpty {
            let words = text.split(separator: " ").map(String.init)
            let step = duration / Double(max(words.count, 1))
            timed = words.enumerated().map { .init(word: $1, start: step * Double($0), end: step * Double($0 + 1)) }
        }
        let words = timed.filter { !$0.word.isEmpty }.map {
            TimedWord(word: $0.word, start: time($0.start), end: time($0.end), confidence: $0.confidence ?? 0)
        }
        result.hypotheses = [Hypothesis(text: text, confidence: reply.confidence, words: words)]
        return result
    }
}
