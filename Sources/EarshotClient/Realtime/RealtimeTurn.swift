/// One utterance of a Realtime session as the client follows it, a pure state machine fed the server's
/// events: deltas grow the text shown as a partial result, the transcript completed after the client's
/// commit answers the utterance, and an `error` or `failed` event fails it.
///
/// The client commits each utterance itself (`turn_detection` null), so the server commits on its own
/// only when a turn reaches its longest allowed audio; a transcript completed before the client's commit
/// is such a turn's, and is kept to begin the answer with.
struct RealtimeTurn: Sendable {
    /// What an event means for the interaction.
    enum Step: Sendable, Equatable {
        case nothing
        /// The text heard so far.
        case partial(String)
        case answered(RecognitionReply)
        case failed(SpeechClientError)
    }

    private var completed: [String] = []
    private var item: String?
    private var grown = ""
    private var commitSent = false

    /// The client has sent (or is sending) its commit: the next transcript completed answers it.
    mutating func committed() { commitSent = true }

    mutating func receive(_ event: RealtimeServerEvent) -> Step {
        switch event {
        case .delta(let itemID, let text):
            if itemID != item {
                item = itemID
                grown = ""
            }
            grown += text
            return .partial(Self.joined(completed + [grown]))
        case .completed(_, let transcript):
            completed.append(transcript)
            item = nil
            grown = ""
            return commitSent ? .answered(RecognitionReply(text: Self.joined(completed))) : .nothing
        case .failed(_, let code, let message):
            return .failed(RealtimeFailure.error(type: "server_error", code: code, message: message))
        case .error(let type, let code, let message):
            return .failed(RealtimeFailure.error(type: type, code: code, message: message))
        case .sessionUpdated, .committed, .other:
            return .nothing
        }
    }

    /// Texts as one, whitespace normalized.
    private static func joined(_ texts: [String]) -> String {
        texts.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
