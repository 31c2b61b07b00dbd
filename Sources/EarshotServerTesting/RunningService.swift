public import EarshotCore
public import EarshotServer
import EarshotTesting
import Foundation
import Logging
import ServiceLifecycle

/// The real service, in process, on a loopback port the test picks (port 0, read back), stopped by
/// `stop()`: what `HummingbirdTesting`'s live mode is to a Hummingbird application, for Earshot's
/// service with its real routes, recognizers and limits.
///
/// Its request handling runs on ``TestExecutors/service``, and its recognition on the executor its
/// test scopes as ``BlockingExecutor/current`` (``TestExecutors/recognition`` in a waiting suite,
/// ``TestExecutors/timed`` in a timed test), not on the cooperative pool nor on
/// ``BlockingExecutor/shared``: a request's next chunk, or its cancellation, runs at its test's
/// priority, apart from the computing suites' decodes. `earshot serve` runs alone in its process and
/// uses the shared one.
public final class RunningService: Sendable {
    public let port: Int
    public let service: SpeechService
    /// The secret of app `test-app`, random for each server.
    public let appSecret: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(
        port: Int, service: SpeechService, appSecret: String, group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.port = port
        self.appSecret = appSecret
        self.service = service
        self.group = group
        self.task = task
    }

    /// Starts a service for app `test-app` (with `secret`, random if not given) with `configure` applied to
    /// its configuration; its tokens expire by `clock`.
    public static func start(
        secret: String? = nil, clock: WallClock = .system, _ configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> RunningService {
        try await start(secret: secret, recognizers: nil, clock: clock, configure)
    }

    /// Starts a service as ``start(secret:_:)`` does, whose recognizers `loadRecognizer` makes.
    public static func start(
        secret: String? = nil, loadRecognizer: @escaping RecognizerPool.Load,
        _ configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> RunningService {
        try await start(secret: secret, recognizers: loadRecognizer, clock: .system, configure)
    }

    private static func start(
        secret: String?, recognizers loadRecognizer: RecognizerPool.Load?, clock: WallClock,
        _ configure: (inout ServiceConfiguration) -> Void
    ) async throws -> RunningService {
        let secret = secret ?? "test-secret-\(UInt64.random(in: 0 ... .max))"
        var configuration = ServiceConfiguration(
            port: 0, credentials: Credentials(secrets: ["test-app": secret, "other-app": "other-secret"]))
        // The whole test process shares two cores with CPU-bound suites: the OS may hold any thread back
        // for a while, so the timeouts are generous. Tests of the timeouts set their own.
        configuration.readTimeout = .seconds(60)
        configuration.uploadGrace = .seconds(60)
        configuration.idleTimeout = .seconds(60)
        configure(&configuration)
        var logger = Logger(label: "earshot-test-service")
        logger.logLevel = .warning
        let service = SpeechService(
            configuration: configuration, logger: logger, loadRecognizer: loadRecognizer, clock: clock)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let services = try await service.makeServices { port in continuation.yield(port) }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
        let task = Task(executorPreference: TestExecutors.service) { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw EarshotError(.invalidInput, "the test service did not report a port")
        }
        return RunningService(port: port, service: service, appSecret: secret, group: group, task: task)
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Begins a graceful shutdown without waiting for it (as SIGTERM does).
    public func beginShutdown() async { await group.triggerGracefulShutdown() }

    /// Ends the server at once (a graceful shutdown held by a drain delay included) and waits for it.
    public func cancel() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Stops the server gracefully and waits for it.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// An access token for `scope` from the real token endpoint.
    public func token(scope: String = "SPEECH") async throws -> String {
        let reply = try await LoopbackClient.post(
            port: port, path: "/oauth/token",
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(
                "client_id=test-app&client_secret=\(appSecret)&grant_type=client_credentials&scope=\(scope)".utf8))
        guard let document = try? JSONSerialization.jsonObject(with: reply.body) as? [String: String],
            let token = document["access_token"]
        else {
            throw EarshotError(.invalidInput, "the token endpoint answered \(reply.status): \(reply.text)")
        }
        return token
    }
}
