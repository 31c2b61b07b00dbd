import Hummingbird

/// Counts every answered request in ``ServiceMetrics``: by the route it matched (`NotFound` for a
/// 404, so a scanner's made-up paths add no series), its status, and its latency to the last byte
/// of the answer (a partial-results stream included).
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let started = ContinuousClock.now
        let metrics = self.metrics
        do {
            var response = try await next(request, context)
            let status = response.status.code
            let body = response.body
            // Counted once the body has been written (or its writing failed), so the latency covers it.
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer {
                    metrics.requestAnswered(
                        route: context.endpointPath ?? "NotFound", status: status, after: .now - started)
                }
                try await body.write(writer)
            }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.requestAnswered(route: context.endpointPath ?? "NotFound", status: status, after: .now - started)
            throw error
        }
    }
}
