import EarshotModels
import EarshotRecognizer
import EarshotWire
import Foundation
import Hummingbird
import Logging
import NIOHTTP1
import Synchronization

/// `POST /v1/audio/transcriptions`, `POST /v1/audio/translations` and `GET /v1/models`: OpenAI's
/// transcription API over the same recognizer pool, upload rules and tokens as the Speech API. A
/// translation is a transcription whose text is English whatever the language spoken: a multilingual
/// Whisper model's `translate` task; a model that cannot translate is refused with a 400 naming it.
///
/// The key is `Authorization: Bearer …` with an access token of scope `SPEECH` from `/oauth/token`,
/// so one credential serves both APIs. The `file` part streams into a recognizer as it arrives (see
/// ``TranscriptionUpload``), under the same ``UploadRecognition`` rules: lease after the first bytes,
/// 503 with `Retry-After` when every recognizer is busy, 408 for a stalled upload, 413 past the
/// audio limit. Errors come in OpenAI's shape (``OpenAIError``).
struct TranscriptionRoute: Sendable {
    let authority: TokenAuthority
    let upload: UploadRecognition
    /// One pool per model; the request's `model` field picks one.
    let pools: RecognizerPools
    /// The service's configuration, read as each request needs it (a reload changes its limits).
    let live: LiveConfiguration
    var configuration: ServiceConfiguration { live.current }

    /// The model ids a request may name: the service's models, and OpenAI's `whisper-1` for the default.
    var acceptedModelIDs: [String] {
        pools.modelIDs + [RecognizerPools.openAIModelName]
            + pools.languageModelNames.map { RecognizerPools.openAIModelName + "+" + $0 }
    }

    /// Answers one request; with `translate`, one to `/v1/audio/translations`.
    func transcribe(_ request: Request, context: ServiceRequestContext, translate: Bool = false) async -> Response {
        var logger = context.logger
        let responseID = ServiceIdentifiers.responseID()
        logger[metadataKey: "response_id"] = "\(responseID)"
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await recognize(request, context: context, translate: translate, logger: logger)
        } catch {
            response = failureResponse(await context.failure(for: error), logger: logger)
        }
        response.headers[ServiceIdentifiers.responseIDField] = responseID
        logger.info(
            "answered", metadata: ["status": "\(response.status.code)", "elapsed": "\(ContinuousClock.now - started)"])
        return response
    }

    /// The answer to a request that failed with `error` (after ``ServiceRequestContext/failure(for:)``).
    private func failureResponse(_ error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as ServiceError:
            logger.info("request refused", metadata: ["status": "\(error.status.code)", "text": "\(error.text)"])
            return OpenAIError.response(for: error)
        case let error as HTTPParserError:
            logger.info("upload abandoned by the client", metadata: ["error": "\(error)"])
            return OpenAIError.response(
                for: .badRequest("the request body ended before its end: \(error)", variables: "file"))
        default:
            logger.error("request failed", metadata: ["error": "\(error)"])
            return OpenAIError.response(
                for: ServiceError(
                    status: .internalServerError, kind: .serviceException, messageID: "SVC0003",
                    text: "the recognizer failed: \(error)"))
        }
    }

    func models(_ request: Request) async -> Response {
        do {
            try await authorize(request)
        } catch {
            return OpenAIError.response(for: error)
        }
        // `created`: when the model's main file was installed (model.bin, or PocketSphinx's mdef);
        // `languages`: what it transcribes, so a client can pick a model for its speakers.
        let list = ModelList(
            data: pools.entries.map { entry in
                let file = (entry.model.location as NSString).appendingPathComponent(
                    entry.model.kind == .whisper ? "model.bin" : "mdef")
                let installed = (try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date)
                return ModelList.Model(
                    id: entry.model.id, created: Int(installed?.timeIntervalSince1970 ?? 0),
                    languages: entry.model.languages)
            })
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let data = (try? JSONEncoder.wire.encode(list)) ?? Data()
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    typealias ModelList = OpenAITranscription.ModelList

    private func recognize(
        _ request: Request, context: ServiceRequestContext, translate: Bool, logger: Logger
    ) async throws -> Response {
        let app = try await authorize(request)
        let header = request.headers[.contentType] ?? ""
        let media = MediaType(header: header)
        guard media.type == "multipart/form-data", let boundary = media.parameters["boundary"],
            (1...70).contains(boundary.count)
        else {
            throw ServiceError.badRequest(
                "Content-Type \(header.isEmpty ? "(none)" : header) is not accepted; expected multipart/form-data; "
                    + "boundary=… with a file part and a model field", variables: "Content-Type")
        }
        guard pools.slots.isAvailable else {
            throw ServiceError.busy(retryAfter: configuration.retryAfterSeconds)
        }
        let settled = Settled<TranscriptionOptions>()
        let lent = Settled<String>()
        // A file comes whole, at the network's pace: no endpointer waits at its end for a decode begun
        // early to use, and the file's last word is decoded with all the audio after it.
        let limits = {
            var limits = configuration.audioLimits
            limits.beginFinalDecodeOnPause = false
            return limits
        }()
        let (modelIDs, languages, pools) = (acceptedModelIDs, self.pools.languages, self.pools)
        let resolve: @Sendable (String) -> String? = { pools.entry(named: $0)?.model.id }
        let outcome = try await upload.stream(
            request.body, context: context, app: app,
            choosingPool: { head in
                let named = ModelFieldScanner.model(in: head, boundary: boundary).flatMap { pools.entry(named: $0) }
                let entry = named ?? pools.primary
                lent.value = entry.model.id
                return entry.pool
            }
        ) { recognizer in
            transcriptionUpload(
                boundary: boundary, recognizer: recognizer, limits: limits, modelIDs: modelIDs,
                languages: languages, lentModel: lent.value ?? pools.primary.model.id, resolveModel: resolve,
                settled: settled, translate: translate)
        }
        switch outcome {
        case .stalled(let stall):
            throw upload.stalledError(stall)
        case .noSpeech(let audioTime, _, let limit):
            logger.info("no speech", metadata: ["audio_time": "\(audioTime)", "max_initial_silence": "\(limit)"])
            var error = ServiceError.badRequest(
                "no speech was found in the first \(RecognitionDocument.rounded(limit)) s of the audio (this "
                    + "service's --max-initial-silence); the rest of the file was not read", variables: "file")
            error.headers[.connection] = "close"
            throw error
        case .recognized(let result, let audioTime, let audioBytes, let finishing):
            let options = settled.value ?? TranscriptionOptions()
            logger.info(
                "recognized",
                metadata: [
                    "audio_time": "\(audioTime)", "audio_bytes": "\(audioBytes)", "finishing": "\(finishing)",
                    "response_format": "\(options.responseFormat.rawValue)",
                ])
            let (body, contentType) = try TranscriptionResponse(
                result: result, duration: audioTime, options: options
            ).rendered()
            var headers = HTTPFields()
            headers[.contentType] = contentType
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }

    /// Checks the Bearer key: an access token of scope `SPEECH`, or an API key; gives its app. A 401
    /// says why.
    private func authorize(_ request: Request) async throws(ServiceError) -> String {
        let reason: String
        switch await authority.check(request.headers[.authorization], for: .speech) {
        case .success(let app): return app
        case .failure(let refusal): reason = refusal.reason
        }
        var error = ServiceError.unauthorized(realm: configuration.realm, reason: reason)
        error.text =
            "Incorrect API key provided: \(reason); use "
            + (configuration.apiKeys.isEmpty ? "" : "a key of this service's --api-keys file, or ")
            + "an access token of scope SPEECH from POST /oauth/token as the API key"
        error.variables = ""
        throw error
    }
}

/// A value one task hands to another after its work is done (the options a request's form fields
/// set, read once its body has been recognized).
final class Settled<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)

    var value: Value? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

/// The upload's audio path for the lent recognizer's own type, opened from the pool's
/// `any Recognizer` (SE-0352).
private func transcriptionUpload<R: Recognizer>(
    boundary: String, recognizer: R, limits: AudioLimits, modelIDs: [String], languages: [String],
    lentModel: String, resolveModel: @escaping @Sendable (String) -> String?, settled: Settled<TranscriptionOptions>,
    translate: Bool
) -> any RequestAudio {
    TranscriptionUpload(
        boundary: boundary, recognizer: recognizer, limits: limits, modelIDs: modelIDs,
        languages: languages, lentModel: lentModel, resolveModel: resolveModel, settled: settled, translate: translate)
}
