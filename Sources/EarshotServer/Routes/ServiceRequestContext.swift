import Hummingbird

/// The request context of the service: Hummingbird's core storage plus a way to stop reading a
/// connection (a stalled upload, or one too long to be worth draining) and to see that its client
/// has gone.
struct ServiceRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Shuts the connection's input, which ends the request body; the response can still be written.
    let closeInput: @Sendable () -> Void
    /// Closes the connection, for a client that has gone: a read the body is waiting on fails at once,
    /// where shutting the input alone left it waiting for the next chunk NIO delivered (a second, under
    /// load, after the client's FIN).
    let closeConnection: @Sendable () -> Void
    /// Whether the client has closed its end (see ``ClientDeparture``).
    let clientHasLeft: @Sendable () async -> Bool
    /// The client's IP address (or "unknown"), for per-address limits; never a credential.
    let remoteAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        let channel = source.channel
        closeInput = { channel.close(mode: .input, promise: nil) }
        closeConnection = { channel.close(mode: .all, promise: nil) }
        clientHasLeft = { await ClientDeparture.hasLeft(channel) }
        remoteAddress = channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
