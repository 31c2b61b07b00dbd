import ServiceLifecycle

/// Marks the service draining when graceful shutdown begins, then holds the shutdown for
/// `delay` before the listener closes.
///
/// Placed after the Hummingbird application in the `ServiceGroup`, whose graceful shutdown runs
/// from the last service to the first: on SIGTERM this runs first, so `/health` answers 503 while
/// the listener still accepts (`delay`, for load balancers that poll it); then the listener stops
/// taking connections without resetting any it has taken (``ServiceListener``), and the application
/// closes it and finishes the requests in flight. With no delay that begins at once, and a balancer
/// learns of the drain by the refused connection. Closing the listener starts the ``DrainDeadline``.
///
/// Then the Realtime sessions wind down (``RealtimeSessions``) before this returns, so each finishes
/// the turn it is in and closes with 1001, rather than being closed at once with 1000 by the
/// WebSocket handler's own shutdown, which begins only when the application's does.
struct ServiceDrain: Service {
    let readiness: ServiceReadiness
    let delay: Duration
    let listener: ServiceListener
    let deadline: DrainDeadline
    let realtimeSessions: RealtimeSessions

    func run() async throws {
        // Cancelled (the group is torn down without a graceful shutdown): nothing left to drain.
        guard (try? await gracefulShutdown()) != nil else { return }
        await readiness.drain()
        try? await Task.sleep(for: delay)
        await listener.shut()
        deadline.start()
        await realtimeSessions.windDown(deadline: deadline)
    }
}
