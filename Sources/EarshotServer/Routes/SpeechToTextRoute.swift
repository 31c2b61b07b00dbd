import EarshotRecognizer
import EarshotWire
import Foundation
import Hummingbird
import Logging
import NIOHTTP1

/// `POST /speech/v3/speechToText` and `POST /speech/v3/speechToTextCustom` (sections 3.1–3.8):
/// checks the token and headers, then recognizes the body while it streams in and answers with the
/// Speech to Text JSON. The two services differ in scope, contexts and body (audio, or the
/// multipart lexicon, grammar and audio of ``CustomRecognitionRequest``), not in how they answer.
struct SpeechToTextRoute: Sendable {
    let service: RecognitionService
    let authority: TokenAuthority
    /// Reads bodies under the upload rules.
    let upload: UploadRecognition
    /// The recognizers this service's requests borrow: the default model's for speechToText, the
    /// grammar model's for speechToTextCustom (nil if no model takes grammars).
    let pool: RecognizerPools.Entry?
    /// Every model served, for a request that names a custom language model.
    let pools: RecognizerPools
    /// The service's configuration, read as each request needs it (a reload changes its limits).
    let live: LiveConfiguration
    var configuration: ServiceConfiguration { live.current }

    typealias AudioFactory = UploadRecognition.AudioFactory
    typealias Outcome = UploadRecognition.Outcome

    /// The models' entry a request uses: the route's, or with `X-Arg: LanguageModel=NAME` the same model
    /// with that custom language model; an unknown name is refused naming it and the names served.
    private func entry(_ base: RecognizerPools.Entry, languageModel name: String?) throws -> RecognizerPools.Entry {
        guard let name else { return base }
        if let entry = pools.entry(base, languageModel: name) { return entry }
        let served = pools.languageModelNames
        throw ServiceError.badRequest(
            "X-Arg \(SpeechArgumentName.languageModel)=\(name): this service has no such custom language model; "
                + (served.isEmpty ? "it serves none" : "expected one of \(served.joined(separator: ", "))"),
            variables: "X-Arg")
    }

    func respond(_ request: Request, context: ServiceRequestContext) async -> Response {
        let responseID = ServiceIdentifiers.responseID()
        var logger = context.logger
        logger[metadataKey: "response_id"] = "\(responseID)"
        let started = ContinuousClock.now
        let response: Response
        do {
            response = try await recognize(request, context: context, responseID: responseID, logger: logger)
        } catch {
            response = failureResponse(await context.failure(for: error), logger: logger)
        }
        var tagged = response
        tagged.headers[ServiceIdentifiers.responseIDField] = responseID
        logger.info(
            "answered", metadata: ["status": "\(tagged.status.code)", "elapsed": "\(ContinuousClock.now - started)"])
        return tagged
    }

    /// The answer to a request that failed with `error` (after ``ServiceRequestContext/failure(for:)``).
    private func failureResponse(_ error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as ServiceError:
            logger.info(
                "request refused",
                metadata: [
                    "status": "\(error.status.code)", "message_id": "\(error.messageID)", "text": "\(error.text)",
                ])
            return Self.response(for: error)
        case let error as HTTPParserError:
            // Broken HTTP mid-body from a client still connected: its fault.
            logger.info("upload abandoned by the client", metadata: ["error": "\(error)"])
            return Self.response(
                for: ServiceError.badRequest("the request body ended before its end: \(error)", variables: "body"))
        default:
            logger.error("request failed", metadata: ["error": "\(error)"])
            return Self.response(
                for: ServiceError(
                    status: .internalServerError, kind: .serviceException, messageID: "SVC0003",
                    text: "the recognizer failed: \(error)"))
        }
    }

    private func recognize(_ request: Request, context: ServiceRequestContext, responseID: String, logger: Logger)
        async throws -> Response
    {
        let app = try await authorize(request)
        let speechContext = try service.context(of: request)
        guard let typeHeader = request.headers[.contentType] else {
            throw ServiceError.badRequest(
                "the Content-Type header is required; expected \(service.acceptedContentTypes)",
                variables: "Content-Type")
        }
        let arguments = ExtraArguments(headers: request.headers[values: .extraArgument])
        let makeAudio = try audioFactory(
            contentType: typeHeader, context: speechContext,
            options: try Self.requestOptions(request.headers[.contentLanguage], arguments: arguments))
        logger.info(
            "recognizing",
            metadata: [
                "context": "\(speechContext.rawValue)", "content_type": "\(typeHeader)",
                "x_arg": "\(arguments.logDescription)",
            ])

        // Refused at once when every recognizer is out; the one this request uses is borrowed only once
        // its audio is arriving (see `stream`), so this is a courtesy, not the guard.
        guard let base = self.pool else {
            throw ServiceError(
                status: .badRequest, kind: .serviceException, messageID: "SVC0001",
                text: "no recognizer of this service takes grammars (speechToTextCustom needs PocketSphinx)",
                variables: "X-SpeechContext")
        }
        let pool = try entry(base, languageModel: arguments[SpeechArgumentName.languageModel]).pool
        guard pool.canLend else { throw ServiceError.busy(retryAfter: configuration.retryAfterSeconds) }
        if arguments.flag("PartialResults"), Self.accepts(request, "application/x-ndjson") {
            return partialResultsResponse(
                request.body, app: app, pool: pool, makeAudio: makeAudio, context: context, responseID: responseID,
                wordTimes: arguments.flag("WordTimes"), logger: logger)
        }
        let outcome = try await upload.stream(
            request.body, context: context, app: app, pool: pool, makeAudio: makeAudio)
        let document = try finalDocument(
            outcome, responseID: responseID, wordTimes: arguments.flag("WordTimes"), logger: logger)
        let rendering = RecognitionDocument.Rendering(accept: request.headers[values: .accept])
        var headers = HTTPFields()
        headers[.contentType] = rendering.rawValue
        return Response(
            status: .ok, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: try document.rendered(as: rendering))))
    }

    /// The Speech to Text document for a finished upload, or the error a timed-out one gets.
    func finalDocument(_ outcome: Outcome, responseID: String, wordTimes: Bool, logger: Logger) throws
        -> RecognitionDocument
    {
        switch outcome {
        case .stalled(let stall):
            throw upload.stalledError(stall)
        case .recognized(let result, let audioTime, let audioBytes, let finishing):
            let document = RecognitionDocument(
                result: result, responseID: responseID, audioTime: audioTime, audioBytes: audioBytes,
                wordTimes: wordTimes)
            logger.info(
                "recognized",
                metadata: [
                    "status": "\(document.recognition.status)", "audio_time": "\(audioTime)",
                    "audio_bytes": "\(audioBytes)", "finishing": "\(finishing)",
                ])
            return document
        case .noSpeech(let audioTime, let audioBytes, let limit):
            logger.info(
                "no speech",
                metadata: [
                    "audio_time": "\(audioTime)", "audio_bytes": "\(audioBytes)", "max_initial_silence": "\(limit)",
                ])
            return RecognitionDocument(noSpeechIn: audioTime, audioBytes: audioBytes, responseID: responseID)
        }
    }

    /// The recognizer's options a request sets: the language from `Content-Language` (the 2013 service
    /// picked its language by it: `en-US`, `fr-FR` or `fr`; the primary subtag is Whisper's code), and
    /// `X-Arg: Task=translate` for English text whatever the language spoken.
    static func requestOptions(_ contentLanguage: String?, arguments: ExtraArguments) throws(ServiceError)
        -> RecognitionRequestOptions
    {
        var options = RecognitionRequestOptions()
        if let header = contentLanguage?.trimmingCharacters(in: .whitespaces), !header.isEmpty {
            let primary = header.split(separator: "-").first.map { $0.lowercased() } ?? ""
            guard (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw .badRequest(
                    "Content-Language \(header.prefix(40)) is not a language tag; expected en-US, fr-FR, fr or the like",
                    variables: "Content-Language")
            }
            options.language = primary
        }
        switch arguments[SpeechArgumentName.task]?.lowercased() {
        case nil, "transcribe": break
        case "translate": options.translate = true
        case let other?:
            throw .badRequest(
                "X-Arg \(SpeechArgumentName.task)=\(other.prefix(40)) is not a task; expected transcribe or translate",
                variables: "X-Arg")
        }
        return options
    }

    /// Whether the request's `Accept` header names `mediaType` (parameters and q-values ignored).
    static func accepts(_ request: Request, _ mediaType: String) -> Bool {
        request.headers[values: .accept].contains { header in
            header.split(separator: ",").contains {
                $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == mediaType
            }
        }
    }

    /// Checks `Authorization: Bearer <token>` for this service's scope; gives the app it was issued to.
    private func authorize(_ request: Request) async throws(ServiceError) -> String {
        switch await authority.check(request.headers[.authorization], for: service.scope) {
        case .success(let app): return app
        case .failure(let refusal): throw ServiceError.unauthorized(realm: configuration.realm, reason: refusal.reason)
        }
    }

    static func response(for error: ServiceError) -> Response {
        var headers = error.headers
        headers[.contentType] = "application/json"
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: error.body)))
    }
}

/// Header names and identifiers the service adds.
enum ServiceIdentifiers {
    static let responseIDField = HeaderName("X-ResponseId")!

    /// A fresh ResponseId: 128 random bits as 32 hex digits, like the seed's.
    static func responseID() -> String {
        var generator = SystemRandomNumberGenerator()
        return TokenIssuer.randomHex(bytes: 16, using: &generator)
    }
}

/// Hummingbird re-exports `HTTPFields` but not `HTTPField`; its element type names headers.
typealias HeaderName = HTTPFields.Element.Name

extension HeaderName {
    static let speechContext = HeaderName("X-SpeechContext")!
    static let extraArgument = HeaderName("X-Arg")!
}
