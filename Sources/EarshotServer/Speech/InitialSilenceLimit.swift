import EarshotCore
import EarshotVAD

/// Passes audio through unchanged while a voice activity detector looks for the first speech; if
/// none is found in the first `limit` seconds, the request ends (``RecognitionSessionFailure/noSpeech(limit:)``).
///
/// With `watchPauses`, the detector stays on after the first speech and the stage notes each pause of
/// at least ``PauseWatch/pauseAfterSpeech`` and each return of speech (``takePauseChanges()``), so a recognizer that
/// decodes whole utterances can begin its final decode while the client's endpointer waits out its
/// ending silence (``EarshotRecognizer/Recognizer/speechPaused(at:)``). Without it, once speech is found the
/// detector is dropped: it costs nothing for the rest of the request.
///
/// This bounds what a body of silence costs, whatever it costs to send: an AMR stream of NO_DATA
/// frames is a byte per 20 ms, but every second of it is a second of audio for the recognizer.
struct InitialSilenceLimit: AudioStage {
    let limit: Double
    let watchPauses: Bool
    private var detector: SpeechDetectorStage?
    private var decisions = StageOutput<VADDecision>()
    private var heard = false
    private var pauses = PauseWatch()

    /// The pauses and returns of speech seen since ``takePauseChanges()`` was last called, in order: a
    /// body chunk decodes to several buffers, and a pause seen in any of them counts.
    private var pauseChanges: [PauseWatch.Change] = []

    /// The pauses and returns of speech seen since the last call, in order.
    mutating func takePauseChanges() -> [PauseWatch.Change] {
        defer { pauseChanges.removeAll(keepingCapacity: true) }
        return pauseChanges
    }

    /// A limit of `.infinity` without `watchPauses` makes a pass-through stage that runs no detector.
    init(
        limit: Double, detector kind: DetectorKind, models: DetectorModels, sampleRate: Int, watchPauses: Bool = false
    ) throws {
        self.limit = limit
        self.watchPauses = watchPauses
        if limit.isFinite || watchPauses {
            detector = try SpeechDetectorStage(
                detector: kind, models: models, smoothing: try SmoothingConfiguration(), sampleRate: sampleRate)
        } else {
            heard = true
        }
    }

    /// Whether speech has been found (always true when the limit is off and pauses are not watched).
    var heardSpeech: Bool { heard }

    mutating func process(_ input: AudioBuffer, into output: inout StageOutput<AudioBuffer>) throws {
        if detector != nil {
            decisions.removeAll()
            try detector!.process(input, into: &decisions)
            if !heard {
                if decisions.items.contains(where: \.isSpeech) {
                    heard = true
                    if !watchPauses { detector = nil }
                } else if limit.isFinite, let decided = decisions.items.last, decided.end.seconds >= limit {
                    // Judged on what the smoother has decided, not on what it has been fed: speech starting
                    // just before the limit, still in its look-ahead, is not cut off.
                    throw RecognitionSessionFailure.noSpeech(limit: limit)
                }
            }
            if watchPauses { notePauses() }
        }
        output.emit(input)
    }

    private mutating func notePauses() {
        for decision in decisions.items {
            if let change = pauses.note(decision) { pauseChanges.append(change) }
        }
    }

    mutating func finish(into output: inout StageOutput<AudioBuffer>) throws {}
}
