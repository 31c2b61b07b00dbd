import Foundation
public import EarshotModels
public import EarshotRecognizer
public import EarshotSynthesis
public import EarshotVAD

/// Everything `earshot serve` can set, with the seed's defaults where it has them.
///
/// The limits are what keep one client from taking the service from the others: the size of a
/// request (`maxAudioDuration`, `maxGrammarBytes`, `grammarLimits`), the pace of its upload
/// (`readTimeout`, `uploadGrace`, `minimumAudioRate`, see ``UploadPace``), how long a connection may
/// idle (`idleTimeout`), and how fast token requests may fail (`failedTokenRequests`).
public struct ServiceConfiguration: Sendable {
    /// The defaults, declared once: the initializer and the properties take them, and `earshot serve`'s
    /// options show and use them.
    public enum Defaults {
        public static let host = "127.0.0.1"
        public static let port = 8080
        public static let failedTokenRequests = 10
        public static let failedTokenWindow: Duration = .seconds(60)
        public static let maxAudioDuration: Double = 60
        public static let maxInitialSilence: Double = 10
        public static let maxSyntheses = 8
        /// 30 minutes: OpenAI's longest input, 4 096 characters, is about 4.5 minutes of speech at the
        /// normal rate, so 18 at the slowest (0.25); the rest is margin for slow voices and pauses. A
        /// 30-minute answer is 86 MB of 24 kHz WAV.
        public static let maxSpeechDuration: Double = 1_800
        public static let writeTimeout: Duration = .seconds(30)
        public static let maxGrammarBytes = 1 << 20
        public static let readTimeout: Duration = .seconds(10)
        public static let uploadGrace: Duration = .seconds(5)
        public static let minimumAudioRate = 0.5
        public static let idleTimeout: Duration = .seconds(15)
        /// Four live streams a core, at least four in all, at most 32: a live Whisper tiny.en stream
        /// costs 0.16 s of CPU a second of audio (0.28 s with partial results; RELIABILITY.md, CPU per
        /// recognition), and a stream holds its recognizer for as long as it talks — mostly waiting for
        /// audio, not decoding. (A fixed four refused the README's own 8-stream load test.)
        public static var recognizerCount: Int {
            min(32, max(4, 4 * ProcessInfo.processInfo.activeProcessorCount))
        }
        public static let drainDelay: Duration = .zero
        public static let drainTimeout: Duration = .seconds(30)
    }

    /// The address to listen on; loopback by default, so nothing is exposed unless asked.
    public var host: String
    /// The port; 0 picks a free one (read it back from `SpeechService.run(onListening:)`).
    public var port: Int
    /// The apps that may ask for tokens.
    public var credentials: Credentials
    /// Static keys accepted as Bearer tokens beside the issued ones (none by default).
    public var apiKeys = APIKeys()
    /// Access tokens two hours, refresh tokens a day, as in section 3.5.
    public var tokenLifetimes: TokenIssuer.Lifetimes
    /// Signs and checks tokens; instances that share it accept each other's tokens. Random by default,
    /// so tokens last as long as the process.
    public var tokenKey: TokenKey
    /// Failed token requests allowed per app key and per client address within a window (429 beyond).
    public var failedTokenRequests: Int
    /// The window over which failed token requests are counted.
    public var failedTokenWindow: Duration
    /// Requests whose audio runs longer than this many seconds are refused with 413.
    public var maxAudioDuration: Double
    /// Seconds of audio in which speech must be found, or the request ends as "No Speech" (the
    /// seed's `maxInitialSilence`, held by the service; `.infinity` turns it off). Ten seconds: see
    /// ``AudioLimits``.
    public var maxInitialSilence = Defaults.maxInitialSilence
    /// The detector that looks for that speech: Silero when `earshot serve` finds its model, else the
    /// spectral detector.
    public var speechDetector: DetectorKind = .spectral
    public var detectorModels: DetectorModels = .none
    /// Whether Whisper begins a request's final decode at the speaker's pause, watched for by
    /// `speechDetector` (``InitialSilenceLimit``), so the words are ready when the upload ends. On by
    /// default; off saves the detector's and the dropped decodes' CPU.
    public var earlyDecode = true
    /// How much text and SSML one Text to Speech request may bring (413 or 400 beyond).
    public var speechLimits = SpeechScript.Limits.default
    /// Text to Speech answers made or queued at once for the one synthesis thread; beyond, 503 with
    /// `Retry-After` (``SynthesisAdmission``).
    public var maxSyntheses = Defaults.maxSyntheses
    /// The longest Text to Speech answer, in seconds of audio, pauses included: a request sure to run
    /// past it is refused with 413, and an answer that runs past it anyway is cut there.
    public var maxSpeechDuration = Defaults.maxSpeechDuration
    /// How long a Text to Speech answer waits on a client that reads nothing before it closes the
    /// connection, giving back the answer's place and memory.
    public var writeTimeout = Defaults.writeTimeout
    /// The CPU a recognition may take for the audio it delivers; beyond, it is stopped with 422.
    public var cpuBudget = RecognitionCPUBudget.default
    /// Recognitions one app (one client ID, or one API key) may run at once; beyond, 429 with
    /// `Retry-After`. Nil: one fewer than ``recognizerCount`` (at least one), so no single app can
    /// take every recognizer.
    public var maxRecognitionsPerApp: Int?
    /// The largest lexicon or grammar part a Speech to Text Custom request may send, in bytes (413 beyond).
    public var maxGrammarBytes: Int
    /// How large a network a request's grammar may unroll to, and how deep it may nest (400 beyond).
    public var grammarLimits: GrammarLimits
    /// A request whose body sends nothing for this long gets 408 and its connection is closed.
    public var readTimeout: Duration
    /// The longest an upload may keep the service waiting beyond what its audio accounts for (408 beyond).
    public var uploadGrace: Duration
    /// Seconds of audio per second of waiting an upload must sustain once it holds a recognizer.
    public var minimumAudioRate: Double
    /// Bytes of body that must have arrived before a recognizer is lent to a request.
    public var leaseThreshold: Int
    /// A connection with no request under way (or whose request head has not arrived) is closed
    /// after this long.
    public var idleTimeout: Duration
    /// Recognizers that may run at once; more concurrent requests get 503.
    public var recognizerCount: Int
    /// Recognizers loaded at start, so the first requests do not wait for the model.
    public var preloadedRecognizers: Int
    /// How long after SIGTERM (or SIGINT) `/health` answers 503 while requests are still accepted,
    /// before the listener closes; zero closes it at once. In-flight requests finish either way.
    public var drainDelay = Defaults.drainDelay
    /// How long requests in flight may run once the listener has closed; a recognition still running
    /// then is answered 503 (``DrainDeadline``) and the process exits.
    public var drainTimeout = Defaults.drainTimeout
    /// Connections open at once; one accepted beyond is closed at once, so the process never runs
    /// out of descriptors and its listener keeps accepting. By default the soft `RLIMIT_NOFILE` less
    /// 128 kept for everything else (``ConnectionBudget``).
    public var maxConnections: Int = ServiceConfiguration.defaultMaxConnections
    /// The default ``maxConnections``, from this process's `RLIMIT_NOFILE`.
    public static var defaultMaxConnections: Int { ConnectionBudget.defaultLimit }
    /// What Realtime transcription sessions (`/v1/realtime`) may take: sessions at once, their length,
    /// idle time, message size, audio ahead of real time and unread events.
    public var realtime = RealtimeLimits()
    /// The seconds `Retry-After` suggests when every recognizer is busy.
    public var retryAfterSeconds: Int
    /// The realm of the `WWW-Authenticate` challenge.
    public var realm: String
    /// The models the service recognizes with, the default first (see ``RecognizerPools``): by
    /// default PocketSphinx alone; `earshot serve` puts Whisper first when its model is installed.
    public var models: [EmbeddedRecognizerModel]

    public init(
        host: String = Defaults.host, port: Int = Defaults.port, credentials: Credentials,
        tokenLifetimes: TokenIssuer.Lifetimes = .init(), tokenKey: TokenKey = .random(),
        failedTokenRequests: Int = Defaults.failedTokenRequests,
        failedTokenWindow: Duration = Defaults.failedTokenWindow,
        maxAudioDuration: Double = Defaults.maxAudioDuration, maxGrammarBytes: Int = Defaults.maxGrammarBytes,
        grammarLimits: GrammarLimits = .default, readTimeout: Duration = Defaults.readTimeout,
        uploadGrace: Duration = Defaults.uploadGrace, minimumAudioRate: Double = Defaults.minimumAudioRate,
        leaseThreshold: Int = 1024, idleTimeout: Duration = Defaults.idleTimeout,
        recognizerCount: Int = Defaults.recognizerCount, preloadedRecognizers: Int = 1,
        retryAfterSeconds: Int = 1, realm: String = "earshot",
        models: [EmbeddedRecognizerModel] = [EmbeddedRecognizerModel(.pocketSphinx(.default))]
    ) {
        self.host = host
        self.port = port
        self.credentials = credentials
        self.tokenLifetimes = tokenLifetimes
        self.tokenKey = tokenKey
        self.failedTokenRequests = failedTokenRequests
        self.failedTokenWindow = failedTokenWindow
        self.maxAudioDuration = maxAudioDuration
        self.maxGrammarBytes = maxGrammarBytes
        self.grammarLimits = grammarLimits
        self.readTimeout = readTimeout
        self.uploadGrace = uploadGrace
        self.minimumAudioRate = minimumAudioRate
        self.leaseThreshold = leaseThreshold
        self.idleTimeout = idleTimeout
        self.recognizerCount = recognizerCount
        self.preloadedRecognizers = preloadedRecognizers
        self.retryAfterSeconds = retryAfterSeconds
        self.realm = realm
        self.models = models
    }

    /// The per-app cap in force. By default one fewer than the recognizers, so no app can take them all
    /// from the others; a service that knows a single app (one credential, no API keys) has no others
    /// to protect, and lends it every recognizer — a load test of your own service is not refused.
    var recognitionsPerApp: Int {
        if let maxRecognitionsPerApp { return maxRecognitionsPerApp }
        let singleApp = credentials.secrets.count == 1 && apiKeys.scopes.isEmpty
        return singleApp ? recognizerCount : max(1, recognizerCount - 1)
    }

    /// What each request's audio may cost.
    var audioLimits: AudioLimits {
        var limits = AudioLimits(
            maxAudioDuration: maxAudioDuration, maxInitialSilence: maxInitialSilence, detector: speechDetector,
            detectorModels: detectorModels)
        limits.beginFinalDecodeOnPause = earlyDecode
        return limits
    }

    /// The pace rules every upload is held to.
    var uploadRules: UploadPace.Rules {
        .init(readTimeout: readTimeout, grace: uploadGrace, minimumAudioRate: minimumAudioRate)
    }
}
