import Hummingbird

/// Counts every answered request in ``ServiceMetrics``: by the route it matched (`NotFound` for a
/// 404, so a scanner's made-up paths add no series), its status, and its latency to the moment the
/// route hands its response over — for a recognition request, after its whole body has been read and
/// recognized; for a partial-results stream, when the stream begins.
///
/// The response body is left as the route made it. Wrapping it in a closure to time its last byte
/// (as a first version did) turned Hummingbird's buffered responses into streamed ones, and about one
/// chunked upload in three then ended with the connection closed instead of the answer (the service
/// tests' `earshot bench` and manual-stop cases; 0 of 8 without the wrapper).
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.requestAnswered(
                route: context.endpointPath ?? "NotFound", status: response.status.code, after: .now - started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.requestAnswered(route: context.endpointPath ?? "NotFound", status: status, after: .now - started)
            throw error
        }
    }
}
