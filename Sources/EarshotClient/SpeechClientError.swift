public import EarshotCore
import EarshotWire
public import Foundation

/// Why an interaction failed: the error codes of the SDK's table 5-6.
public enum SpeechClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `cancel()` was called.
    case canceledByUser
    /// An interaction was started while another was running.
    case attemptAtReentrancy
    /// A property was not valid; the message names it.
    case invalidParameter(String)
    /// The recognition or token URL is not valid.
    case invalidURL(String)
    /// No connection to the service within `connectionTimeout`, or it was refused.
    case connectionFailure(String)
    /// The server did not answer within `serverResponseTimeout`, or dropped the connection.
    case noResponseFromServer(String)
    /// `stopListening()` came before `minRecordingTime` of audio.
    case audioTooShort
    /// Nothing but silence (with `cancelWhenSilent`).
    case noAudio
    /// No capture device could be opened.
    case noMicrophone(String)
    /// The service answered with an HTTP error; its `RequestError` when it sent one, and the seconds
    /// its `Retry-After` asked the client to wait, when it sent one (with a 503, say).
    case httpStatus(Int, RequestError?, retryAfter: Double? = nil)

    /// The seconds the service asked the client to wait before trying again, if it said.
    public var retryAfter: Double? {
        if case .httpStatus(_, _, let seconds) = self { return seconds }
        return nil
    }

    /// A `Retry-After` header's value in seconds from now: delay-seconds, or an HTTP-date (RFC 9110
    /// section 10.2.3); nil for anything else, and for a date in the past.
    public static func retryAfter(header value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) { return Double(value) }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = format.date(from: value) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? seconds : nil
    }

    /// The SDK's code (table 5-6), defined once in ``EarshotError/Code``.
    public var code: EarshotError.Code {
        switch self {
        case .canceledByUser: .canceled
        case .attemptAtReentrancy: .attemptAtReentrancy
        case .invalidParameter: .invalidParameter
        case .invalidURL: .invalidURL
        case .connectionFailure: .connectionFailure
        case .noResponseFromServer: .noResponseFromServer
        case .audioTooShort: .audioTooShort
        case .noAudio: .noAudio
        case .noMicrophone: .noMicrophone
        case .httpStatus: .httpError
        }
    }

    /// The code as people read it in reports: the SDK's name, or `HTTP 503` with the status.
    public var label: String {
        if case .httpStatus(let status, _, _) = self { return "HTTP \(status)" }
        return code.rawValue
    }

    /// The same failure as an ``EarshotError``: its code, and this description as the message.
    public var earshotError: EarshotError { EarshotError(code, description) }

    public var description: String {
        switch self {
        case .canceledByUser: "CanceledByUser: the interaction was canceled"
        case .attemptAtReentrancy: "AttemptAtReentrancy: an interaction is already running"
        case .invalidParameter(let message): "InvalidParameter: \(message)"
        case .invalidURL(let message): "InvalidURL: \(message)"
        case .connectionFailure(let message): "ConnectionFailure: \(message)"
        case .noResponseFromServer(let message): "NoResponseFromServer: \(message)"
        case .audioTooShort: "AudioTooShort: recording stopped before minRecordingTime"
        case .noAudio: "NoAudio: no speech was heard"
        case .noMicrophone(let message): "NoMicrophone: \(message)"
        case .httpStatus(let status, let error?, _): "HTTP \(status): \(error)"
        case .httpStatus(let status, nil, _): "HTTP \(status)"
        }
    }
}

/// The `RequestError` body of a Speech API error answer (section 3.6).
public struct RequestError: Sendable, Equatable, CustomStringConvertible {
    /// `ServiceException` or `PolicyException`.
    public var kind: String
    public var messageID: String
    public var text: String
    public var variables: String

    /// Parses `{"RequestError":{"ServiceException":{"MessageId":…,"Text":…,"Variables":…}}}`.
    public init?(json data: [UInt8]) {
        guard let document = try? JSONDecoder().decode(RequestErrorDocument.self, from: Data(data)),
            let (kind, exception) = document.exception
        else { return nil }
        self.kind = kind
        messageID = exception.messageID
        text = exception.text
        variables = exception.variables
    }

    /// An OAuth token endpoint's refusal (`{"error":"invalid_client"}`, RFC 6749 section 5.2), as
    /// `OAuth invalid_client: …` naming the token URL, so a wrong key or secret reads as one.
    init?(oauth data: [UInt8], tokenURL: String) {
        guard let document = try? JSONDecoder().decode(OAuthErrorDocument.self, from: Data(data)) else { return nil }
        let code = document.error
        kind = "OAuth"
        messageID = code
        let detail = document.errorDescription.map { " (\($0))" } ?? ""
        text =
            "\(tokenURL) refused the token request\(detail)"
            + (code == "invalid_client" ? "; check the app key and secret" : "")
        variables = ""
    }

    /// `ServiceException SVC0001: text`, and the field the service named when the text does not
    /// (`(Variables: Content-Type)`).
    public var description: String {
        let named = variables.isEmpty || text.contains(variables) ? "" : " (Variables: \(variables))"
        return "\(kind) \(messageID): \(text)\(named)"
    }
}
