public import EarshotCore
public import EarshotRecognizer
import Synchronization

/// A bounded set of loaded recognizers shared by the service's requests.
///
/// Loading the en-us model takes about half a second, so recognizers are kept loaded and lent to
/// one request at a time. When all `capacity` are lent, `checkOut()` returns nil at once (the
/// service answers 503 with `Retry-After`) rather than queueing without bound. Recognizers are
/// loaded on demand up to `capacity`, outside the lock so a load does not hold up other requests.
///
/// A class with a lock rather than an actor: lending and taking back are a few instructions, and an
/// actor runs them as jobs on Swift's cooperative pool, where they wait behind whatever CPU-bound work
/// holds that pool (in a test process, the other suites).
public final class RecognizerPool: Sendable {
    /// A recognizer lent to one request. The pool hands each to one task at a time and takes it back
    /// only through `checkIn`, which is what makes sending its non-Sendable C state across tasks safe.
    public final class Lease: @unchecked Sendable {
        let recognizer: any Recognizer
        init(_ recognizer: any Recognizer) { self.recognizer = recognizer }
    }

    /// Loads one recognizer: called on ``loader``, outside the pool's lock.
    public typealias Load = @Sendable () throws -> any Recognizer

    public let capacity: Int
    /// Where the requests that borrow the recognizers decode: blocking C work.
    public let executor: BlockingExecutor
    private let load: Load
    /// The service-wide bound on recognitions at once, shared with the service's other pools.
    private let slots: RecognitionSlots?
    private struct State {
        var idle: [Lease] = []
        /// Recognizers loaded or being loaded, lent or idle.
        var owned = 0
    }
    private let state = Mutex(State())

    /// A pool of recognizers `load` makes, used on the ``BlockingExecutor/current`` of the task that
    /// makes the pool; the service knows them only as ``Recognizer``s (and ``GrammarRecognizer``s, for
    /// Speech to Text Custom).
    public init(capacity: Int, slots: RecognitionSlots? = nil, load: @escaping Load) {
        precondition(capacity > 0, "a recognizer pool needs room for at least one recognizer")
        self.capacity = capacity
        self.slots = slots
        executor = BlockingExecutor.current
        self.load = load
    }

    /// Recognizers lent out now.
    public var busyCount: Int { state.withLock { $0.owned - $0.idle.count } }

    /// Whether `checkOut()` would lend a recognizer now (one is idle, or there is room to load one).
    public var canLend: Bool {
        (slots?.isAvailable ?? true) && state.withLock { !$0.idle.isEmpty || $0.owned < capacity }
    }

    /// Loads `count` recognizers ahead of the first requests (throws `.modelUnavailable` if the model
    /// cannot be loaded, so a misconfigured service fails at start, not at its first request).
    public func preload(_ count: Int) async throws {
        let target = min(count, capacity)
        while state.withLock({ state in
            guard state.owned < target else { return false }
            state.owned += 1
            return true
        }) {
            do {
                let lease = try await loadLease()
                state.withLock { $0.idle.append(lease) }
            } catch {
                state.withLock { $0.owned -= 1 }
                throw error
            }
        }
    }

    /// An idle recognizer, a newly loaded one if there is room, or nil when all are busy.
    public func checkOut() async throws -> Lease? {
        if let slots, !slots.take() { return nil }
        do {
            guard let lease = try await lendOrLoad() else {
                slots?.give()
                return nil
            }
            return lease
        } catch {
            slots?.give()
            throw error
        }
    }

    private func lendOrLoad() async throws -> Lease? {
        enum Decision { case lend(Lease), load, refuse }
        let decision = state.withLock { state -> Decision in
            if let lease = state.idle.popLast() { return .lend(lease) }
            guard state.owned < capacity else { return .refuse }
            state.owned += 1
            return .load
        }
        switch decision {
        case .lend(let lease): return lease
        case .refuse: return nil
        case .load:
            do {
                return try await loadLease()
            } catch {
                state.withLock { $0.owned -= 1 }
                throw error
            }
        }
    }

    /// Returns a lease; the recognizer must have no open utterance. A request's grammar is dropped;
    /// a recognizer whose dictionary a request extended (PocketSphinx, for one, cannot remove words)
    /// is freed instead of lent again, and a fresh one is loaded when next needed.
    public func checkIn(_ lease: Lease) {
        var reusable = true
        if let recognizer = lease.recognizer as? any GrammarRecognizer {
            reusable = !recognizer.hasAddedWords && (try? recognizer.useGrammar(nil, as: .only)) != nil
        }
        state.withLock { state in
            if reusable { state.idle.append(lease) } else { state.owned -= 1 }
        }
        slots?.give()
    }

    /// Loads on ``loader``: half a second of CPU and disk that must not hold Swift's cooperative pool.
    private func loadLease() async throws -> Lease {
        let load = self.load
        return try await withTaskExecutorPreference(Self.loader) { Lease(try load()) }
    }

    /// The one thread every pool loads its recognizers on.
    ///
    /// glibc's malloc gives each thread that allocates an arena of its own (up to eight per core) and
    /// keeps what is freed in the arena it came from, for that arena's next allocations. A PocketSphinx
    /// recognizer is some 90 MiB of heap, and a recognizer that took a request's lexicon is freed and
    /// a new one loaded (``checkIn(_:)``). Loaded on whichever of the executor's 16 threads ran the
    /// request, each load grew another arena by a recognizer, while the one freed stayed in its own:
    /// the resident set climbed by a recognizer a request to some 1.5 GiB (every arena holding one)
    /// and stayed there. Loaded on one thread, every recognizer is allocated from one arena, where the
    /// next load reuses what the last one freed (the recognizer also trims the heap when it is freed).
    /// Loads are serialised by it; they were bounded by the cores anyway.
    static let loader = BlockingExecutor(name: "earshot-load", threadCount: 1)
}
