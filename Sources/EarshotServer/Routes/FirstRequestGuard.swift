import HummingbirdCore
import Logging
import NIOCore

/// What ``ConnectionGuard`` does for a connection before its first request head has arrived, on a
/// server that can upgrade to WebSocket.
///
/// An upgradable HTTP/1 pipeline decides on the first request whether the connection is HTTP or a
/// WebSocket, and adds the HTTP-level handlers (``ConnectionGuard`` among them) only once it has
/// seen that the request is not an upgrade. Until then this handler, first in the pipeline and
/// reading bytes, keeps the connection to the same rules: a place in the ``ConnectionBudget`` for its
/// whole life, a complete request head (up to the blank line) within `idleTimeout` of opening, and a
/// graceful shutdown that finds no head yet closes it after `drainGrace`. Once the head has passed
/// it only counts the connection.
final class FirstRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let idleTimeout: TimeAmount
    private let drainGrace: TimeAmount
    private let budget: ConnectionBudget?
    private var admitted = false
    private var decided = false
    private var headEnded = false
    /// Graceful shutdown began before the first request head had ended.
    private var quiesceHeld = false
    /// The last bytes seen, to find a blank line split across reads.
    private var tail: [UInt8] = []
    private var deadline: Scheduled<Void>?

    init(idleTimeout: TimeAmount, budget: ConnectionBudget?, drainGrace: TimeAmount = .seconds(2)) {
        self.idleTimeout = idleTimeout
        self.budget = budget
        self.drainGrace = drainGrace
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { stop() }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !headEnded {
            let joined = tail + Array(unwrapInboundIn(data).readableBytesView)
            if Self.containsBlankLine(joined) {
                headEnded = true
                deadline?.cancel()
                deadline = nil
                context.fireChannelRead(data)
                // A shutdown held back until now goes on behind the request, to the handlers the head has
                // made the pipeline add: the request is answered, then the connection closed.
                if quiesceHeld {
                    quiesceHeld = false
                    context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
                }
                return
            }
            tail = Array(joined.suffix(3))
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent, !headEnded else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Held, as ConnectionGuard holds it: a connection opened to send a request has it answered.
        guard !quiesceHeld else { return }
        quiesceHeld = true
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: min(idleTimeout, drainGrace)) { channel.close(promise: nil) }
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !decided else { return }
        decided = true
        if let budget {
            admitted = budget.admit()
            guard admitted else {
                context.close(promise: nil)
                return
            }
        }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: idleTimeout) { channel.close(promise: nil) }
    }

    private func stop() {
        deadline?.cancel()
        deadline = nil
        if admitted { budget?.release() }
        admitted = false
    }

    private static func containsBlankLine(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return true
        }
        return false
    }
}

/// A server child channel that puts a ``FirstRequestGuard`` first in each connection's pipeline,
/// then sets up `inner` (the HTTP/1 channel with its WebSocket upgrade).
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner
    let makeGuard: @Sendable () -> FirstRequestGuard

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(makeGuard())
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Inner.Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}
