import EarshotCore
import Hummingbird

/// `GET /health` and `GET /metrics`, for load balancers and Prometheus. Neither needs a token: they
/// tell nothing about clients or their audio (keep them off the public side of a proxy if the
/// service's load is nobody else's business; the nginx example does).
struct OperationsRoute: Sendable {
    let readiness: ServiceReadiness
    let metrics: ServiceMetrics
    let pools: RecognizerPools

    /// 200 `ready` while the service takes requests, 503 `starting` or `draining` otherwise.
    func health(_ request: Request) async -> Response {
        let state = await readiness.state
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: state.acceptsRequests ? .ok : .serviceUnavailable, headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: state.rawValue + "\n")))
    }

    /// The Prometheus text exposition format (version 0.0.4).
    func scrape(_ request: Request) async -> Response {
        let text = metrics.exposition(
            recognizersInUse: pools.busyCount, capacity: pools.capacity, decodes: ComputeSlots.shared.tally)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: text)))
    }
}
