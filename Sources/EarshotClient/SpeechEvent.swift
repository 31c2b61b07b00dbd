public import EarshotCapture
public import EarshotCore
public import EarshotWire
import Foundation

/// The states of an interaction (the SDK's table 5-7).
public enum SpeechClientState: String, Sendable, Equatable {
    case idle = "Idle"
    case connecting = "Connecting"
    case recording = "Recording"
    case sendingAudioData = "SendingAudioData"
    case processing = "Processing"
    case error = "Error"
}

/// What an interaction reports, in order: the SDK's delegate callbacks (table 5-4) as one stream.
public enum SpeechEvent: Sendable {
    /// The state is about to change.
    case stateChanged(from: SpeechClientState, to: SpeechClientState)
    /// Capture is about to begin.
    case willStartListening
    /// Capture has begun.
    case isListening
    /// The input level, about ten times a second, stamped with media time.
    case audioLevel(AudioLevel, at: MediaTime)
    /// The voice activity detector heard speech begin or end.
    case speechStarted(at: MediaTime)
    case speechEnded(at: MediaTime)
    /// The endpointer would end the recording on silence; `vetoed` when
    /// ``SpeechRequestConfiguration/shouldEndRecording`` kept it listening.
    case shouldEndRecording(at: MediaTime, vetoed: Bool)
    /// Capture has ended, at this media time and for this reason.
    case stoppedListening(at: MediaTime, reason: EndpointReason)
    /// The audio was accepted by the connection: `bytes` so far, `at` the media time sent.
    case audioSent(bytes: Int, at: MediaTime)
    /// A partial hypothesis from the service (with ``SpeechRequestConfiguration/reportsPartialResults``).
    case partialResult(String, audioTime: Double)
    /// The final answer of a Speech API interaction (``SpeechClient``), as the service sent it.
    case succeeded(SpeechResponse)
    /// The final answer of an interaction through a ``RecognitionBackend`` (``BackendListener``).
    case recognized(RecognitionReply)
    /// The interaction failed.
    case failed(SpeechClientError)
}

extension SpeechEvent {
    /// A capture event as the interaction reports it.
    public init(_ event: CaptureEvent) {
        switch event {
        case .audioLevel(let level, let time): self = .audioLevel(level, at: time)
        case .speechStarted(let time): self = .speechStarted(at: time)
        case .speechEnded(let time): self = .speechEnded(at: time)
        case .shouldEndRecording(let time, let vetoed): self = .shouldEndRecording(at: time, vetoed: vetoed)
        case .stoppedListening(let time, let reason): self = .stoppedListening(at: time, reason: reason)
        }
    }
}

/// A recognition answer (the SDK's table 5-5).
public struct SpeechResponse: Sendable {
    /// The HTTP status.
    public var statusCode: Int
    /// Response headers; repeated names have their values joined with ", ".
    public var headers: [String: String]
    /// The raw body.
    public var data: [UInt8]

    /// The hypotheses, best first (`Recognition.NBest[*].Hypothesis`); empty when none.
    public var strings: [String] { document?.recognition.nBest?.map(\.hypothesis) ?? [] }

    /// The body as a Speech to Text document, or nil when it is not one.
    public var document: RecognitionDocument? { try? JSONDecoder().decode(RecognitionDocument.self, from: Data(data)) }

    /// `Recognition.Status` ("OK", "No Speech").
    public var status: String? { document?.recognition.status }
}
