import Foundation

/// The server events of a Realtime transcription session as JSON text, in the shapes of OpenAI's
/// API reference (and the `openai` package's `types/realtime` models): every event has a unique
/// `event_id` and its `type`.
enum RealtimeServerEvent {
    /// `session.created` (or, with `type`, `session.updated` / `transcription_session.updated`).
    static func session(_ type: String, _ session: [String: Any]) -> String {
        encode(["type": type, "session": session])
    }

    static func error(_ refusal: RealtimeRefusal) -> String {
        encode([
            "type": "error",
            "error": [
                "type": refusal.type, "code": refusal.code, "message": refusal.message,
                "param": refusal.param as Any? ?? NSNull(), "event_id": refusal.eventID as Any? ?? NSNull(),
            ] as [String: Any],
        ])
    }

    static func output(_ output: RealtimeTranscriber.Output) -> String {
        switch output {
        case .speechStarted(let item, let start):
            encode(["type": "input_audio_buffer.speech_started", "item_id": item, "audio_start_ms": start])
        case .speechStopped(let item, let end):
            encode(["type": "input_audio_buffer.speech_stopped", "item_id": item, "audio_end_ms": end])
        case .committed(let item, let previous):
            encode([
                "type": "input_audio_buffer.committed", "item_id": item,
                "previous_item_id": previous as Any? ?? NSNull(),
            ])
        case .cleared:
            encode(["type": "input_audio_buffer.cleared"])
        case .delta(let item, let text):
            encode([
                "type": "conversation.item.input_audio_transcription.delta", "item_id": item, "content_index": 0,
                "delta": text,
            ])
        case .completed(let item, let transcript, let seconds):
            encode([
                "type": "conversation.item.input_audio_transcription.completed", "item_id": item,
                "content_index": 0, "transcript": transcript,
                "usage": ["type": "duration", "seconds": (seconds * 1_000).rounded() / 1_000] as [String: Any],
            ])
        case .failed(let item, let message):
            encode([
                "type": "conversation.item.input_audio_transcription.failed", "item_id": item, "content_index": 0,
                "error": [
                    "type": "server_error", "code": "transcription_failed", "message": message, "param": NSNull(),
                ] as [String: Any],
            ])
        }
    }

    private static func encode(_ event: [String: Any]) -> String {
        var event = event
        event["event_id"] = "event_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(24)
        // Plain JSON values only (strings, numbers, null, arrays, objects), so serialization cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
