import EarshotWire
import Foundation

/// The server events of a Realtime transcription session as JSON text, in the shapes of OpenAI's
/// API reference (and the `openai` package's `types/realtime` models): every event has a unique
/// `event_id` and its `type`.
enum RealtimeServerEvent {
    /// `session.created` (or, with `type`, `session.updated` / `transcription_session.updated`).
    static func session(_ type: String, _ session: JSONValue) -> String {
        encode(["type": .string(type), "session": session])
    }

    static func error(_ refusal: RealtimeRefusal) -> String {
        encode([
            "type": "error",
            "error": [
                "type": .string(refusal.type), "code": .string(refusal.code), "message": .string(refusal.message),
                "param": JSONValue(refusal.param), "event_id": JSONValue(refusal.eventID),
            ],
        ])
    }

    static func output(_ output: RealtimeTranscriber.Output) -> String {
        switch output {
        case .speechStarted(let item, let start):
            encode([
                "type": "input_audio_buffer.speech_started", "item_id": .string(item),
                "audio_start_ms": .integer(start),
            ])
        case .speechStopped(let item, let end):
            encode([
                "type": "input_audio_buffer.speech_stopped", "item_id": .string(item), "audio_end_ms": .integer(end),
            ])
        case .committed(let item, let previous):
            encode([
                "type": "input_audio_buffer.committed", "item_id": .string(item),
                "previous_item_id": JSONValue(previous),
            ])
        case .cleared:
            encode(["type": "input_audio_buffer.cleared"])
        case .delta(let item, let text):
            encode([
                "type": "conversation.item.input_audio_transcription.delta", "item_id": .string(item),
                "content_index": 0, "delta": .string(text),
            ])
        case .completed(let item, let transcript, let seconds):
            encode([
                "type": "conversation.item.input_audio_transcription.completed", "item_id": .string(item),
                "content_index": 0, "transcript": .string(transcript),
                "usage": ["type": "duration", "seconds": .number((seconds * 1_000).rounded() / 1_000)],
            ])
        case .failed(let item, let message):
            encode([
                "type": "conversation.item.input_audio_transcription.failed", "item_id": .string(item),
                "content_index": 0,
                "error": [
                    "type": "server_error", "code": "transcription_failed", "message": .string(message), "param": nil,
                ],
            ])
        }
    }

    private static func encode(_ event: [String: JSONValue]) -> String {
        var event = event
        event["event_id"] = .string(
            "event_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(24))
        return JSONValue.object(event).text
    }
}
