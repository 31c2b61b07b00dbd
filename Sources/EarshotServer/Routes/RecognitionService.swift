import EarshotCore
import EarshotRecognizer
import Hummingbird

/// The two recognition services of the Speech API (section 3.1.1), which share one route.
enum RecognitionService: Sendable {
    /// `/speech/v3/speechToText`: audio in the body, the general contexts, scope `SPEECH`.
    case speechToText
    /// `/speech/v3/speechToTextCustom`: `multipart/x-srgs-audio`, `GenericHints` or `GrammarList`,
    /// scope `STTC`.
    case speechToTextCustom

    var scope: OAuthScope {
        switch self {
        case .speechToText: .speech
        case .speechToTextCustom: .speechToTextCustom
        }
    }

    var contexts: [SpeechContext] {
        SpeechContext.allCases.filter { $0.isCustom == (self == .speechToTextCustom) }
    }

    var acceptedContentTypes: String {
        switch self {
        case .speechToText: "one of \(AudioContentType.accepted)"
        case .speechToTextCustom: "multipart/x-srgs-audio; boundary=…"
        }
    }

    /// The request's `X-SpeechContext`, which must be one of this service's contexts.
    func context(of request: Request) throws(ServiceError) -> SpeechContext {
        let expected = contexts.map(\.rawValue).joined(separator: ", ")
        guard let name = request.headers[.speechContext] else {
            throw .badRequest(
                "the X-SpeechContext header is required; expected one of \(expected)", variables: "X-SpeechContext")
        }
        guard let context = SpeechContext(header: name), contexts.contains(context) else {
            let elsewhere =
                switch self {
                case .speechToText: " (GenericHints and GrammarList belong to speechToTextCustom)"
                case .speechToTextCustom: " (the other contexts belong to speechToText)"
                }
            throw .badRequest(
                "X-SpeechContext \(name) is not a context of this service; expected one of \(expected)"
                    + (SpeechContext(header: name) == nil ? "" : elsewhere),
                variables: "X-SpeechContext")
        }
        return context
    }
}

extension SpeechToTextRoute {
    /// Checks `Content-Type` against the service and returns how the body will be read.
    /// `options` (the request's `Content-Language` and `X-Arg: Task`) go to the recognizer lent: one that
    /// cannot take them is a 400 naming the header.
    func audioFactory(
        contentType header: String, context: SpeechContext, options: RecognitionRequestOptions = .none
    ) throws(ServiceError) -> AudioFactory {
        let limits = configuration.audioLimits
        switch service {
        case .speechToText:
            let contentType = try AudioContentType(header: header)
            return { recognizer in
                try speechToTextSession(
                    contentType: contentType, recognizer: recognizer, limits: limits, options: options)
            }
        case .speechToTextCustom:
            let media = MediaType(header: header)
            guard media.type == "multipart/x-srgs-audio" else {
                throw .badRequest(
                    "Content-Type \(header) is not accepted by speechToTextCustom; expected multipart/x-srgs-audio "
                        + "with the parts x-dictionary (optional), x-grammar and x-voice",
                    variables: "Content-Type")
            }
            guard let boundary = media.parameters["boundary"], (1...70).contains(boundary.count) else {
                throw .badRequest(
                    "Content-Type \(header) lacks a boundary of 1 to 70 characters; expected "
                        + "multipart/x-srgs-audio; boundary=…", variables: "Content-Type")
            }
            let grammarLimit = configuration.maxGrammarBytes
            let grammarLimits = configuration.grammarLimits
            return { recognizer in
                guard let recognizer = recognizer as? any GrammarRecognizer else {
                    throw ServiceError(
                        status: .internalServerError, kind: .serviceException, messageID: "SVC0003",
                        text: "the recognizer lent to speechToTextCustom takes no grammars")
                }
                return customRequest(
                    boundary: boundary, context: context, recognizer: recognizer,
                    limits: limits, grammarLimit: grammarLimit, grammarLimits: grammarLimits)
            }
        }
    }
}

// The pools lend recognizers as `any Recognizer`; these generic functions open the lent one's own
// type (SE-0352), so a request's audio path is specialized for it.

private func speechToTextSession<R: Recognizer>(
    contentType: AudioContentType, recognizer: R, limits: AudioLimits, options: RecognitionRequestOptions
) throws -> any RequestAudio {
    let session = try RecognitionSession(contentType: contentType, recognizer: recognizer, limits: limits)
    do {
        try session.setRequestOptions(options)
    } catch {
        session.abandon()
        let header = error.option == .language ? "Content-Language" : "X-Arg"
        throw ServiceError.badRequest("\(header): \(error.message)", variables: header)
    }
    return session
}

private func customRequest<R: GrammarRecognizer>(
    boundary: String, context: SpeechContext, recognizer: R, limits: AudioLimits, grammarLimit: Int,
    grammarLimits: GrammarLimits
) -> any RequestAudio {
    CustomRecognitionRequest(
        boundary: boundary, context: context, recognizer: recognizer, limits: limits,
        grammarLimit: grammarLimit, grammarLimits: grammarLimits)
}
