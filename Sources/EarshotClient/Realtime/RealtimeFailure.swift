import NIOWebSocket

/// How a Realtime session's refusals read as ``SpeechClientError``s, so `listen` and `bench` report and
/// count them as they do the HTTP protocols' answers: a wrong or missing key is a 401, a busy service
/// (no recognizer, no session free) a 503, an app over its share of recognitions a 429, any other
/// refusal a 400 (the client's event) or a 500 (the server's fault), each with the server's code and
/// message.
enum RealtimeFailure {
    /// An `error` event, or a transcription's `failed` event (`type` `server_error`).
    static func error(type: String, code: String, message: String) -> SpeechClientError {
        let body = RequestError(realtime: code, message: message)
        switch code {
        case "invalid_api_key": return .httpStatus(401, body)
        case "overloaded", "session_limit_reached": return .httpStatus(503, body)
        case "rate_limit_exceeded": return .httpStatus(429, body)
        default: return .httpStatus(type == "invalid_request_error" ? 400 : 500, body)
        }
    }

    /// The session ended without an answer: closed by the server with `code` and `reason` (none when
    /// the connection dropped without a close frame).
    static func closed(code: WebSocketErrorCode?, reason: String?, url: String) -> SpeechClientError {
        let said = reason.map { $0.isEmpty ? "" : ": \($0)" } ?? ""
        switch code {
        case .policyViolation?:
            return .httpStatus(
                401,
                RequestError(
                    realtime: reason ?? "policy_violation",
                    message: "\(url) closed the session (1008, policy violation\(said)); check the key"))
        case .unknown(1013)?:
            return .httpStatus(
                503,
                RequestError(
                    realtime: reason ?? "try_again_later",
                    message: "\(url) closed the session (1013, try again later\(said))"))
        case nil:
            return .noResponseFromServer("the connection to \(url) was lost before the transcript came")
        case let code?:
            return .noResponseFromServer("\(url) closed the session before the transcript came (\(code)\(said))")
        }
    }
}

extension RequestError {
    /// A Realtime session's refusal, as `Realtime <code>: <message>`.
    init(realtime code: String, message: String) {
        kind = "Realtime"
        messageID = code
        text = message
        variables = ""
    }
}
