import Hummingbird

/// The request context of the service: Hummingbird's core storage plus a way to stop reading a
/// connection (a stalled upload, or one too long to be worth draining).
struct ServiceRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Shuts the connection's input, which ends the request body; the response can still be written.
    let closeInput: @Sendable () -> Void
    /// The client's IP address (or "unknown"), for per-address limits; never a credential.
    let remoteAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        let channel = source.channel
        closeInput = { channel.close(mode: .input, promise: nil) }
        remoteAddress = channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
