public import EarshotCodecs
import EarshotCore
import EarshotWire
import Foundation

/// The Speech API v3 as a ``RecognitionBackend``: each utterance is one Speech to Text request
/// (`Content-Length`, the configuration's context and X-Args) that also asks for the Earshot
/// word-times extension (`X-Arg: WordTimes=true`); a service without it gives words without times.
public final class SpeechAPIBackend: RecognitionBackend {
    private let client: SpeechClient

    /// Checks `configuration` (throws `.invalidURL` or `.invalidParameter` naming the property).
    public init(configuration: SpeechRequestConfiguration) throws(SpeechClientError) {
        var configuration = configuration
        configuration.extraArguments.append((name: "WordTimes", value: "true"))
        client = try SpeechClient(configuration: configuration)
    }

    public var audioFormat: CodecFormat { client.configuration.audioFormat }

    /// One request at a time (the client's rule); cancelling the calling task cancels it.
    public func recognize(_ audio: [UInt8], contentType: String) async throws(SpeechClientError) -> RecognitionReply {
        let interaction = try client.start(audioData: audio, contentType: contentType)
        var outcome: Result<SpeechResponse, SpeechClientError>?
        await withTaskCancellationHandler {
            for await event in interaction.events {
                if case .succeeded(let response) = event { outcome = .success(response) }
                if case .failed(let error) = event { outcome = .failure(error) }
            }
        } onCancel: {
            interaction.cancel()
        }
        switch outcome {
        case .success(let response): return try Self.reply(response)
        case .failure(let error): throw error
        case nil: throw .noResponseFromServer("the interaction ended without an answer")
        }
    }

    /// The best `NBest` entry of a Speech to Text document: hypothesis, confidence, words with their
    /// scores and, with the word-times extension, their times.
    static func reply(_ response: SpeechResponse) throws(SpeechClientError) -> RecognitionReply {
        guard let document = response.document else {
            throw .noResponseFromServer("the service's answer is not a Speech to Text JSON document")
        }
        guard let best = document.recognition.nBest?.first else { return RecognitionReply(text: "") }  // "No Speech"
        let words = best.words
        let scores = best.wordScores
        var reply = RecognitionReply(text: best.hypothesis, confidence: best.confidence)
        if let times = best.wordTimes, times.count == words.count, times.allSatisfy({ $0.count == 2 }) {
            reply.words = words.indices.map { index in
                .init(
                    word: words[index], start: times[index][0], end: times[index][1],
                    confidence: index < scores.count ? scores[index] : nil)
            }
        }
        return reply
    }
}
