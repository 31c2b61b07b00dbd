#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#elseif canImport(Darwin)
    public import Darwin
#endif

/// Something a stage observed, stamped with the media time at which it happened.
///
/// The event vocabulary is one closed enum so that consumers (the CLI, the client's event stream, the
/// lab's metrics) can switch over it exhaustively; each stage family adds its cases here as it lands.
/// Every payload is a small value, so posting an event never allocates.
public struct StageEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Level of one metering window (the seed SDK's `audioLevel` callback, ~10 per second).
        case level(AudioLevel)
        /// Speech began (after smoothing): the time is the first sample of speech, padding included.
        case speechStart
        /// Speech ended (after smoothing): the time is the first sample after speech, padding included.
        case speechEnd
        /// The endpointer stopped listening, for `reason`: the time is the media time at which it decided.
        case endpoint(EndpointReason)
        /// How the interaction ended (the seed SDK's success, `NoAudio`, `AudioTooShort`, or a cancel).
        case outcome(InteractionOutcome)
    }

    /// When it happened: for a window, the start of the window; for a decision, the media time at which
    /// it could be made (see each case).
    public var time: MediaTime
    public var kind: Kind

    public init(time: MediaTime, kind: Kind) {
        self.time = time
        self.kind = kind
    }
}

/// The level of a stretch of audio: RMS and peak relative to full scale, and a count of clipped samples.
///
/// Levels are in dBFS with a full-scale sine at 0 dBFS peak and −3.01 dBFS RMS (RMS is not
/// re-referenced to the sine, unlike AES17). Silence is −∞ dBFS.
public struct AudioLevel: Sendable, Equatable {
    /// Frames measured, at the rate of the audio measured.
    public var frameCount: Int
    /// Root mean square of all samples in the window, in dBFS.
    public var rmsDBFS: Float
    /// Largest absolute sample value, in dBFS.
    public var peakDBFS: Float
    /// Samples at or beyond the clipping threshold.
    public var clippedSamples: Int

    public init(frameCount: Int, rmsDBFS: Float, peakDBFS: Float, clippedSamples: Int) {
        self.frameCount = frameCount
        self.rmsDBFS = rmsDBFS
        self.peakDBFS = peakDBFS
        self.clippedSamples = clippedSamples
    }

    /// Converts a linear amplitude to dBFS; zero is −∞.
    @inlinable
    public static func decibels(_ amplitude: Float) -> Float {
        amplitude > 0 ? 20 * log10f(amplitude) : -.infinity
    }
}

#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#elseif canImport(Darwin)
    public import Darwin
#endif

/// Why the endpointer stopped listening (section 4.4.6 of the seed SDK: silence, timeouts, manual stop).
public enum EndpointReason: String, Sendable, Equatable, CaseIterable, Codable {
    /// Enough silence followed speech (`endingSilence`, or a rule of the rule set).
    case endingSilence
    /// `maxRecordingTime` was reached, even while the user was talking.
    case maxRecordingTime
    /// No speech before `maxInitialSilence`.
    case initialSilenceTimeout
    /// The application called `stop()` (the SDK's `stopListening`).
    case manualStop
    /// The input ended (a file ran out) before any other endpoint.
    case endOfInput
}

/// How an interaction ended, in the seed SDK's terms.
public enum InteractionOutcome: String, Sendable, Equatable, CaseIterable, Codable {
    /// Audio with speech was captured and goes to the recognizer.
    case audioCaptured
    /// No speech was heard and `cancelWhenSilent` is on: nothing is sent (`NoAudio`).
    case noAudio
    /// A manual stop came before `minRecordingTime` (`AudioTooShort`).
    case audioTooShort
    /// The application cancelled: nothing is sent and no result is delivered (`CanceledByUser`).
    case canceled
}
