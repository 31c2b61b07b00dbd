public import EarshotVAD

/// What one request's audio may cost the service: how long it may run, and how long it may go
/// without speech before the request ends as the seed's "No Speech" (its `maxInitialSilence`, held
/// by the service so a client sending cheap silence cannot keep a recognizer busy).
public struct AudioLimits: Sendable {
    /// Audio longer than this many seconds is refused with 413.
    public var maxAudioDuration: Double
    /// Seconds of audio in which the detector must find speech; `.infinity` turns the limit off.
    public var maxInitialSilence: Double
    /// The detector that looks for that speech, and the models it needs.
    public var detector: DetectorKind
    public var detectorModels: DetectorModels
    /// Whether the detector watches for the speaker's pauses, so Whisper begins its final decode while
    /// the client's endpointer waits (``InitialSilenceLimit``). On by default.
    public var beginFinalDecodeOnPause = true

    public init(
        maxAudioDuration: Double, maxInitialSilence: Double, detector: DetectorKind = .spectral,
        detectorModels: DetectorModels = .none
    ) {
        self.maxAudioDuration = maxAudioDuration
        self.maxInitialSilence = maxInitialSilence
        self.detector = detector
        self.detectorModels = detectorModels
    }
}
