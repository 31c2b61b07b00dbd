import Glibc
import Synchronization

/// How many connections the service keeps open at once: a file-descriptor budget.
///
/// Each connection holds a descriptor, and a process out of descriptors cannot accept at all: its
/// listener fails every `accept()` with `EMFILE`, so `/health` and good uploads time out along with
/// the connections that used the descriptors up. The budget keeps a reserve below `RLIMIT_NOFILE`
/// for what else the service opens (models, recognizers, logs); a connection accepted beyond it is
/// closed at once, before it reads a byte (``ConnectionGuard``), so the listener keeps accepting and
/// every slow connection inside the budget still meets its deadlines and frees its place.
final class ConnectionBudget: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// Takes a place for a new connection; false (and nothing taken) when the budget is spent.
    func admit() -> Bool {
        let now = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard now <= limit else {
            open.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Gives back a place taken by ``admit()``.
    func release() { open.wrappingSubtract(1, ordering: .relaxed) }

    /// Descriptors kept out of the budget for everything but connections.
    static let reserve = 128

    /// The default budget: the soft `RLIMIT_NOFILE` less ``reserve``, at least 16.
    static var defaultLimit: Int {
        var limits = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 - reserve }
        // RLIM_INFINITY is the largest value: capped like any other.
        let soft = Int(min(UInt64(limits.rlim_cur), 1 << 20))
        return max(16, soft - reserve)
    }
}
