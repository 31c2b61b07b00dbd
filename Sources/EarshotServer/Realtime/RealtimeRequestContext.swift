import Hummingbird
import HummingbirdWebSocket

/// The request context of the WebSocket router (`/v1/realtime`): Hummingbird's core storage, the
/// WebSocket handler reference the upgrade needs, and a way to close the connection under a client
/// that stopped reading (its writes would wait forever).
struct RealtimeRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<RealtimeRequestContext>
    let closeConnection: @Sendable () -> Void
    /// The client's IP address (or "unknown"), for the log; never a credential.
    let remoteAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        let channel = source.channel
        closeConnection = { channel.close(mode: .all, promise: nil) }
        remoteAddress = channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
