import Foundation

/// The cores, shared out among decodes that compete for them: at most ``count`` run at once, results
/// first.
///
/// A live service holds more recognizers than cores (a recognizer waits on its stream most of the
/// time), and each may start a decode whenever its stream asks: a final one when an utterance ends or
/// the speaker pauses, a provisional one (a partial result) every second or so. Left to the OS, eight
/// decodes on two cores each take four times as long, and a final result waits behind the partial
/// decodes of seven other streams. Here a decode of a result (``runResult(unless:_:)``) waits for a
/// slot in order of arrival and then runs at a core's full speed; a provisional one
/// (``runProvisional(_:)``) runs only if a slot is free and no result waits, is told when a result
/// comes to wait so it can stop at its next check, and is otherwise skipped — a partial result later
/// is worth less than a final one now, and a caller that skips one keeps the text it has. Provisional
/// work holds at most ``provisionalLimit`` slots (half of them), so a result that comes finds a core
/// free at once rather than at a partial decode's next check, and partial results never take more than
/// half the machine however many streams ask for them. And it starts only where it leaves a slot free
/// (or where nothing runs at all): the decodes are not the only work on the cores — the service reads
/// every stream and runs its detector and endpointer, and a load test's clients often share the
/// machine. On two cores, a partial decode beside a result's left that work no core, and the result
/// ran at half speed: in the README's load test at eight streams, `cards-004`'s final decode (0.93 s of
/// CPU) took 1.1–1.8 s, answering 0.48–0.59 s after the endpoint at p95; with the spare core kept,
/// 0.35–0.46 s, the partials' CPU 0.50–0.56 of the finals' rather than 0.73–0.84, at the same partial
/// lag (BENCHMARKS.md, "a core left to the service").
///
/// The work must be single-threaded and CPU-bound (a Whisper decode on one thread); the waits block
/// the calling thread, so callers run on a thread of their own or on a ``BlockingExecutor``.
///
/// `@unchecked Sendable`: the state is read and written only with `condition` locked.
public final class ComputeSlots: @unchecked Sendable {
    /// The process's slots: one per core.
    public static let shared = ComputeSlots(count: ProcessInfo.processInfo.activeProcessorCount)

    /// How many decodes run at once.
    public let count: Int
    /// How many of them may be provisional.
    public let provisionalLimit: Int
    private let condition = NSCondition()
    private var running = 0
    private var runningProvisional = 0
    /// Waiting results, oldest first, by ticket.
    private var queue: [Int] = []
    private var nextTicket = 0
    private var counts = Tally()

    /// What the slots have done since they were made.
    public struct Tally: Sendable, Equatable {
        /// Decodes of results run, and the CPU they took.
        public var results = 0
        public var resultCPU = Duration.zero
        /// Time results waited for a slot, summed.
        public var resultWait = Duration.zero
        /// Provisional decodes run, and the CPU they took (those stopped early included).
        public var provisional = 0
        public var provisionalCPU = Duration.zero
        /// Provisional decodes not begun: no slot was free, a result waited, or provisional work held its
        /// share.
        public var provisionalSkipped = 0

        public init() {}
    }

    /// `count` slots (at least one), of which `provisionalLimit` (by default half, at least one) may
    /// hold provisional work.
    public init(count: Int, provisionalLimit: Int? = nil) {
        precondition(count > 0, "compute slots need at least one slot")
        self.count = count
        self.provisionalLimit = min(count, max(1, provisionalLimit ?? count / 2))
    }

    /// The tally so far.
    public var tally: Tally { condition.withLock { counts } }

    /// Whether a result is waiting for a slot: a provisional decode asks this at its checks and stops.
    public var resultWaiting: Bool { condition.withLock { !queue.isEmpty } }

    /// How many results wait for a slot now.
    public var waitingResults: Int { condition.withLock { queue.count } }

    /// Runs `work` once a slot is free, results in order of arrival; nil, without running it, when
    /// `isCancelled` turns true while it waits (asked every ``cancelPoll`` seconds).
    public func runResult<T>(unless isCancelled: () -> Bool = { false }, _ work: () throws -> T) rethrows -> T? {
        let clock = ContinuousClock()
        let arrived = clock.now
        let admitted: Bool = condition.withLock {
            let ticket = nextTicket
            nextTicket += 1
            queue.append(ticket)
            while running >= count || queue.first != ticket {
                if isCancelled() {
                    queue.removeAll { $0 == ticket }
                    condition.broadcast()
                    return false
                }
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.cancelPoll))
            }
            queue.removeFirst()
            running += 1
            counts.results += 1
            counts.resultWait += clock.now - arrived
            // The next waiter may fit in another free slot.
            condition.broadcast()
            return true
        }
        guard admitted else { return nil }
        return try inSlot(counting: \.resultCPU, work)
    }

    /// Runs `work` now if no result waits, provisional work holds fewer than ``provisionalLimit`` slots
    /// and either nothing runs or a slot stays free after it, else returns nil at once. `work` is
    /// given ``resultWaiting`` to ask at its checks: once true it should stop (a result needs the slot).
    public func runProvisional<T>(_ work: (_ resultWaiting: @escaping () -> Bool) throws -> T) rethrows -> T? {
        let admitted: Bool = condition.withLock {
            // Nothing running, or a slot still free once this work has one (which implies a slot is free).
            guard running == 0 || running + 1 < count, runningProvisional < provisionalLimit, queue.isEmpty else {
                counts.provisionalSkipped += 1
                return false
            }
            running += 1
            runningProvisional += 1
            counts.provisional += 1
            return true
        }
        guard admitted else { return nil }
        return try inSlot(counting: \.provisionalCPU, provisional: true) { try work { self.resultWaiting } }
    }

    /// Runs `work` in the slot just taken (a provisional one, with `provisional`), then gives the slot
    /// back with the CPU the work took added to `cpu` (also when it threw).
    private func inSlot<T>(
        counting cpu: WritableKeyPath<Tally, Duration>, provisional: Bool = false, _ work: () throws -> T
    ) rethrows -> T {
        let clock = ThreadCPUClock.current
        let started = clock?.elapsed ?? .zero
        defer {
            let spent = (clock?.elapsed ?? .zero) - started
            condition.withLock {
                running -= 1
                if provisional { runningProvisional -= 1 }
                counts[keyPath: cpu] += spent
                condition.broadcast()
            }
        }
        return try work()
    }

    /// How often a waiting result asks whether it was cancelled, in seconds.
    public static let cancelPoll = 0.02
}
