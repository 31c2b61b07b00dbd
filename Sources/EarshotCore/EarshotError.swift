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
        /// The caller stopped the work (the seed SDK's `CanceledByUser`).
        public static let canceled = Code(rawValue: "CanceledByUser")

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
