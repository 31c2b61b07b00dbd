import EarshotCore
import EarshotRecognizer
import EarshotVAD

/// Follows a speech detector's smoothed decisions for the speaker's pauses: a pause is at least
/// ``pauseAfterSpeech`` of silence, on the decisions, after speech; it ends when speech returns. A
/// recognizer that decodes whole utterances begins its final decode at a pause
/// (``EarshotRecognizer/Recognizer/speechPaused()``) and drops it when speech returns
/// (``EarshotRecognizer/Recognizer/speechResumed()``). The upload routes and the Realtime sessions
/// watch the same way.
struct PauseWatch {
    /// Silence after speech, on the smoother's decisions, that counts as a pause: short, since an early
    /// decode dropped when speech resumes costs only CPU, and one begun late may not finish within the
    /// client's ending silence (0.85 s by default). The smoother itself holds a decision back by its
    /// minimum silence and hang-over (about 0.15 s).
    static let pauseAfterSpeech = 0.15

    /// Where the last speech decided ended, and whether the speaker is in a pause.
    private var lastSpeechEnd: MediaTime?
    private(set) var paused = false

    /// Takes the next decision: true when the speaker has just paused, false when speech has just
    /// returned after a pause, nil otherwise.
    mutating func note(_ decision: VADDecision) -> Bool? {
        if decision.isSpeech {
            lastSpeechEnd = decision.end
            guard paused else { return nil }
            paused = false
            return false
        }
        guard !paused, let lastSpeechEnd, decision.decidedAt.seconds - lastSpeechEnd.seconds >= Self.pauseAfterSpeech
        else { return nil }
        paused = true
        return true
    }
}

extension Recognizer {
    /// Tells the recognizer what a ``PauseWatch`` just saw (``PauseWatch/note(_:)``): a pause (true)
    /// begins its early decode, but only while the stream is `live` (``LivePace``: a recording sent at
    /// once gets a file's decode when it ends); speech again (false) drops that decode.
    mutating func notePauseChange(_ change: Bool?, live: Bool) {
        switch change {
        case true? where live: speechPaused()
        case false?: speechResumed()
        default: break
        }
    }
}
