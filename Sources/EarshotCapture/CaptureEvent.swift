public import EarshotCore

/// What capture reports as it runs, in media time: the capture part of the SDK's delegate callbacks.
public enum CaptureEvent: Sendable, Equatable {
    /// The input level, about ten times a second.
    case audioLevel(AudioLevel, at: MediaTime)
    /// The voice activity detector heard speech begin or end.
    case speechStarted(at: MediaTime)
    case speechEnded(at: MediaTime)
    /// The endpointer would end the recording on silence; `vetoed` when
    /// ``CaptureConfiguration/shouldEndRecording`` kept it listening.
    case shouldEndRecording(at: MediaTime, vetoed: Bool)
    /// Capture has ended, at this media time and for this reason.
    case stoppedListening(at: MediaTime, reason: EndpointReason)
}
