import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Keeps each connection to the service honest at the HTTP level, below the routes:
///
/// - **A deadline for every request head.** A connection must deliver a complete request head
///   within `idleTimeout` of opening, and of its previous response ending (keep-alive); otherwise it
///   is closed. Sending nothing, half a request line, or headers a byte a second all end there. While
///   a request is under way this guard stays out of the way: its body's pace is the route's business
///   (``UploadPace``), and a server applying back-pressure must not look like an idle client.
/// - **Exactly one answer per request.** A response that ends before its request (413, 408, 503 or
///   400 while the body is still arriving), or that says `Connection: close`, is the last thing written
///   on its connection: anything written after it is refused. Without this, Hummingbird would read the
///   abandoned body's remaining bytes as if a next request followed and answer them with a second
///   response (a 400). The connection then closes as a careful server closes it (nginx's "lingering
///   close"): the rest of the upload is read and dropped, and the connection is closed once the
///   request has ended, or `linger` after the response if the client goes on sending. Closing at
///   once, with unread upload bytes in the kernel's buffer, would send a reset that can destroy the
///   response before the client reads it; shutting only the output while the client still uploads
///   makes HTTP clients (AsyncHTTPClient among them) report a closed connection instead of the answer.
/// - **A connection accepted before a drain has its first request answered.** Graceful shutdown
///   (`ChannelShouldQuiesceEvent`) makes Hummingbird close every connection with no request in
///   progress at once. For a connection that has carried requests and sits idle that is the ordinary
///   end of keep-alive; but a connection that has not yet carried one was opened to send one, and
///   its client (nginx passing a POST on, say) has often written it already: closing then resets the
///   request, and a balancer cannot pass a body it has begun streaming to another instance. So this
///   guard holds the quiesce event for such a connection until its first request head arrives (then
///   the request is answered and the connection closed after it) or `drainGrace` passes.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let idleTimeout: TimeAmount
    private let linger: TimeAmount
    /// Requests whose head has arrived and whose response has not ended.
    private var requestsInProgress = 0
    /// A request head has arrived and its end has not.
    private var requestUnfinished = false
    /// The response under way said `Connection: close`.
    private var closeAfterResponse = false
    private var closed = false
    /// A request head has arrived on this connection.
    private var carriedRequest = false
    /// Graceful shutdown has begun and is held until the first request head arrives.
    private var quiesceHeld = false
    private let drainGrace: TimeAmount
    private var headDeadline: Scheduled<Void>?
    private var lingerDeadline: Scheduled<Void>?

    init(idleTimeout: TimeAmount, linger: TimeAmount = .seconds(2), drainGrace: TimeAmount = .seconds(2)) {
        self.idleTimeout = idleTimeout
        self.linger = linger
        self.drainGrace = drainGrace
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { awaitHead(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        awaitHead(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        headDeadline = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        headDeadline = nil
        lingerDeadline?.cancel()
        lingerDeadline = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestUnfinished = true
            requestsInProgress += 1
            carriedRequest = true
            headDeadline?.cancel()
            headDeadline = nil
            if quiesceHeld {
                // The request goes on first, so Hummingbird sees it in progress and closes the
                // connection after answering it.
                quiesceHeld = false
                context.fireChannelRead(data)
                context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
                return
            }
        case .body: break
        case .end:
            requestUnfinished = false
            if closed {
                // The answer has gone and the abandoned upload has now ended: close in order.
                lingerDeadline?.cancel()
                context.close(promise: nil)
            }
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent, !carriedRequest, !closed else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard !quiesceHeld else { return }
        quiesceHeld = true
        headDeadline?.cancel()
        let channel = context.channel
        headDeadline = context.eventLoop.scheduleTask(in: min(idleTimeout, drainGrace)) { channel.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !closed else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closeAfterResponse = head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            requestsInProgress = max(requestsInProgress - 1, 0)
            guard closeAfterResponse || requestUnfinished else {
                context.write(data, promise: promise)
                if requestsInProgress == 0 { awaitHead(context) }
                return
            }
            closed = true
            let flushed = context.eventLoop.makePromise(of: Void.self)
            flushed.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: flushed)
            let channel = context.channel
            if requestUnfinished {
                lingerDeadline = context.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
            } else {
                flushed.futureResult.whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }

    /// Closes the connection unless a request head arrives within `idleTimeout`.
    private func awaitHead(_ context: ChannelHandlerContext) {
        headDeadline?.cancel()
        let channel = context.channel
        headDeadline = context.eventLoop.scheduleTask(in: idleTimeout) { channel.close(promise: nil) }
    }
}
