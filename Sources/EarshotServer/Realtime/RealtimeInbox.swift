import HummingbirdWebSocket
import NIOCore
import Synchronization

/// The client messages a Realtime session has read off its socket and not yet handled, in order.
///
/// The socket is read by one task and the messages handled by another, because a WebSocket's pings
/// are answered only while its inbound stream is read: a session that read its socket between
/// decodes left a client's keep-alive ping unanswered for as long as a final decode took (the
/// `openai` client's `websockets` closes the connection after 20 s of that, which a service under
/// load reached). Now a decode delays the session's events, never its pongs.
///
/// What waits here is bounded in bytes: beyond ``maxBytes`` the reader stops reading the socket until
/// the handler catches up, so a client that sends faster than the service decodes meets TCP
/// back-pressure instead of the service's memory.
final class RealtimeInbox: Sendable {
    /// What a message costs in memory beside its payload (the message, its buffer and the stream's
    /// node), counted against the bound with the payload: a client sending one-byte messages could
    /// otherwise queue millions of them within it.
    static let overheadPerMessage = 256

    /// What the service itself tells a session, in order with its client's messages.
    enum Signal: Sendable {
        /// The service is stopping: end the session once no turn is open (``RealtimeSessions``).
        case windDown
        /// The service's drain deadline has passed: commit the open turn, and end.
        case commitNow
    }

    /// A message as read, with the bytes it counts against the bound (its payload and
    /// ``overheadPerMessage``), or a signal from the service, which counts nothing.
    struct Message: Sendable {
        enum Content: Sendable {
            case client(WebSocketMessage)
            case service(Signal)
        }
        let content: Content
        let bytes: Int
        /// When the message was read off the connection: a session judges its client's pace by it, not by
        /// when the session got round to the message.
        let received = ContinuousClock.now

        init(_ message: WebSocketMessage) {
            content = .client(message)
            let payload =
                switch message {
                case .text(let text): text.utf8.count
                case .binary(let buffer): buffer.readableBytes
                }
            bytes = payload + RealtimeInbox.overheadPerMessage
        }

        init(_ signal: Signal) {
            content = .service(signal)
            bytes = 0
        }
    }

    let maxBytes: Int
    let messages: AsyncStream<Message>
    private let queue: AsyncStream<Message>.Continuation

    private struct State {
        var bytes = 0
        var reader: CheckedContinuation<Void, Never>?
        var cancelled = false
    }
    private let state = Mutex(State())

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
        (messages, queue) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .unbounded)
    }

    /// Queues `message`; returns once what waits is within the bound again (or the reader is
    /// cancelled).
    func put(_ message: Message) async {
        let over = state.withLock { state in
            state.bytes += message.bytes
            return state.bytes > maxBytes
        }
        queue.yield(message)
        guard over else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goOn = state.withLock { state in
                    guard state.bytes > maxBytes, !state.cancelled else { return true }
                    state.reader = continuation
                    return false
                }
                if goOn { continuation.resume() }
            }
        } onCancel: {
            let reader = state.withLock { state in
                state.cancelled = true
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume()
        }
    }

    /// The handler is done with `message`: its bytes no longer count, and a reader held at the bound
    /// goes on once what waits is within it.
    func handled(_ message: Message) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.bytes -= message.bytes
            guard state.bytes <= maxBytes else { return nil }
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    /// Bytes of the messages read and not yet handled, `message` (being handled) aside.
    func waiting(besides message: Message) -> Int {
        state.withLock { $0.bytes } - message.bytes
    }

    /// Queues a signal from the service behind the messages already read; never waits, whatever the
    /// bound.
    func signal(_ signal: Signal) { queue.yield(Message(signal)) }

    /// No more messages: the handler's loop ends once it has taken what is queued.
    func finish() { queue.finish() }
}
