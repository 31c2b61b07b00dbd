import EarshotCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOWebSocket

/// `GET /v1/realtime?intent=transcription`: OpenAI's Realtime transcription sessions over WebSocket.
///
/// The upgrade is always accepted (answering `realtime` when the client offers that subprotocol);
/// what is refused is refused on the socket, as one `error` event and, once the client has sent its
/// first message (at most ``refusalGrace`` later), a close, since a WebSocket
/// client shows an event where it shows no body of a failed handshake: a missing or wrong key (close
/// 1008), an intent other than transcription (1008), the sessions at once, the app's recognitions
/// or every recognizer taken (1013, try again later). Then the session (``RealtimeSession``) holds
/// one recognizer of the model it names until it ends, and gives it back at once when the client goes.
struct RealtimeRoute: Sendable {
    let authority: TokenAuthority
    let secrets: RealtimeClientSecrets
    let pools: RecognizerPools
    let live: LiveConfiguration
    /// The recognitions each app runs, shared with the upload routes.
    let apps: AppRecognitions
    /// The sessions open, which the service's graceful shutdown winds down.
    let sessions: RealtimeSessions
    let executor: BlockingExecutor
    let metrics: ServiceMetrics

    /// The model names a session may give: the service's models and OpenAI's `whisper-1`.
    var modelNames: [String] {
        pools.modelIDs + [RecognizerPools.openAIModelName]
            + pools.languageModelNames.map { RecognizerPools.openAIModelName + "+" + $0 }
    }

    func shouldUpgrade(_ request: Request) -> RouterShouldUpgrade {
        var headers = HTTPFields()
        if let subprotocol = RealtimeCredential.chosenSubprotocol(in: request.headers) {
            headers[.secWebSocketProtocol] = subprotocol
        }
        return .upgrade(headers)
    }

    func serve(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
        context: WebSocketRouterContext<RealtimeRequestContext>
    ) async throws {
        var logger = context.logger
        let sessionID = "sess_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        logger[metadataKey: "realtime_session"] = "\(sessionID)"
        func refuse(_ refusal: RealtimeRefusal, close code: WebSocketErrorCode) async throws {
            logger.info("realtime session refused", metadata: ["code": "\(refusal.code)"])
            try await outbound.write(.text(RealtimeServerEvent.error(refusal)))
            await Self.awaitClientFirst(inbound, within: Self.refusalGrace)
            try await outbound.close(code, reason: refusal.code)
        }
        let configuration = live.current
        let admission: Admission
        switch try await admit(context.request, configuration: configuration) {
        case .success(let admitted): admission = admitted
        // Refused after the slots taken are given back: the refusal's grace holds none of them.
        case .failure(let refused): return try await refuse(refused.refusal, close: refused.close)
        }
        defer { sessions.give() }
        let (app, settings) = (admission.app, admission.settings)
        logger.info(
            "realtime session opened",
            metadata: ["app": "\(app)", "address": "\(context.requestContext.remoteAddress)"])
        let session = RealtimeSession(
            id: String(sessionID), route: self, limits: configuration.realtime,
            audioLimits: configuration.audioLimits, logger: logger)
        let end = await session.run(
            inbound: inbound, outbound: outbound, lease: admission.lease, settings: settings,
            closeConnection: context.requestContext.closeConnection,
            recognitionEnded: { [apps] in apps.give(admission.app) })
        logger.info(
            "realtime session ended", metadata: ["reason": "\(end.reason)", "audio_seconds": "\(end.audioSeconds)"])
        if let close = end.close { try? await outbound.close(close, reason: end.reason) }
    }

    /// What an admitted session holds until it ends: one of the sessions at once, one of its app's
    /// recognitions, and a recognizer.
    struct Admission {
        let app: String
        let settings: RealtimeSessionSettings
        let lease: Lease
    }

    /// A session refused, with the close that follows its `error` event.
    struct Refused: Error {
        let refusal: RealtimeRefusal
        let close: WebSocketErrorCode
    }

    /// Admits a new session, or refuses it: an intent other than transcription, a missing or wrong key
    /// (1008), the sessions at once, the app's recognitions or every recognizer taken (1013). A refused
    /// session holds nothing.
    func admit(_ request: Request, configuration: ServiceConfiguration) async throws -> Result<Admission, Refused> {
        if let intent = request.uri.queryParameters["intent"], intent != "transcription" {
            return .failure(
                Refused(
                    refusal: RealtimeRefusal.invalidValue(
                        "intent",
                        "intent \"\(intent.prefix(40))\" is not served here; expected intent=transcription "
                            + "(this service transcribes; it has no conversation model)"), close: .policyViolation))
        }
        let app: String
        switch await authorize(request.headers) {
        case .success(let name): app = name
        case .failure(let refusal): return .failure(Refused(refusal: refusal, close: .policyViolation))
        }
        guard sessions.take(limit: configuration.realtime.maxSessions) else {
            return .failure(
                Refused(
                    refusal: RealtimeRefusal(
                        type: "server_error", code: "session_limit_reached",
                        message: "this service has \(configuration.realtime.maxSessions) Realtime sessions open, its "
                            + "--realtime-max-sessions; try again later"), close: Self.tryAgainLater))
        }
        guard apps.take(app) else {
            sessions.give()
            return .failure(
                Refused(
                    refusal: RealtimeRefusal(
                        code: "rate_limit_exceeded",
                        message: "this app already runs \(apps.limit) recognitions at once, this service's "
                            + "--max-recognitions-per-app; close one and try again"), close: Self.tryAgainLater))
        }
        var settings = RealtimeSessionSettings()
        if let model = request.uri.queryParameters["model"], modelNames.contains(String(model)) {
            settings.model = String(model)
        }
        let entry = pools.entry(named: settings.model) ?? pools.primary
        let lease: RecognizerPool.Lease?
        do {
            lease = try await entry.pool.checkOut()
        } catch {
            sessions.give()
            apps.give(app)
            throw error
        }
        guard let lease else {
            sessions.give()
            apps.give(app)
            return .failure(
                Refused(
                    refusal: RealtimeRefusal(
                        type: "server_error", code: "overloaded",
                        message: "every recognizer of this service is busy (--recognizers); try again later"),
                    close: Self.tryAgainLater))
        }
        return .success(Admission(app: app, settings: settings, lease: Lease(entry: entry, lease: lease)))
    }

    /// How long a refused session waits for the client's first message before its close.
    static let refusalGrace: Duration = .seconds(3)

    /// Waits until the client has sent its first message (or closed, or gone), at most `grace`.
    ///
    /// A refusal's close ends the server's side of the TCP stream too (hummingbird-websocket half-closes
    /// after a server's close frame). Sent at once, the `error`, the close frame and that end can reach
    /// the client in one read with the 101 answer, and hummingbird-websocket's client (1.6.2 on NIO
    /// 2.101) then loses all three and hangs until its own timeout, in about one refused session in
    /// five on loopback. A client that has sent something has finished its upgrade, so whatever
    /// follows reaches it; one that sends nothing is closed after `grace`.
    static func awaitClientFirst(_ inbound: WebSocketInboundStream, within grace: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var messages = inbound.messages(maxSize: RealtimeLimits.Defaults.maxMessageBytes).makeAsyncIterator()
                _ = try? await messages.next()
            }
            group.addTask { try? await Task.sleep(for: grace) }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// 1013, "try again later" (RFC 6455's registry; NIO has no name for it).
    static let tryAgainLater = WebSocketErrorCode.unknown(1013)

    /// A recognizer lent to a session, and the pool it goes back to.
    struct Lease: @unchecked Sendable {
        let entry: RecognizerPools.Entry
        let lease: RecognizerPool.Lease
    }

    /// The app the request's key opens (an access token of scope SPEECH, an API key, or a client
    /// secret from `/v1/realtime/client_secrets`), or the `error` to close with.
    func authorize(_ headers: HTTPFields) async -> Result<String, RealtimeRefusal> {
        func refusal(_ reason: String) -> RealtimeRefusal {
            RealtimeRefusal(
                code: "invalid_api_key",
                message: "Incorrect API key provided: \(reason); send an access token of scope SPEECH, an API key "
                    + "or a client secret from POST /v1/realtime/client_secrets, as Authorization: Bearer KEY or as "
                    + "the subprotocol openai-insecure-api-key.KEY")
        }
        guard let key = RealtimeCredential.key(in: headers) else { return .failure(refusal("no key was sent")) }
        if key.hasPrefix(RealtimeClientSecrets.prefix) {
            guard let app = secrets.app(for: key) else {
                return .failure(refusal("the client secret is not valid or has expired"))
            }
            return .success(app)
        }
        switch await authority.check("Bearer " + key, for: .speech) {
        case .success(let app): return .success(app)
        case .failure(let refused): return .failure(refusal(refused.reason))
        }
    }
}
