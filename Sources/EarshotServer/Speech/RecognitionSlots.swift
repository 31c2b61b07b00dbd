import Synchronization

/// How many recognitions a service runs at once over all its recognizer pools (`--recognizers`): the
/// bound is on decoding, which is what takes the cores, whichever model a request names. A pool
/// lends a recognizer only with a slot, and takes the slot back with the recognizer.
public final class RecognitionSlots: Sendable {
    public let limit: Int
    private let used = Mutex(0)

    public init(limit: Int) {
        precondition(limit > 0, "a service needs at least one recognition slot")
        self.limit = limit
    }

    /// Takes a slot if one is free.
    func take() -> Bool {
        used.withLock { used in
            guard used < limit else { return false }
            used += 1
            return true
        }
    }

    func give() { used.withLock { $0 -= 1 } }

    /// Slots taken now.
    public var inUse: Int { used.withLock { $0 } }

    /// Whether a slot is free now.
    public var isAvailable: Bool { used.withLock { $0 < limit } }
}
