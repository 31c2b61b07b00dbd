public import EarshotCodecs
public import EarshotCore
public import EarshotVAD

/// How live audio is captured for one interaction: the wire format it is encoded in, the voice
/// activity detector and the endpointing properties that decide when capture ends (the capture half
/// of the SDK's request properties, table 5-2; the HTTP half is the client's).
public struct CaptureConfiguration: Sendable {
    /// The format audio is encoded in (Speex wideband, as the SDK); capture runs at its rate.
    public var audioFormat: CodecFormat
    /// The endpointing properties (maxInitialSilence, endingSilence, minRecordingTime,
    /// maxRecordingTime, cancelWhenSilent).
    public var endpointing: EndpointerConfiguration
    /// The voice activity detector that feeds the endpointer. Default ``DetectorKind/spectral``; set
    /// ``DetectorKind/silero`` together with ``detectorModels``.
    public var detector: DetectorKind
    /// The models a learned detector needs (loaded once by the caller). Default none.
    public var detectorModels: DetectorModels
    /// The SDK's `speechServiceShouldEndRecording:`: asked when the endpointer would end the
    /// recording on silence; returning false keeps listening.
    public var shouldEndRecording: (@Sendable (MediaTime) -> Bool)?

    public init(audioFormat: CodecFormat = .speexWideband) {
        self.audioFormat = audioFormat
        // The SDK's defaults are valid by construction.
        endpointing = try! EndpointerConfiguration()
        detector = .spectral
        detectorModels = .none
        shouldEndRecording = nil
    }
}
