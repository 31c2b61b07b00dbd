import EarshotRecognizer

/// Everything `earshot serve` can set, with the seed's defaults where it has them.
public struct ServiceConfiguration: Sendable {
    /// The address to listen on; loopback by default, so nothing is exposed unless asked.
    public var host: String
    /// The port; 0 picks a free one (read it back from `SpeechService.run(onListening:)`).
    public var port: Int
    /// The apps that may ask for tokens.
    public var credentials: Credentials
    /// Access tokens two hours, refresh tokens a day, as in section 3.5.
    public var tokenLifetimes: TokenStore.Lifetimes
    /// Requests whose audio runs longer than this many seconds are refused with 413.
    public var maxAudioDuration: Double
    /// The largest lexicon or grammar part a Speech to Text Custom request may send, in bytes (413 beyond).
    public var maxGrammarBytes: Int
    /// A request whose body sends nothing for this long gets 408 and its connection is closed.
    public var readTimeout: Duration
    /// Recognizers that may run at once; more concurrent requests get 503.
    public var recognizerCount: Int
    /// Recognizers loaded at start, so the first requests do not wait for the model.
    public var preloadedRecognizers: Int
    /// The seconds `Retry-After` suggests when every recognizer is busy.
    public var retryAfterSeconds: Int
    /// The realm of the `WWW-Authenticate` challenge.
    public var realm: String
    /// The model every recognizer loads.
    public var recognizer: PocketSphinxConfiguration

    public init(
        host: String = "127.0.0.1", port: Int = 8080, credentials: Credentials,
        tokenLifetimes: TokenStore.Lifetimes = .init(), maxAudioDuration: Double = 60,
        maxGrammarBytes: Int = 1 << 20,        readTimeout: Duration = .seconds(10), recognizerCount: Int = 4, preloadedRecognizers: Int = 1,
        retryAfterSeconds: Int = 1, realm: String = "earshot", recognizer: PocketSphinxConfiguration = .default
    ) {
        self.host = host
        self.port = port
        self.credentials = credentials
        self.tokenLifetimes = tokenLifetimes
        self.maxAudioDuration = maxAudioDuration
        self.maxGrammarBytes = maxGrammarBytes
        self.readTimeout = readTimeout
        self.recognizerCount = recognizerCount
        self.preloadedRecognizers = preloadedRecognizers
        self.retryAfterSeconds = retryAfterSeconds
        self.realm = realm
        self.recognizer = recognizer
    }
}
