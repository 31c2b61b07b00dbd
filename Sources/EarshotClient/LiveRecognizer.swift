public import EarshotCore

/// Something that runs live interactions — capture, endpointing, encoding, recognition — one at a
/// time: ``SpeechClient`` (the Speech API, streamed while the user talks) and ``BackendListener`` (any
/// ``RecognitionBackend``, sent whole at the endpoint). `earshot listen` and `earshot bench` drive
/// either through this.
public protocol LiveRecognizer: Sendable {
    /// Starts a live interaction: `open` makes the audio source on the capture thread. Throws
    /// `.attemptAtReentrancy` while another interaction runs.
    func startListening(from open: @escaping @Sendable () throws -> any AudioSource) throws(SpeechClientError)
        -> SpeechInteraction
    /// Releases the connections; call when done (calling it again does nothing).
    func shutdown() async throws
}

extension SpeechClient: LiveRecognizer {}

extension SpeechEvent {
    /// The text of a final answer (`succeeded` or `recognized`): the best hypothesis, empty when
    /// nothing was recognized; nil for every other event.
    public var finalText: String? {
        switch self {
        case .succeeded(let response): response.strings.first ?? ""
        case .recognized(let reply): reply.text
        default: nil
        }
    }
}

/// Makes ``LiveRecognizer``s for one checked service, one per concurrent stream (each runs one
/// interaction at a time).
public struct LiveRecognizerFactory: Sendable {
    /// The protocol and the URL audio is sent to.
    public let api: RecognitionAPI
    public let url: String
    private let make: @Sendable () throws(SpeechClientError) -> any LiveRecognizer

    init(api: RecognitionAPI, url: String, make: @escaping @Sendable () throws(SpeechClientError) -> any LiveRecognizer)
    {
        self.api = api
        self.url = url
        self.make = make
    }

    public func makeRecognizer() throws(SpeechClientError) -> any LiveRecognizer { try make() }
}
