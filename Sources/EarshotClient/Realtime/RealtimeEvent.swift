import EarshotWire
import Foundation

/// The server events of a Realtime transcription session that a live client acts on, read from one
/// text message (OpenAI's shapes, as `earshot serve` sends them). Every other event —
/// `session.created`, `speech_started`, `cleared` — is ``other(_:)``.
enum RealtimeServerEvent: Sendable, Equatable {
    /// `session.updated` (or the beta `transcription_session.updated`): the settings were taken.
    case sessionUpdated
    /// `input_audio_buffer.committed`: a turn's audio was committed as `itemID`.
    case committed(itemID: String)
    /// `conversation.item.input_audio_transcription.delta`: text to add to the item's transcript.
    case delta(itemID: String, text: String)
    /// `conversation.item.input_audio_transcription.completed`: the item's final transcript.
    case completed(itemID: String, transcript: String)
    /// `conversation.item.input_audio_transcription.failed`: the item could not be transcribed.
    case failed(itemID: String, code: String, message: String)
    /// `error`: a client event was refused, or the session is ending (a wrong key, a limit).
    case error(type: String, code: String, message: String)
    /// Any other event, by type (`?` when the message was not an event at all).
    case other(String)

    private struct Wire: Decodable {
        struct Failure: Decodable {
            var type: String?
            var code: String?
            var message: String?
        }
        var type: String
        var itemID: String?
        var delta: String?
        var transcript: String?
        var error: Failure?

        enum CodingKeys: String, CodingKey {
            case type, delta, transcript, error
            case itemID = "item_id"
        }
    }

    init(text: String) {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(text.utf8)) else {
            self = .other("?")
            return
        }
        let item = wire.itemID ?? ""
        switch wire.type {
        case "session.updated", "transcription_session.updated": self = .sessionUpdated
        case "input_audio_buffer.committed": self = .committed(itemID: item)
        case "conversation.item.input_audio_transcription.delta": self = .delta(itemID: item, text: wire.delta ?? "")
        case "conversation.item.input_audio_transcription.completed":
            self = .completed(itemID: item, transcript: wire.transcript ?? "")
        case "conversation.item.input_audio_transcription.failed":
            self = .failed(
                itemID: item, code: wire.error?.code ?? "transcription_failed",
                message: wire.error?.message ?? "the transcription failed")
        case "error":
            self = .error(
                type: wire.error?.type ?? "server_error", code: wire.error?.code ?? wire.error?.type ?? "error",
                message: wire.error?.message ?? "the server sent an error without a message")
        default: self = .other(wire.type)
        }
    }
}

/// The client events a live client sends, as JSON text.
enum RealtimeClientEvent {
    /// `session.update` for a transcription session fed PCM16 at `rate`, transcribed by `model` in
    /// `language` (nil: the server detects it); `turn_detection` null, since the client's own endpointer
    /// ends each utterance with a commit.
    static func sessionUpdate(rate: Int, model: String, language: String?) -> String {
        let event: JSONValue = [
            "type": "session.update", "event_id": "earshot_session_update",
            "session": [
                "type": "transcription",
                "audio": [
                    "input": [
                        "format": ["type": "audio/pcm", "rate": .integer(rate)],
                        "transcription": language.map { ["model": .string(model), "language": .string($0)] }
                            ?? ["model": .string(model)],
                        "turn_detection": nil,
                    ]
                ],
            ],
        ]
        return event.text
    }

    /// `input_audio_buffer.append` with `audio` in base64.
    static func append(_ audio: some Sequence<UInt8>) -> String {
        let event: JSONValue = [
            "type": "input_audio_buffer.append", "audio": .string(Data(audio).base64EncodedString()),
        ]
        return event.text
    }

    static let commit = (["type": "input_audio_buffer.commit"] as JSONValue).text
}
