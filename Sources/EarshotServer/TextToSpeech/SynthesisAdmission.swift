import Synchronization

/// How many Text to Speech answers the service makes or queues at once. One thread speaks for the
/// whole process (``EarshotSynthesis/Synthesis/executor``: the engines are not thread-safe), so the
/// answers beyond the one being spoken wait for it; past `limit` (`--max-syntheses`) a request gets 503
/// with `Retry-After` at once instead of joining a queue that grows with a flood.
final class SynthesisAdmission: Sendable {
    let limit: Int
    private let admitted = Mutex(0)

    init(limit: Int) { self.limit = limit }

    /// A place, or nil when `limit` answers hold one. The place is given back when the ticket goes: once
    /// the answer's body has been written, or dropped unwritten.
    func admit() -> Ticket? {
        let admittedOne = admitted.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        return admittedOne ? Ticket(admission: self) : nil
    }

    fileprivate func release() { admitted.withLock { $0 -= 1 } }

    /// One answer's place, held by the answer's body.
    final class Ticket: Sendable {
        private let admission: SynthesisAdmission

        fileprivate init(admission: SynthesisAdmission) { self.admission = admission }

        deinit { admission.release() }
    }
}
