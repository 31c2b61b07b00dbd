import EarshotCore
import EarshotVAD

/// Passes audio through unchanged while a voice activity detector looks for the first speech; if
/// none is found in the first `limit` seconds, the request ends (``RecognitionSessionFailure/noSpeech(limit:)``).
/// Once speech is found, the detector is dropped: it costs nothing for the rest of the request.
///
/// This bounds what a body of silence costs, whatever it costs to send: an AMR stream of NO_DATA
/// frames is a byte per 20 ms, but every second of it is a second of audio for the recognizer.
struct InitialSilenceLimit: AudioStage {
    let limit: Double
    private var detector: SpeechDetectorStage?
    private var decisions = StageOutput<VADDecision>()

    /// A limit of `.infinity` makes a pass-through stage that runs no detector.
    init(limit: Double, detector kind: DetectorKind, models: DetectorModels, sampleRate: Int) throws {
        self.limit = limit
        if limit.isFinite {
            detector = try SpeechDetectorStage(
                detector: kind, models: models, smoothing: try SmoothingConfiguration(), sampleRate: sampleRate)
        }
    }

    /// Whether speech has been found (always true when the limit is off).
    var heardSpeech: Bool { detector == nil }

    mutating func process(_ input: AudioBuffer, into output: inout StageOutput<AudioBuffer>) throws {
        if detector != nil {
            decisions.removeAll()
            try detector!.process(input, into: &decisions)
            if decisions.items.contains(where: \.isSpeech) {
                detector = nil
            } else if let decided = decisions.items.last, decided.end.seconds >= limit {
                // Judged on what the smoother has decided, not on what it has been fed: speech starting
                // just before the limit, still in its look-ahead, is not cut off.
                throw RecognitionSessionFailure.noSpeech(limit: limit)
            }
        }
        output.emit(input)
    }

    mutating func finish(into output: inout StageOutput<AudioBuffer>) throws {}
}
