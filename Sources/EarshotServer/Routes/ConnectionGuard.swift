import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Keeps each connection to the service honest at the HTTP level, below the routes:
///
/// - **A deadline for every request head.** A connection must deliver a complete request head
///   within `idleTimeout` of opening, and of its previous response ending (keep-alive); otherwise it
///   is closed. Sending nothing, half a request line, or headers a byte a second all end there.
/// - **A deadline for every request body, on every route.** While a request's body is arriving, the
///   service may wait at most `bodyTimeout` for its next part; then the request is answered 408 (or,
///   if its response has begun, the connection is closed). The wait counts only while the service has
///   asked for bytes (a `read` has passed this handler and nothing has come back), so a server
///   applying back-pressure, or busy recognizing, never looks like an idle client. A short body, a
///   chunked body without its last chunk, and a chunk size larger than what follows all end here.
///   Upload routes keep their own, stricter pace (``UploadPace``) and answer first; this is the rule
///   for every other route (`/oauth/token` among them) and a backstop for all.
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
/// - **A place in the connection budget** (``ConnectionBudget``): a connection accepted beyond it is
///   closed before it reads a byte.
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
    private let bodyTimeout: TimeAmount
    /// Armed while a request's body is unfinished and the service has asked the client for bytes.
    private var bodyDeadline: Scheduled<Void>?
    /// The current response's head has been written.
    private var responseStarted = false
    private let budget: ConnectionBudget?
    /// This connection holds a place in `budget`.
    private var admitted = false
    /// The budget has been consulted for this connection.
    private var admissionDecided = false

    init(
        idleTimeout: TimeAmount, bodyTimeout: TimeAmount, budget: ConnectionBudget? = nil,
        linger: TimeAmount = .seconds(2), drainGrace: TimeAmount = .seconds(2)
    ) {
        self.budget = budget
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
        self.linger = linger
        self.drainGrace = drainGrace
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive, admit(context) { awaitHead(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if admit(context) { awaitHead(context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        headDeadline = nil
        stopBodyDeadline()
        leaveBudget()
    }

    func channelInactive(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        headDeadline = nil
        lingerDeadline?.cancel()
        lingerDeadline = nil
        stopBodyDeadline()
        leaveBudget()
        context.fireChannelInactive()
    }

    /// The service asks the client for bytes: while a body is unfinished, the wait begins here.
    func read(context: ChannelHandlerContext) {
        if requestUnfinished, !closed, bodyDeadline == nil {
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            bodyDeadline = context.eventLoop.scheduleTask(in: bodyTimeout) {
                bound.value.0.bodyTimedOut(bound.value.1)
            }
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        stopBodyDeadline()
        switch unwrapInboundIn(data) {
        case .head:
            responseStarted = false
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
            responseStarted = true
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

    /// Takes this connection's place in the budget, or closes it when there is none. False if closed.
    private func admit(_ context: ChannelHandlerContext) -> Bool {
        guard !admissionDecided else { return !closed }
        admissionDecided = true
        guard let budget else { return true }
        admitted = budget.admit()
        guard admitted else {
            closed = true
            context.close(promise: nil)
            return false
        }
        return true
    }

    private func leaveBudget() {
        if admitted { budget?.release() }
        admitted = false
    }

    private func stopBodyDeadline() {
        bodyDeadline?.cancel()
        bodyDeadline = nil
    }

    /// The client kept the service waiting `bodyTimeout` for the next part of a body: a 408 that
    /// closes the connection, unless the route's response has begun (then only the close).
    private func bodyTimedOut(_ context: ChannelHandlerContext) {
        bodyDeadline = nil
        guard requestUnfinished, !closed else { return }
        closed = true
        let channel = context.channel
        guard !responseStarted else {
            channel.close(promise: nil)
            return
        }
        var fields = HTTPFields()
        fields[.connection] = "close"
        fields[.contentType] = "text/plain; charset=utf-8"
        let text = "the request body stalled: nothing arrived for \(bodyTimeout.nanoseconds / 1_000_000_000) s\n"
        fields[.contentLength] = String(text.utf8.count)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .requestTimeout, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: text))), promise: nil)
        let flushed = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: flushed)
        // The client is not sending, so no unread upload can turn the close into a reset.
        flushed.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }

    /// Closes the connection unless a request head arrives within `idleTimeout`.
    private func awaitHead(_ context: ChannelHandlerContext) {
        headDeadline?.cancel()
        let channel = context.channel
        headDeadline = context.eventLoop.scheduleTask(in: idleTimeout) { channel.close(promise: nil) }
    }
}
