public import EarshotCore
import EarshotRecognizer
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
public import Logging
import NIOCore
public import ServiceLifecycle
import UnixSignals

/// The reference recognition service: the Speech API v3 of the AT&T document, and OpenAI's
/// transcription API, served by Hummingbird.
///
/// Routes: `POST /oauth/token`, `POST /speech/v3/speechToText`, `POST /speech/v3/speechToTextCustom`,
/// `POST /speech/v3/textToSpeech`,
/// the OpenAI-compatible `POST /v1/audio/transcriptions`, `POST /v1/audio/speech` and `GET /v1/models`, and for operators
/// `GET /health` and `GET /metrics`. One token authority, one bounded recognizer pool and one set of
/// metrics are shared by all requests. Run its ``makeServices(onListening:)`` under a `ServiceGroup`
/// (swift-service-lifecycle), which stops it gracefully on SIGINT or SIGTERM: `/health` turns 503,
/// then new connections are refused and in-flight requests finish.
public struct SpeechService: Sendable {
    /// The configuration the service started with (``reload(from:)`` changes the live one).
    public let configuration: ServiceConfiguration
    /// The configuration the routes read, request by request.
    let live: LiveConfiguration
    public let authority: TokenAuthority
    public let pools: RecognizerPools
    /// The default model's pool (speechToText's and OpenAI's default).
    public var pool: RecognizerPool { pools.primary.pool }
    public let readiness = ServiceReadiness()
    public let metrics = ServiceMetrics()
    private let listener: ServiceListener
    private let drainDeadline: DrainDeadline
    /// The Realtime sessions open, wound down by the drain.
    let realtimeSessions = RealtimeSessions()
    private let logger: Logger

    /// Each of `configuration.models` gets a pool of recognizers its factory makes (``RecognizerPools``);
    /// `loadRecognizer`, when given, makes the default model's instead (the routes know them only as
    /// ``Recognizer``s, and ``GrammarRecognizer``s for Speech to Text Custom). The recognizers load and
    /// decode on the ``BlockingExecutor/current`` of the task that makes the service: the process's
    /// executor for blocking work, unless the caller scoped another (a test process gives its
    /// in-process services their own, as a separate process would have). Tokens and client secrets are
    /// issued and checked on `clock`.
    public init(
        configuration: ServiceConfiguration, logger: Logger, loadRecognizer: RecognizerPool.Load? = nil,
        clock: WallClock = .system
    ) {
        self.configuration = configuration
        live = LiveConfiguration(configuration)
        self.logger = logger
        listener = ServiceListener(logger: logger)
        drainDeadline = DrainDeadline(timeout: configuration.drainTimeout)
        authority = TokenAuthority(
            issuer: TokenIssuer(
                credentials: configuration.credentials.secrets, apiKeys: configuration.apiKeys,
                lifetimes: configuration.tokenLifetimes, key: configuration.tokenKey),
            attempts: FailedAttempts(
                limit: configuration.failedTokenRequests, window: configuration.failedTokenWindow),
            clock: clock)
        pools = RecognizerPools(
            models: configuration.models, capacity: configuration.recognizerCount, loadDefault: loadRecognizer)
    }

    /// What runs the service under a `ServiceGroup`, in order: the Hummingbird application, then the
    /// drain that marks it unready when graceful shutdown begins (`ServiceDrain`). Loads
    /// `preloadedRecognizers` first (throws if the model cannot be loaded); `onListening` receives the
    /// bound port (useful with port 0).
    public func makeServices(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws
        -> [any Service]
    {
        let application = try await makeApplication(onListening: onListening)
        return [
            application,
            ServiceDrain(
                readiness: readiness, delay: configuration.drainDelay, listener: listener, deadline: drainDeadline,
                realtimeSessions: realtimeSessions),
        ]
    }

    /// The Hummingbird application alone: load `preloadedRecognizers` first (throws if the model cannot
    /// be loaded), then serve. `onListening` receives the bound port (useful with port 0).
    func makeApplication(onListening: @escaping @Sendable (Int) async -> Void) async throws
        -> some ApplicationProtocol
    {
        try await pools.primary.pool.preload(configuration.preloadedRecognizers)
        await readiness.recognizersLoaded()
        let budget = ConnectionBudget(limit: configuration.maxConnections)
        let router = Router(context: ServiceRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        let upload = UploadRecognition(
            live: live, executor: pools.primary.pool.executor, metrics: metrics,
            drainDeadline: drainDeadline)
        let oauth = OAuthRoute(authority: authority)
        let speech = SpeechToTextRoute(
            service: .speechToText, authority: authority, upload: upload, pool: pools.primary, pools: pools,
            live: live)
        let custom = SpeechToTextRoute(
            service: .speechToTextCustom, authority: authority, upload: upload, pool: pools.grammar, pools: pools,
            live: live)
        let openAI = TranscriptionRoute(
            authority: authority, upload: upload, pools: pools, live: live)
        let operations = OperationsRoute(readiness: readiness, metrics: metrics, pools: pools)
        router.get("/health") { request, _ in await operations.health(request) }
        router.get("/metrics") { request, _ in await operations.scrape(request) }
        router.post("/oauth/token") { request, context in try await oauth.respond(request, context: context) }
        router.post("/v1/audio/transcriptions") { request, context in
            await openAI.transcribe(request, context: context)
        }
        router.post("/v1/audio/translations") { request, context in
            await openAI.transcribe(request, context: context, translate: true)
        }
        router.get("/v1/models") { request, _ in await openAI.models(request) }
        let syntheses = SynthesisAdmission(limit: configuration.maxSyntheses)
        let openAISpeech = OpenAISpeechRoute(authority: authority, live: live, admission: syntheses)
        router.post("/v1/audio/speech") { request, context in await openAISpeech.speak(request, context: context) }
        let textToSpeech = TextToSpeechRoute(authority: authority, live: live, admission: syntheses)
        router.post("/speech/v3/textToSpeech") { request, context in
            await textToSpeech.respond(request, context: context)
        }
        router.post("/speech/v3/speechToText") { request, context in await speech.respond(request, context: context) }
        router.post("/speech/v3/speechToTextCustom") { request, context in
            await custom.respond(request, context: context)
        }
        let webSocketRouter = Router(context: RealtimeRequestContext.self)
        addRealtimeRoutes(to: router, webSocketRouter: webSocketRouter, upload: upload)
        return Application(
            router: router,
            server: .realtimeUpgradable(
                webSocketRouter: webSocketRouter, maxFrameBytes: configuration.realtime.maxMessageBytes,
                http1: .init(
                    additionalChannelHandlers: [
                        ConnectionGuard(
                            idleTimeout: TimeAmount(configuration.idleTimeout),
                            // Upload routes answer a stalled body at readTimeout themselves, with
                            // their own message; this backstop, for every route, follows it.
                            bodyTimeout: TimeAmount(configuration.readTimeout) + .seconds(2))
                    ]),
                firstRequest: { FirstRequestGuard(idleTimeout: TimeAmount(configuration.idleTimeout), budget: budget) }),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "earshot"),
            onServerRunning: { [listener] channel in
                await listener.opened(channel)
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger)
    }
}

extension SpeechService {
    /// The log level a command line names (`trace` … `critical`), or nil.
    public static func logLevel(named name: String) -> Logger.Level? { Logger.Level(rawValue: name.lowercased()) }

    /// Serves `configuration` until SIGINT or SIGTERM, logging to standard error at `logLevel`, then
    /// shuts down gracefully: the listener closes, requests in flight are answered. On SIGHUP it calls
    /// `reload` and takes the reloadable settings (``ServiceConfiguration/reloadableSettings``) and the
    /// log level it returns, keeping every connection; a `reload` that throws is logged and changes nothing.
    ///
    /// Bootstraps swift-log for the process, so call it once, from a program's entry point.
    public static func runUntilSignalled(
        configuration: ServiceConfiguration, logLevel: Logger.Level = .info,
        reload: (@Sendable () async throws -> ServiceReload)? = nil,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let level = LiveLogLevel(logLevel)
        LoggingSystem.bootstrap { label in
            LiveLevelLogHandler(stream: StreamLogHandler.standardError(label: label), level: level)
        }
        let logger = Logger(label: "earshot.service")
        let service = SpeechService(configuration: configuration, logger: logger)
        var services = try await service.makeServices(onListening: onListening)
        if let reload {
            // Trapped before the listener opens, so a SIGHUP never finds the default action (exit).
            let hangUps = await UnixSignalsSequence(trapping: .sighup)
            services.append(
                ReloadOnHangUp(service: service, level: level, hangUps: hangUps, reload: reload, logger: logger))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Past the drain's own deadline (whose recognitions are answered 503 at their next block), the
        // shutdown turns into cancellation, which closes every connection left.
        groupConfiguration.maximumGracefulShutdownDuration =
            configuration.drainDelay + configuration.drainTimeout + RealtimeSessions.commitGrace + .seconds(2)
        let group = ServiceGroup(configuration: groupConfiguration)
        do {
            try await group.run()
        } catch let error as IOError where [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error.errnoCode) {
            let reason =
                switch error.errnoCode {
                case EADDRINUSE:
                    "the address is in use: another service listens there (give --port, or 0 for a free one)"
                case EACCES: "permission denied (ports below 1024 need privileges)"
                default: "no interface of this machine has that address"
                }
            throw EarshotError(
                .listenFailed, "cannot listen on \(configuration.host):\(configuration.port): \(reason)")
        }
    }
}

extension SpeechService {
    /// Takes `new`'s reloadable settings (``ServiceConfiguration/reloadableSettings``) into the running
    /// service: the routes' limits and the token authority's API keys. Returns what changed.
    @discardableResult
    public func reload(from new: ServiceConfiguration) -> [String] {
        let changed = live.reload(from: new)
        authority.replaceAPIKeys(new.apiKeys)
        return changed
    }
}

/// What a reload gives the running service: the configuration whose reloadable settings it takes,
/// the log level, and the settings that changed but take a restart (by name, for a warning).
public struct ServiceReload: Sendable {
    public var configuration: ServiceConfiguration
    public var logLevel: Logger.Level
    public var needsRestart: [String]

    public init(configuration: ServiceConfiguration, logLevel: Logger.Level, needsRestart: [String] = []) {
        self.configuration = configuration
        self.logLevel = logLevel
        self.needsRestart = needsRestart
    }
}
