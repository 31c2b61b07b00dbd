import Synchronization

/// The Realtime sessions open now: their count, against ``RealtimeLimits/maxSessions`` (read at each
/// opening, so a reload takes effect for the next session), and the inboxes of those running, which a
/// graceful shutdown winds down.
///
/// A session is the Realtime analogue of a request in flight, and a stopping service answers those
/// (``ServiceDrain``): on ``windDown(deadline:)`` a session between turns closes at once, one in a turn
/// closes when that turn completes, and one whose turn is still open at the drain's deadline has it
/// committed there, so the words heard are transcribed and sent before the close (1001, going away).
/// Without this the WebSocket handler's own shutdown closed every session with 1000 at once, and a
/// turn in flight was lost.
final class RealtimeSessions: Sendable {
    private struct State {
        var open = 0
        var running: [ObjectIdentifier: RealtimeInbox] = [:]
        var windingDown = false
    }
    private let state = Mutex(State())

    /// Takes one of `limit` sessions; false when all are open.
    func take(limit: Int) -> Bool {
        state.withLock { state in
            guard state.open < limit else { return false }
            state.open += 1
            return true
        }
    }

    func give() { state.withLock { $0.open -= 1 } }

    var count: Int { state.withLock { $0.open } }

    /// Whether the service is stopping.
    var isWindingDown: Bool { state.withLock { $0.windingDown } }

    /// A session starts handling its client's messages from `inbox`; it is told at once if the service
    /// is already stopping.
    func enroll(_ inbox: RealtimeInbox) {
        let stopping = state.withLock { state in
            state.running[ObjectIdentifier(inbox)] = inbox
            return state.windingDown
        }
        if stopping { inbox.signal(.windDown) }
    }

    /// The session of `inbox` has ended.
    func leave(_ inbox: RealtimeInbox) {
        _ = state.withLock { $0.running.removeValue(forKey: ObjectIdentifier(inbox)) }
    }

    /// Tells every session the service is stopping, then waits until they have all ended: those still
    /// in a turn when `deadline` passes are told to commit it, and have ``commitGrace`` more to send
    /// its transcript.
    func windDown(deadline: DrainDeadline) async {
        let running = state.withLock { state in
            state.windingDown = true
            return Array(state.running.values)
        }
        for inbox in running { inbox.signal(.windDown) }
        while count > 0, !deadline.hasPassed { try? await Task.sleep(for: Self.poll) }
        guard count > 0 else { return }
        for inbox in state.withLock({ Array($0.running.values) }) { inbox.signal(.commitNow) }
        let grace = ContinuousClock.now + Self.commitGrace
        while count > 0, ContinuousClock.now < grace { try? await Task.sleep(for: Self.poll) }
    }

    /// How long sessions told to commit at the deadline have to finish their final decode and send it:
    /// beyond the drain's deadline, which ends an upload's recognition with a 503 its client can send
    /// again elsewhere, because a Realtime client's audio is gone once streamed. Seconds of audio decode
    /// in well under a second; a loaded machine takes several.
    static let commitGrace: Duration = .seconds(5)
    private static let poll: Duration = .milliseconds(20)
}
