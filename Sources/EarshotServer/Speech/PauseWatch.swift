import EarshotCore
import EarshotRecognizer
import EarshotVAD

/// Follows a speech detector's smoothed decisions for the speaker's pauses: a pause is at least
/// ``pauseAfterSpeech`` of silence, on the decisions, after speech; it ends when speech returns. A
/// recognizer that decodes whole utterances begins its final decode at a pause
/// (``EarshotRecognizer/Recognizer/speechPaused(at:)``) and drops it when speech returns
/// (``EarshotRecognizer/Recognizer/speechResumed()``). The upload routes and the Realtime sessions
/// watch the same way.
struct PauseWatch {
    /// Silence after speech, on the smoother's decisions, that counts as a pause: short, since an early
    /// decode dropped when speech resumes costs only CPU. The recognizer decides how much silence its
    /// decode hears (``EarshotRecognizer/Recognizer/speechPaused(at:)``); the smoother itself holds a
    /// decision back by its minimum silence and hang-over (about 0.15 s).
    static let pauseAfterSpeech = 0.15

    /// What a decision changed.
    enum Change: Equatable {
        /// The speaker paused; the speech ended here.
        case paused(speechEnd: MediaTime)
        /// Speech came back after a pause.
        case resumed
    }

    /// Where the last speech decided ended, and whether the speaker is in a pause.
    private var lastSpeechEnd: MediaTime?
    private(set) var paused = false

    /// Takes the next decision: what it changed, if anything.
    mutating func note(_ decision: VADDecision) -> Change? {
        if decision.isSpeech {
            lastSpeechEnd = decision.end
            guard paused else { return nil }
            paused = false
            return .resumed
        }
        guard !paused, let lastSpeechEnd, decision.decidedAt.seconds - lastSpeechEnd.seconds >= Self.pauseAfterSpeech
        else { return nil }
        paused = true
        return .paused(speechEnd: lastSpeechEnd)
    }
}

extension Recognizer {
    /// Tells the recognizer what a ``PauseWatch`` just saw (``PauseWatch/note(_:)``): a pause begins its
    /// early decode, but only while the stream is `live` (``LivePace``: a recording sent at once gets a
    /// file's decode when it ends); speech again drops that decode.
    mutating func notePauseChange(_ change: PauseWatch.Change?, live: Bool) {
        switch change {
        case .paused(let speechEnd)? where live: speechPaused(at: speechEnd)
        case .resumed?: speechResumed()
        default: break
        }
    }
}
