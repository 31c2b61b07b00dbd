import EarshotWire
public import Foundation
public import Hummingbird

/// An error answer of the Speech API (sections 3.6 and 3.9): a status code and a `RequestError`
/// body holding a `ServiceException` (SVC0001: the request is malformed) or a `PolicyException`
/// (POL0001: the credentials are refused).
public struct ServiceError: Error, Sendable {
    public enum Kind: String, Sendable {
        case serviceException = "ServiceException"
        case policyException = "PolicyException"
    }

    public var status: HTTPResponse.Status
    public var kind: Kind
    public var messageID: String
    /// For people: what was wrong and what was expected.
    public var text: String
    /// The names of the inputs at fault, as the seed's `Variables` field.
    public var variables: String
    /// Extra response headers (`WWW-Authenticate`, `Retry-After`).
    public var headers: HTTPFields

    public init(
        status: HTTPResponse.Status, kind: Kind, messageID: String, text: String, variables: String = "",
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.kind = kind
        self.messageID = messageID
        self.text = text
        self.variables = variables
        self.headers = headers
    }

    /// 400 SVC0001: the request cannot be processed as sent (bad audio, a missing or bad header).
    public static func badRequest(_ text: String, variables: String = "") -> ServiceError {
        ServiceError(
            status: .badRequest, kind: .serviceException, messageID: "SVC0001", text: text, variables: variables)
    }

    /// 401 POL0001 with the `WWW-Authenticate: Bearer` challenge of example 3-7.
    public static func unauthorized(realm: String, reason: String) -> ServiceError {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer realm=\(realm), error=invalid_token, error_description=\(reason)"
        return ServiceError(
            status: .unauthorized, kind: .policyException, messageID: "POL0001", text: "Unauthorized Request",
            variables: "accesstoken", headers: headers)
    }

    /// 503: every recognizer is busy; the client should try again after `retryAfter` seconds.
    public static func busy(retryAfter: Int) -> ServiceError {
        var headers = HTTPFields()
        headers[.retryAfter] = String(retryAfter)
        return ServiceError(
            status: .serviceUnavailable, kind: .serviceException, messageID: "SVC0002",
            text: "every recognizer is busy; retry after \(retryAfter) s", headers: headers)
    }

    /// 503 SVC0002: the service is stopping and its drain timeout has ended this recognition; the
    /// client may retry (on another instance).
    public static func shuttingDown(drainTimeout: Duration, retryAfter: Int) -> ServiceError {
        var error = ServiceError(
            status: .serviceUnavailable, kind: .serviceException, messageID: "SVC0002",
            text: "the service is shutting down and its drain timeout (\(drainTimeout.components.seconds) s) ended "
                + "this recognition; retry")
        error.headers[.retryAfter] = "\(retryAfter)"
        error.headers[.connection] = "close"
        return error
    }

    /// 500 SVC0003: a speech engine failed while synthesizing.
    public static func synthesisFailed(_ error: any Error) -> ServiceError {
        ServiceError(
            status: .internalServerError, kind: .serviceException, messageID: "SVC0003",
            text: "the synthesizer failed: \(error)")
    }

    /// 503 SVC0002: `limit` Text to Speech answers are being made or wait for the synthesis thread
    /// (`--max-syntheses`).
    public static func synthesesBusy(limit: Int, retryAfter: Int) -> ServiceError {
        var error = busy(retryAfter: retryAfter)
        error.text =
            "\(limit) text to speech answer\(limit == 1 ? " is" : "s are") being made or waiting already, this "
            + "service's limit (--max-syntheses); retry after \(retryAfter) s"
        return error
    }

    /// 429 SVC0002: the app already runs `limit` recognitions (`--max-recognitions-per-app`).
    public static func tooManyRecognitions(limit: Int, retryAfter: Int) -> ServiceError {
        var error = ServiceError(
            status: .tooManyRequests, kind: .serviceException, messageID: "SVC0002",
            text: "this app already runs \(limit) recognition\(limit == 1 ? "" : "s") at once, this service's "
                + "limit per app; retry when one has finished")
        error.headers[.retryAfter] = "\(retryAfter)"
        return error
    }

    /// 422 SVC0001: recognizing the request's audio took more CPU than ``RecognitionCPUBudget`` allows
    /// (`--max-cpu-per-audio-second`, `--cpu-grace`), so it was stopped.
    public static func recognitionTooCostly(spent: Duration, audioTime: Double, budget: RecognitionCPUBudget)
        -> ServiceError
    {
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
        var error = ServiceError(
            status: .unprocessableContent, kind: .serviceException, messageID: "SVC0001",
            text: String(
                format: "recognizing this audio took %.1f s of CPU for %.1f s of audio, more than this service allows "
                    + "(--cpu-grace %g s + --max-cpu-per-audio-second %g per second of audio); recognition stopped",
                seconds(spent), audioTime, seconds(budget.grace), budget.perAudioSecond),
            variables: "audio")
        error.headers[.connection] = "close"
        return error
    }

    /// 499 (nginx's "Client Closed Request"): the client closed its connection before the answer, so
    /// the work was stopped. For the log and metrics; no client reads it.
    public static var clientClosedRequest: ServiceError {
        ServiceError(
            status: .init(code: 499, reasonPhrase: "Client Closed Request"), kind: .serviceException,
            messageID: "SVC0001", text: "the client closed the connection before the answer; recognition stopped",
            variables: "body")
    }

    /// The JSON body: `{"RequestError":{"ServiceException":{"MessageId":…,"Text":…,"Variables":…}}}`.
    public var body: Data { document().encoded() }

    /// The `RequestError` document, with `status` beside it for a partial-results stream's last line.
    func document(status: Int? = nil) -> RequestErrorDocument {
        RequestErrorDocument(
            kind: kind.rawValue, exception: .init(messageID: messageID, text: text, variables: variables),
            status: status)
    }
}
