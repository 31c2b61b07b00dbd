public import EarshotCapture
public import EarshotCodecs
public import EarshotCore
public import EarshotVAD
import Foundation

/// How a speech interaction talks to the service: the request properties of the SDK's table 5-2,
/// with Swift names and the SDK's defaults.
public struct SpeechRequestConfiguration: Sendable {
    /// The recognition service (`…/speech/v3/speechToText` or `…/speechToTextCustom`).
    public var recognitionURL: String
    /// `X-SpeechContext`.
    public var speechContext: String
    /// How the request is authorized: a token, or app credentials to fetch one.
    public var authorization: Authorization
    /// How live audio is captured, encoded and endpointed (the properties below forward to it).
    public var capture: CaptureConfiguration
    /// `Content-Type` for `start(audioData:)` uploads; nil uses the audio format's.
    public var contentType: String?
    /// `X-Arg` pairs, merged after the generated defaults (a pair here replaces a default's value).
    public var extraArguments: [(name: String, value: String)]
    /// Whether to generate the SDK's default X-Args (ClientSdk, DeviceType, DeviceOs, DeviceTime,
    /// ClientApp, ClientVersion).
    public var sendsDefaultXArgs: Bool
    /// Extra request headers.
    public var requestHeaders: [(name: String, value: String)]
    /// The HTTP method, POST unless set.
    public var httpMethod: String
    /// For multipart requests (Speech to Text Custom): parts sent before the audio (inline grammars,
    /// lexicons) and after it; the audio becomes the `x-voice` part.
    public var partsBeforeAudio: [Part]
    public var partsAfterAudio: [Part]
    /// Seconds to wait for a connection (10, as the SDK).
    public var connectionTimeout: Double
    /// Seconds to wait for the server's answer once the audio has been sent (30, as the SDK).
    public var serverResponseTimeout: Double
    /// Asks the service for partial results (Earshot's extension: `X-Arg: PartialResults=true` and
    /// `Accept: application/x-ndjson`).
    public var reportsPartialResults: Bool
    /// Name and version reported in the default X-Args.
    public var clientApp: String
    public var clientVersion: String

    public enum Authorization: Sendable {
        /// A bearer token obtained elsewhere.
        case token(String)
        /// App key and secret: a token is fetched from `tokenURL` (default: the service's
        /// `/oauth/token`) for `scope`, refreshed when it expires, and fetched again after a 401.
        case credentials(appKey: String, secret: String, scope: String, tokenURL: String?)
    }

    /// One part of a multipart body.
    public struct Part: Sendable {
        public var name: String
        public var contentType: String
        public var data: [UInt8]

        public init(name: String, contentType: String, data: [UInt8]) {
            self.name = name
            self.contentType = contentType
            self.data = data
        }
    }

    public init(
        recognitionURL: String, speechContext: String = "Generic", authorization: Authorization,
        audioFormat: CodecFormat = .speexWideband
    ) {
        self.recognitionURL = recognitionURL
        self.speechContext = speechContext
        self.authorization = authorization
        capture = CaptureConfiguration(audioFormat: audioFormat)
        contentType = nil
        extraArguments = []
        sendsDefaultXArgs = true
        requestHeaders = []
        httpMethod = "POST"
        partsBeforeAudio = []
        partsAfterAudio = []
        connectionTimeout = 10
        serverResponseTimeout = 30
        reportsPartialResults = false
        clientApp = "earshot"
        clientVersion = "0.1"
    }

    /// The format microphone audio is encoded in (Speex wideband, as the SDK).
    public var audioFormat: CodecFormat {
        get { capture.audioFormat }
        set { capture.audioFormat = newValue }
    }
    /// The endpointing properties (maxInitialSilence, endingSilence, minRecordingTime,
    /// maxRecordingTime, cancelWhenSilent).
    public var endpointing: EndpointerConfiguration {
        get { capture.endpointing }
        set { capture.endpointing = newValue }
    }
    /// The voice activity detector that feeds the endpointer (``CaptureConfiguration/detector``).
    public var detector: DetectorKind {
        get { capture.detector }
        set { capture.detector = newValue }
    }
    /// The models a learned detector needs.
    public var detectorModels: DetectorModels {
        get { capture.detectorModels }
        set { capture.detectorModels = newValue }
    }
    /// The SDK's `speechServiceShouldEndRecording:` (``CaptureConfiguration/shouldEndRecording``).
    public var shouldEndRecording: (@Sendable (MediaTime) -> Bool)? {
        get { capture.shouldEndRecording }
        set { capture.shouldEndRecording = newValue }
    }

    /// Whether the body is `multipart/x-srgs-audio`.
    public var isMultipart: Bool { !partsBeforeAudio.isEmpty || !partsAfterAudio.isEmpty }

    /// Checks every property; throws ``SpeechClientError`` `.invalidURL` or `.invalidParameter`
    /// naming the property.
    public func validate() throws(SpeechClientError) {
        guard let url = URL(string: recognitionURL), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else {
            throw .invalidURL("recognitionURL \"\(recognitionURL)\" is not an http(s) URL with a host")
        }
        if case .credentials(_, _, _, let tokenURL?) = authorization {
            guard let url = URL(string: tokenURL), url.host?.isEmpty == false else {
                throw .invalidURL("tokenURL \"\(tokenURL)\" is not an http(s) URL with a host")
            }
        }
        guard !speechContext.isEmpty, !speechContext.contains(where: { $0.isNewline }) else {
            throw .invalidParameter("speechContext must be a non-empty header value")
        }
        guard connectionTimeout.isFinite, connectionTimeout > 0 else {
            throw .invalidParameter("connectionTimeout \(connectionTimeout); expected seconds > 0")
        }
        guard serverResponseTimeout.isFinite, serverResponseTimeout > 0 else {
            throw .invalidParameter("serverResponseTimeout \(serverResponseTimeout); expected seconds > 0")
        }
        guard ["POST", "PUT"].contains(httpMethod.uppercased()) else {
            throw .invalidParameter("httpMethod \(httpMethod); expected POST (or PUT)")
        }
        for (name, value) in requestHeaders where name.isEmpty || (name + value).contains(where: \.isNewline) {
            throw .invalidParameter("requestHeaders: \"\(name)\" is not a valid header")
        }
        for (name, _) in extraArguments where name.isEmpty || name.contains(where: { $0 == "," || $0 == "=" }) {
            throw .invalidParameter("xArgs: \"\(name)\" is not a valid argument name")
        }
    }
}
