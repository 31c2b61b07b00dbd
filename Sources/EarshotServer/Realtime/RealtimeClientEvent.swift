import EarshotWire
import Foundation

/// A refusal of one client event, sent back as an `error` event (``RealtimeServerEvent/error(_:)``):
/// OpenAI's `type`, `code`, a message naming the field and what was expected, `param` (the field's
/// path, as `session.audio.input.format.rate`) and the `event_id` of the client event it answers.
/// The session stays usable after it.
struct RealtimeRefusal: Error, Sendable, Equatable {
    var type = "invalid_request_error"
    var code: String
    var message: String
    var param: String?
    var eventID: String?

    static func invalidValue(_ param: String, _ message: String) -> RealtimeRefusal {
        RealtimeRefusal(code: "invalid_value", message: message, param: param)
    }

    static func missing(_ param: String, _ expected: String) -> RealtimeRefusal {
        RealtimeRefusal(
            code: "missing_required_parameter", message: "\(param) is missing; expected \(expected)", param: param)
    }
}

/// What a client sends on a Realtime transcription session, parsed from one text message. Both
/// the GA names and the beta ones (`transcription_session.update`) are read; every other event type
/// of the Realtime API is refused by name, since a transcription session has no responses or items.
enum RealtimeClientEvent: Sendable {
    /// `session.update` or `transcription_session.update`: the JSON object under `session`, checked by
    /// ``RealtimeSessionSettings/applying(_:models:languages:)``; `reply` is the answer's type
    /// (`session.updated`, or `transcription_session.updated` for the beta name).
    case updateSession([String: JSONValue], reply: String)
    /// `input_audio_buffer.append`: the decoded bytes of `audio`.
    case append([UInt8])
    case commit
    case clear

    /// Parses `text`; the event's `event_id`, if it could be read, comes back with it or with the
    /// refusal (so the error names the event that caused it).
    static func parse(_ text: String) -> (eventID: String?, result: Result<RealtimeClientEvent, RealtimeRefusal>) {
        guard let object = JSONValue(parsing: text) else {
            return (
                nil,
                .failure(
                    RealtimeRefusal(
                        code: "invalid_json",
                        message: "the message is not JSON; expected one JSON object per text message, such as "
                            + #"{"type":"input_audio_buffer.append","audio":"<base64>"}"#))
            )
        }
        guard let fields = object.object else {
            return (
                nil,
                .failure(
                    RealtimeRefusal(
                        code: "invalid_json",
                        message: "the message is JSON but not an object; expected "
                            + "an object with a type field"))
            )
        }
        let eventID = fields["event_id"]?.string
        func refuse(_ refusal: RealtimeRefusal) -> (String?, Result<RealtimeClientEvent, RealtimeRefusal>) {
            var refusal = refusal
            refusal.eventID = eventID
            return (eventID, .failure(refusal))
        }
        guard let type = fields["type"]?.string else {
            return refuse(.missing("type", "a client event type such as input_audio_buffer.append"))
        }
        switch type {
        case "session.update", "transcription_session.update":
            guard let session = fields["session"]?.object else {
                return refuse(.missing("session", "an object with the session's settings"))
            }
            return (eventID, .success(.updateSession(session, reply: type + "d")))
        case "input_audio_buffer.append":
            guard let audio = fields["audio"]?.string else {
                return refuse(.missing("audio", "base64 of the audio bytes in the session's input format"))
            }
            guard let bytes = Data(base64Encoded: audio) else {
                return refuse(
                    .invalidValue(
                        "audio",
                        "audio is not valid base64 (\(audio.utf8.count) characters); expected the audio "
                            + "bytes in standard base64 with padding"))
            }
            return (eventID, .success(.append([UInt8](bytes))))
        case "input_audio_buffer.commit":
            return (eventID, .success(.commit))
        case "input_audio_buffer.clear":
            return (eventID, .success(.clear))
        default:
            let shown = type.count > 64 ? String(type.prefix(64)) + "…" : type
            return refuse(
                RealtimeRefusal(
                    code: "unknown_event_type",
                    message: "\(shown) is not an event of a transcription session; expected session.update, "
                        + "input_audio_buffer.append, input_audio_buffer.commit or input_audio_buffer.clear",
                    param: "type"))
        }
    }
}
