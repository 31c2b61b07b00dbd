import EarshotWire
import Foundation
import Hummingbird

/// An error in the shape OpenAI's API and its clients use:
/// `{"error": {"message", "type", "param", "code"}}`, with the status and headers (`Retry-After`,
/// `WWW-Authenticate`, `Connection: close`) of the ``ServiceError`` it renders. The official clients
/// raise by status (400 `BadRequestError`, 401 `AuthenticationError`, 413, 503 …) and show `message`.
enum OpenAIError {
    typealias Body = OpenAITranscription.ErrorBody

    static func body(for error: ServiceError) -> Body {
        let type: String
        var code: String?
        switch error.status.code {
        case 401:
            (type, code) = ("invalid_request_error", "invalid_api_key")
        case 408:
            (type, code) = ("invalid_request_error", "timeout")
        case 413:
            (type, code) = ("invalid_request_error", "request_too_large")
        case 503:
            (type, code) = ("server_error", "overloaded")
        case 500...:
            type = "server_error"
        default:
            type = "invalid_request_error"
        }
        return Body(
            error: .init(
                message: error.text, type: type, param: error.variables.isEmpty ? nil : error.variables, code: code))
    }

    static func response(for error: ServiceError) -> Response {
        var headers = error.headers
        headers[.contentType] = "application/json"
        let data = (try? JSONEncoder.wire.encode(body(for: error))) ?? Data()
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
