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

    /// The error a request's failure is answered and counted as: 499 (``ServiceError/clientClosedRequest``)
    /// when the client has gone, since then nobody reads the answer and the failure is the hang-up, not
    /// the service's; `error` itself otherwise. A hang-up shows up as whatever the reading met first — a
    /// body cut short (400 from its decoder or parser) or a reset connection (an I/O error, 500) — so
    /// those are the ones checked; a refusal the service chose (401, 413, 429, …) stays what it was.
    func failure(for error: any Error) async -> any Error {
        if let refusal = error as? ServiceError, refusal.status.code != 400, refusal.status.code < 500 {
            return error
        }
        return await clientHasLeft() ? ServiceError.clientClosedRequest : error
    }
}
