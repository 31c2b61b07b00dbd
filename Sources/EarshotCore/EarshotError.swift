/// An error from any Earshot stage: a stable code and a message that names the file or field and
/// says what was expected.
///
/// Codes are stable API (scripts and the service map them to exit codes and HTTP errors); messages are
/// for people and may be reworded.
public struct EarshotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The input is missing, unreadable, or not what it claims to be.
        public static let invalidInput = Code(rawValue: "InvalidInput")
        /// The input is well formed but its format (rate, channels, encoding) is not supported.
        public static let unsupportedFormat = Code(rawValue: "UnsupportedFormat")
        /// A configuration value is out of range (the seed SDK's `InvalidParameter`).
        public static let invalidParameter = Code(rawValue: "InvalidParameter")
        /// An output could not be written.
        public static let writeFailed = Code(rawValue: "WriteFailed")
        /// The recognizer's model is missing or could not be loaded.
        public static let modelUnavailable = Code(rawValue: "ModelUnavailable")
        /// The recognizer failed while decoding.
        public static let recognizerFailed = Code(rawValue: "RecognizerFailed")
        /// No audio capture device could be opened (the seed SDK's `NoMicrophone`).
        public static let noMicrophone = Code(rawValue: "NoMicrophone")
        /// A service could not listen on its address (in use, not permitted, not this machine's): an I/O
        /// failure, not a usage error.
        public static let listenFailed = Code(rawValue: "ListenFailed")
        /// The caller stopped the work (the seed SDK's `CanceledByUser`).
        public static let canceled = Code(rawValue: "CanceledByUser")

        // The rest of the seed SDK's error codes (its table 5-6), which the speech client reports; the
        // three above are the SDK's too, defined once here for every module.

        /// An interaction was started while another was running (`AttemptAtReentrancy`).
        public static let attemptAtReentrancy = Code(rawValue: "AttemptAtReentrancy")
        /// The recognition or token URL is not valid (`InvalidURL`).
        public static let invalidURL = Code(rawValue: "InvalidURL")
        /// No connection to the service, or it was refused (`ConnectionFailure`).
        public static let connectionFailure = Code(rawValue: "ConnectionFailure")
        /// The service did not send a full response in time, or dropped the connection (`NoResponseFromServer`).
        public static let noResponseFromServer = Code(rawValue: "NoResponseFromServer")
        /// Recording stopped before `minRecordingTime` (`AudioTooShort`).
        public static let audioTooShort = Code(rawValue: "AudioTooShort")
        /// Nothing but silence, with `cancelWhenSilent` (`NoAudio`).
        public static let noAudio = Code(rawValue: "NoAudio")
        /// The service answered with an HTTP error status (the SDK reports these in the HTTP domain).
        public static let httpError = Code(rawValue: "HTTPError")

        public var description: String { rawValue }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
