import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket

extension SpeechService {
    /// Adds the Realtime routes: the WebSocket `/v1/realtime` to `webSocketRouter`, and to `router`
    /// `POST /v1/realtime/client_secrets` and the page at `GET /`. Sessions share the upload routes'
    /// per-app count (`upload`'s), the recognizer pools and the executor for blocking work.
    func addRealtimeRoutes(
        to router: Router<ServiceRequestContext>, webSocketRouter: Router<RealtimeRequestContext>,
        upload: UploadRecognition
    ) {
        let secrets = RealtimeClientSecrets(tokenKey: configuration.tokenKey, clock: authority.clock)
        let realtime = RealtimeRoute(
            authority: authority, secrets: secrets, pools: pools, live: live, apps: upload.apps,
            sessions: realtimeSessions, executor: pools.primary.pool.executor, metrics: metrics)
        webSocketRouter.ws("/v1/realtime", shouldUpgrade: { request, _ in realtime.shouldUpgrade(request) }) {
            inbound, outbound, context in
            try await realtime.serve(inbound, outbound, context: context)
        }
        let clientSecrets = ClientSecretRoute(authority: authority, secrets: secrets, realtime: realtime, live: live)
        router.post("/v1/realtime/client_secrets") { request, context in
            await clientSecrets.mint(request, context: context)
        }
        router.get("/") { request, _ in TryItPage.respond(request) }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with the WebSocket upgrade of `webSocketRouter`'s routes, each connection guarded until
    /// its first request head by `firstRequest`'s handler (``FirstRequestGuard``). Client messages and
    /// frames are bounded by `maxFrameBytes` (1009 beyond).
    static func realtimeUpgradable(
        webSocketRouter: Router<RealtimeRequestContext>, maxFrameBytes: Int, http1: HTTP1Channel.Configuration,
        firstRequest: @escaping @Sendable () -> FirstRequestGuard
    ) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: http1, ws: WebSocketServerConfiguration(maxFrameSize: maxFrameBytes))
        return HTTPServerBuilder { responder in
            GuardedChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                makeGuard: firstRequest)
        }
    }
}
