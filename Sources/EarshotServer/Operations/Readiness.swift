/// Whether the service should be sent requests, as `GET /health` reports it: a pure value moved by
/// the service's life events, in one direction only.
///
/// `starting` until the preloaded recognizers are in memory (the listener opens only after that, so a
/// starting instance refuses connections rather than answering 503); `ready` while it serves;
/// `draining` from the graceful-shutdown signal (SIGTERM, SIGINT) on, while requests in flight finish.
public enum Readiness: String, Sendable, Hashable {
    case starting
    case ready
    case draining

    /// The preloaded recognizers are loaded. A draining service stays draining.
    public func recognizersLoaded() -> Readiness { self == .starting ? .ready : self }

    /// Shutdown began: never ready again.
    public func drain() -> Readiness { .draining }

    /// Whether a load balancer should send it requests (`/health` answers 200, else 503).
    public var acceptsRequests: Bool { self == .ready }
}
