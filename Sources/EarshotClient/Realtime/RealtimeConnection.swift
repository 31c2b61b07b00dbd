import AsyncAlgorithms
import EarshotCore
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOWebSocket

/// One WebSocket session with a Realtime service, on hummingbird-websocket's client: text messages out
/// through ``send(_:)``, the server's messages in through ``messages``, one reader at a time.
///
/// The socket is served by a task of its own, since the session outlives each interaction (a
/// ``RealtimeListener`` reuses it for the next); ``close()`` ends it. Sending waits until the socket's
/// writer has taken the message (`AsyncChannel` hands over one element at a time), so a slow connection
/// slows the sender instead of piling messages up.
final class RealtimeConnection: Sendable {
    /// What arrives on the session, in order; ``closed(code:reason:)`` or ``failed(_:)`` comes last.
    enum Incoming: Sendable {
        case message(String)
        /// The server closed the session (code nil: the connection dropped without a close frame).
        case closed(code: WebSocketErrorCode?, reason: String?)
        case failed(SpeechClientError)
    }

    let url: String
    let messages: AsyncStream<Incoming>
    private let outgoing = AsyncChannel<String>()
    private let task: Task<Void, Never>
    private let ended = Locked(false)

    /// Whether the session has ended (closed by either side, or failed).
    var isClosed: Bool { ended.value }

    /// Connects to `url` with `key` as the Bearer token, within `connectionTimeout` seconds (the WebSocket
    /// upgrade included).
    static func open(url: String, key: String?, connectionTimeout: Double) async throws(SpeechClientError)
        -> RealtimeConnection
    {
        let (opened, signal) = AsyncStream.makeStream(of: Result<Void, SpeechClientError>.self)
        let connection = RealtimeConnection(url: url, key: key, opened: signal)
        let result = await withTaskGroup(of: Result<Void, SpeechClientError>?.self) { group in
            group.addTask {
                var first = opened.makeAsyncIterator()
                return await first.next()
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(connectionTimeout * 1000)))
                return Task.isCancelled
                    ? nil : .failure(.connectionFailure("no connection to \(url) within the connection timeout"))
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return .failure(.connectionFailure("no connection to \(url)"))
        }
        do {
            try result.get()
        } catch {
            connection.abandon()
            throw error
        }
        return connection
    }

    private init(url: String, key: String?, opened: AsyncStream<Result<Void, SpeechClientError>>.Continuation) {
        self.url = url
        let (messages, received) = AsyncStream.makeStream(of: Incoming.self)
        self.messages = messages
        var headers = HTTPFields()
        if let key { headers[.authorization] = "Bearer \(key)" }
        var logger = Logger(label: "earshot.realtime-client")
        logger.logLevel = .critical
        let (outgoing, ended) = (self.outgoing, self.ended)
        task = Task {
            let end: Incoming
            do {
                let frame = try await WebSocketClient.connect(
                    url: url,
                    configuration: .init(maxFrameSize: 1 << 22, additionalHeaders: headers, closeTimeout: .seconds(5)),
                    logger: logger
                ) { inbound, outbound, _ in
                    opened.yield(.success(()))
                    opened.finish()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in outgoing { try await outbound.write(.text(text)) }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            if case .text(let text) = message { received.yield(.message(text)) }
                        }
                        group.cancelAll()
                    }
                }
                end = .closed(code: frame?.closeCode, reason: frame?.reason)
            } catch {
                end = .failed(Self.classify(error, url: url))
                opened.yield(.failure(Self.classify(error, url: url)))
            }
            ended.withLock { $0 = true }
            opened.finish()
            // A send waiting for the writer returns at once.
            outgoing.finish()
            received.yield(end)
            received.finish()
        }
    }

    /// Reads the session's first events until `session.updated`, within `seconds`: the session is open and
    /// its settings taken. Throws the refusal that comes instead (an `error` event such as a wrong key, a
    /// close, a lost connection).
    ///
    /// Audio waits for this: a client that streams before the service has answered at all can bury a
    /// refusal (a service that refuses the session on connecting and reads none of it).
    func waitUntilConfigured(within seconds: Double) async throws(SpeechClientError) {
        let (messages, url) = (self.messages, self.url)
        let result = await withTaskGroup(of: Result<Void, SpeechClientError>?.self) { group in
            group.addTask {
                for await incoming in messages {
                    switch incoming {
                    case .message(let text):
                        switch RealtimeServerEvent(text: text) {
                        case .sessionUpdated: return .success(())
                        case .error(let type, let code, let message):
                            return .failure(RealtimeFailure.error(type: type, code: code, message: message))
                        default: continue
                        }
                    case .closed(let code, let reason):
                        return .failure(RealtimeFailure.closed(code: code, reason: reason, url: url))
                    case .failed(let error):
                        return .failure(error)
                    }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                return Task.isCancelled
                    ? nil
                    : .failure(
                        .noResponseFromServer(
                            "\(url) did not take the session's settings within \(seconds) s (the connection timeout)"))
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return .failure(.noResponseFromServer("the session with \(url) ended before it was configured"))
        }
        try result.get()
    }

    /// Sends one text message, once the socket's writer takes it; returns at once when the session has ended.
    func send(_ text: String) async { await outgoing.send(text) }

    /// Closes the session politely (a close frame, answered by the server's) and waits for its end.
    func close() async {
        outgoing.finish()
        await task.value
    }

    /// Ends the session without waiting: a close frame if it is open, else the connection attempt is dropped.
    func abandon() {
        outgoing.finish()
        if !isClosed { task.cancel() }
    }

    /// What a failed connection or session means for the interaction.
    private static func classify(_ error: any Error, url: String) -> SpeechClientError {
        if let error = error as? WebSocketClientError {
            if error == .webSocketUpgradeFailed {
                return .connectionFailure(
                    "\(url) did not accept a WebSocket upgrade; expected a Realtime service's /v1/realtime")
            }
            if error == .invalidURL { return .invalidURL("\(url): expected ws://HOST:PORT/v1/realtime") }
            return .noResponseFromServer("the Realtime session with \(url) failed: \(error)")
        }
        return HTTPFailure.classify(error, during: "the Realtime session with \(url)")
    }
}
