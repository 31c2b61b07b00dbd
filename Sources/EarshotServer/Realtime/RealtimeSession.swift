import EarshotCore
import EarshotModels
import EarshotRecognizer
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// One Realtime transcription session, from `session.created` to its end, as four tasks:
///
/// - the **reader** reads the socket, so its pings are answered whatever the session is doing, and
///   queues each client message in the session's ``RealtimeInbox`` (bounded; beyond, it stops reading
///   and TCP back-pressure reaches the client). When the client goes, the session ends at once: the
///   handler is cancelled and the recognizer goes back to its pool, its open utterance abandoned;
/// - the **handler**, on the executor for blocking work: takes each message in order, checks it, and
///   runs the audio through the session's ``RealtimeTranscriber`` (decoding is CPU-bound; awaiting the
///   next message frees the thread). Audio ahead of real time by more than
///   ``RealtimeLimits/maxAudioAhead`` waits until the clock catches up;
/// - the **writer**: sends the server events queued for it, at the client's pace. The queue holds at
///   most ``RealtimeLimits/maxQueuedEvents``; a client that reads none of them is disconnected when it
///   overflows, so nothing waits on it forever;
/// - the **watchdog**: ends a session idle for ``RealtimeLimits/idleTimeout`` or older than
///   ``RealtimeLimits/maxSessionDuration``, with an `error` event naming the limit.
///
/// Every refusal of a client event is an `error` event that names the field and the offending event's
/// `event_id`; the session goes on.
struct RealtimeSession: Sendable {
    let id: String
    let route: RealtimeRoute
    /// Read when the session opened: a reload applies to sessions opened after it.
    let limits: RealtimeLimits
    let audioLimits: AudioLimits
    let logger: Logger

    /// Why a session ended, and the close code to send (nil when the client closed it).
    struct End: Sendable {
        var reason: String
        var close: WebSocketErrorCode?
        var audioSeconds = 0.0
    }

    func run(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, lease: RealtimeRoute.Lease,
        settings: RealtimeSessionSettings, closeConnection: @escaping @Sendable () -> Void,
        recognitionEnded: @escaping @Sendable () -> Void
    ) async -> End {
        let (events, queue) = AsyncStream.makeStream(
            of: String.self, bufferingPolicy: .bufferingOldest(limits.maxQueuedEvents))
        let overflowed = Mutex(false)
        let send: @Sendable (String) -> Void = { text in
            if case .dropped = queue.yield(text) {
                overflowed.withLock { $0 = true }
                closeConnection()
            }
        }
        let lastActivity = SessionActivity()
        return await withTaskGroup(of: End?.self) { outer in
            outer.addTask {
                for await text in events {
                    do { try await outbound.write(.text(text)) } catch { break }
                }
                return nil
            }
            let inbox = RealtimeInbox(maxBytes: limits.maxUnhandledBytes)
            route.sessions.enroll(inbox)
            defer { route.sessions.leave(inbox) }
            var end = await withTaskGroup(of: End.self) { inner in
                inner.addTask { await receive(inbound, into: inbox, activity: lastActivity) }
                inner.addTask(executorPreference: route.executor) {
                    await handle(
                        inbox, lease: lease, settings: settings, send: send, activity: lastActivity,
                        recognitionEnded: recognitionEnded)
                }
                inner.addTask { await watch(send: send, activity: lastActivity) }
                let first = await inner.next()!
                inner.cancelAll()
                return first
            }
            end.audioSeconds = lastActivity.audioSeconds
            queue.finish()
            // The last events (a closing error among them) go out before the close, unless the client
            // does not read them.
            outer.addTask {
                try? await Task.sleep(for: .seconds(2))
                return nil
            }
            _ = await outer.next()
            outer.cancelAll()
            if overflowed.withLock({ $0 }) {
                end = End(
                    reason: "the client read none of the last \(limits.maxQueuedEvents) events "
                        + "(--realtime-max-queued-events)", close: nil, audioSeconds: end.audioSeconds)
            }
            return end
        }
    }

    /// The reader: the socket's messages into the inbox, until the client closes the session.
    private func receive(
        _ inbound: WebSocketInboundStream, into inbox: RealtimeInbox, activity: SessionActivity
    ) async -> End {
        defer { inbox.finish() }
        do {
            for try await message in inbound.messages(maxSize: limits.maxMessageBytes) {
                activity.read()
                await inbox.put(RealtimeInbox.Message(message))
                try Task.checkCancellation()
            }
            return End(
                reason: route.sessions.isWindingDown
                    ? "the connection closed while the service shut down" : "the client closed the session",
                close: nil)
        } catch is CancellationError {
            return End(reason: "ended", close: nil)
        } catch {
            return End(reason: "the connection failed: \(error)", close: nil)
        }
    }

    /// The handler: owns the transcriber and the lease for the session's life, and takes the inbox's
    /// messages in order. While one waits or is handled (the back-pressure wait included), the session
    /// is not idle. When it ends, `recognitionEnded` gives back the app's recognition (before the
    /// recognizer, so a client that sees the recognizer free is not refused by its app's count), and
    /// neither waits for the last events to drain.
    private func handle(
        _ inbox: RealtimeInbox, lease: RealtimeRoute.Lease, settings: RealtimeSessionSettings,
        send: @escaping @Sendable (String) -> Void, activity: SessionActivity,
        recognitionEnded: @Sendable () -> Void
    ) async -> End {
        var lease = lease
        let transcriber: RealtimeTranscriber
        do {
            transcriber = try RealtimeTranscriber(
                recognizer: lease.lease.recognizer, settings: settings, detector: audioLimits.detector,
                models: audioLimits.detectorModels, maxTurn: audioLimits.maxAudioDuration,
                itemPrefix: String(id.dropFirst("sess_".count).prefix(8)))
        } catch {
            recognitionEnded()
            lease.entry.pool.checkIn(lease.lease)
            send(RealtimeServerEvent.error(Self.serverError("the session could not start: \(error)")))
            return End(reason: "the session could not start: \(error)", close: .unexpectedServerError)
        }
        let earlyBefore = lease.lease.recognizer.earlyDecodes
        var swapped = false
        defer {
            transcriber.abandon()
            if !swapped { route.metrics.earlyDecodes(lease.lease.recognizer.earlyDecodes - earlyBefore) }
            recognitionEnded()
            lease.entry.pool.checkIn(lease.lease)
        }
        let started = ContinuousClock.now
        let expiresAt = Int(Date().timeIntervalSince1970 + limits.maxSessionDuration.inSeconds)
        send(RealtimeServerEvent.session("session.created", settings.sessionObject(id: id, expiresAt: expiresAt)))
        var messages = inbox.messages.makeAsyncIterator()
        // The service is stopping: the session ends once no turn is open (``RealtimeSessions``).
        var windingDown = false
        do {
            while let item = await messages.next() {
                let message: WebSocketMessage
                switch item.content {
                case .client(let received): message = received
                case .service(.windDown):
                    windingDown = true
                    if !transcriber.isInTurn { return shutDown(send: send) }
                    continue
                case .service(.commitNow):
                    if transcriber.isInTurn { try? transcriber.commit { send(RealtimeServerEvent.output($0)) } }
                    return shutDown(send: send)
                }
                defer {
                    inbox.handled(item)
                    activity.handled(audioSeconds: transcriber.audioSeconds)
                }
                try Task.checkCancellation()
                guard case .text(let text) = message else {
                    send(
                        RealtimeServerEvent.error(
                            RealtimeRefusal(
                                code: "invalid_event",
                                message: "a binary message is not an event; send each event as JSON text")))
                    continue
                }
                let (eventID, parsed) = RealtimeClientEvent.parse(text)
                do {
                    switch try parsed.get() {
                    case .updateSession(let update, let reply):
                        let next = try transcriber.settings.applying(
                            update, models: route.modelNames, languages: route.pools.languages)
                        if let entry = route.pools.entry(named: next.model), entry.model.id != lease.entry.model.id {
                            lease = try await swap(lease, to: entry, transcriber: transcriber)
                            swapped = true
                        }
                        try transcriber.update(next)
                        send(RealtimeServerEvent.session(reply, next.sessionObject(id: id, expiresAt: expiresAt)))
                    case .append(let bytes):
                        // Behind its client by more than a moment of audio, the session skips the partial
                        // decode, so the turn's end is seen (and its final begun) on time.
                        let behind =
                            Double(inbox.waiting(besides: item))
                            / transcriber.settings.format.messageBytesPerSecond
                        var turnEnded = false
                        try transcriber.append(bytes, partial: behind <= Self.caughtUp, received: item.received) {
                            turnEnded = turnEnded || $0.endsTurn
                            send(RealtimeServerEvent.output($0))
                        }
                        // Stopping: the turn that was open has ended; audio after it is not taken up.
                        if windingDown, turnEnded { return shutDown(send: send) }
                    case .commit:
                        try transcriber.commit { send(RealtimeServerEvent.output($0)) }
                    case .clear:
                        for output in try transcriber.clear() { send(RealtimeServerEvent.output(output)) }
                    }
                } catch var refusal as RealtimeRefusal {
                    refusal.eventID = refusal.eventID ?? eventID
                    send(RealtimeServerEvent.error(refusal))
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // The recognizer or the resampler failed: the turn is dropped, the session goes on.
                    transcriber.abandon()
                    var failure = Self.serverError("the audio could not be processed: \(error)")
                    failure.eventID = eventID
                    send(RealtimeServerEvent.error(failure))
                }
                if windingDown, !transcriber.isInTurn { return shutDown(send: send) }
                // Back-pressure: audio ahead of real time by more than the allowance is not read yet.
                let ahead = transcriber.audioSeconds - (ContinuousClock.now - started).inSeconds
                if ahead > limits.maxAudioAhead {
                    try await Task.sleep(for: .seconds(ahead - limits.maxAudioAhead))
                }
            }
            return End(reason: "the client closed the session", close: nil)
        } catch {
            return End(reason: "ended", close: nil)
        }
    }

    /// The end of a session the service's shutdown closes: an `error` event saying so, then 1001.
    private func shutDown(send: @Sendable (String) -> Void) -> End {
        send(
            RealtimeServerEvent.error(
                RealtimeRefusal(
                    type: "server_error", code: "server_shutting_down",
                    message: "the service is shutting down; open a new session")))
        return End(reason: "the service is shutting down", close: .goingAway)
    }

    /// The session's recognizer for another model: the old one goes back first, so a service whose
    /// recognizers are all lent can still swap; if the new model has none free, the old model's is
    /// taken again and the update refused.
    private func swap(
        _ lease: RealtimeRoute.Lease, to entry: RecognizerPools.Entry, transcriber: RealtimeTranscriber
    ) async throws -> RealtimeRoute.Lease {
        guard !transcriber.isInTurn else {
            throw RealtimeRefusal.invalidValue(
                "session.audio.input.transcription.model",
                "the model cannot change during a turn; commit or clear the input audio buffer first")
        }
        lease.entry.pool.checkIn(lease.lease)
        if let taken = try await entry.pool.checkOut() {
            try transcriber.replaceRecognizer(taken.recognizer)
            return RealtimeRoute.Lease(entry: entry, lease: taken)
        }
        guard let again = try await lease.entry.pool.checkOut() else { throw CancellationError() }
        try transcriber.replaceRecognizer(again.recognizer)
        throw RealtimeRefusal(
            type: "server_error", code: "overloaded",
            message: "every recognizer of model \(entry.model.id) is busy; the session keeps \(lease.entry.model.id)",
            param: "session.audio.input.transcription.model")
    }

    private func watch(send: @Sendable (String) -> Void, activity: SessionActivity) async -> End {
        let started = ContinuousClock.now
        while true {
            do { try await Task.sleep(for: .milliseconds(200)) } catch { return End(reason: "ended", close: nil) }
            if activity.idleTime > limits.idleTimeout {
                send(
                    RealtimeServerEvent.error(
                        RealtimeRefusal(
                            code: "idle_timeout",
                            message: "no event arrived for \(Int(limits.idleTimeout.inSeconds)) s "
                                + "(--realtime-idle-timeout); the session is closed")))
                return End(reason: "idle", close: .policyViolation)
            }
            if ContinuousClock.now - started > limits.maxSessionDuration {
                send(
                    RealtimeServerEvent.error(
                        RealtimeRefusal(
                            code: "session_expired",
                            message: "the session reached its maximum of \(Int(limits.maxSessionDuration.inSeconds)) s "
                                + "(--realtime-max-session-duration); open a new one")))
                return End(reason: "expired", close: .normalClosure)
            }
        }
    }

    /// Seconds of audio read and not yet handled within which a session counts as caught up with its
    /// client and decodes partial text.
    static let caughtUp = 0.3

    private static func serverError(_ message: String) -> RealtimeRefusal {
        RealtimeRefusal(type: "server_error", code: "server_error", message: message)
    }
}

/// What a session has done lately: when it last read or handled a client message, how many it has
/// read and not yet handled, and the seconds of audio it has received. A session is idle only while it
/// waits for its client: a decode that outlasts the idle timeout on a loaded machine, or messages
/// queued behind it, are the service's time, not the client's.
final class SessionActivity: Sendable {
    private struct State {
        var instant = ContinuousClock.now
        var unhandled = 0
        var audioSeconds = 0.0
    }
    private let stored = Mutex(State())

    /// A message was read.
    func read() {
        stored.withLock { state in
            state.instant = .now
            state.unhandled += 1
        }
    }

    /// The handler is done with a message; `audioSeconds` have been received in all.
    func handled(audioSeconds: Double) {
        stored.withLock { state in
            state.instant = .now
            state.unhandled -= 1
            state.audioSeconds = audioSeconds
        }
    }

    /// How long the session has waited for its client: zero while a message waits or is handled.
    var idleTime: Duration {
        stored.withLock { $0.unhandled > 0 ? .zero : ContinuousClock.now - $0.instant }
    }

    var audioSeconds: Double { stored.withLock { $0.audioSeconds } }
}
